/// Every check meshconform knows, in the order they run. docs/checks.md is generated from
/// this list (`meshconform list --markdown`), so the page cannot drift from the code.
public enum Catalog {
    public static let all: [Check] = RLY.checks + RLY.blemeshChecks + RLY.bitchatChecks + RLY.simpleChecks
        + DDP.checks + DDP.blemeshChecks + DDP.bitchatChecks + DDP.simpleChecks + ACK.checks + ACK.blemeshChecks
        + FRG.checks + FRG.bitchatChecks + RTE.checks + BCN.checks + ROB.checks + ROB.blemeshChecks
        + RLY.campChecks + ACK.campChecks + ROB.campChecks
        + RLY.peatChecks + DDP.peatChecks + ACK.peatChecks + BCN.peatChecks + ROB.peatChecks
}
