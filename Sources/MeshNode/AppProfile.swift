import Foundation

/// A dialect's app as a mutant of the reference node: `--mutant app`. It carries every
/// behavioural row of the dialect page's "Differences from the app" table at once (section 7;
/// camp and blemesh: 6), so a run shows what the real app would fail. The list here must equal
/// the union of those rows' mutants: `swift test --filter AppTableTests` compares them.
public enum AppProfile {
    /// The name `--mutant` takes for a dialect's app profile.
    public static let mutantName = "app"

    /// The app the dialect came from, as docs/apps.md and `meshconform list --apps` name it.
    public static func app(of dialect: DialectName) -> String {
        switch dialect {
        case .relay: "SwiftMeshRelay"
        case .blemesh: "BLEMesh"
        case .bitchat: "bitchat"
        case .simple: "the mesh chat story (seed 000)"
        case .camp: "Robot Heart"
        case .peat: "peat-btle"
        }
    }

    /// The mutants the app's behavioural rows name, in the table's row order.
    public static func faults(of dialect: DialectName) -> [Fault] {
        switch dialect {
        case .relay:
            [.beaconType46, .noBeaconRelay, .noDedup, .relayToSender, .relayOwn, .noAck, .dropForeignAcks, .ignoreOwnAcks,
             .retryTTLDecrement, .noRetryExpiry, .noLinkLimit, .deliverAsDest]
        case .blemesh:
            [.rawControl, .ackNoDestination, .readAsUser, .ignoreHopPath, .noReack, .chunksIgnoreMTU, .reassembleByMessageID, .trustChunkTotal, .overwriteChunks,
             .flushRequestIDs, .refuseSigned, .noJitter, .holdUnrouted, .lateFailure]
        case .bitchat:
            [.noFragmentDedup, .ignoreFragmentClaim, .lastPieceWins]
        case .simple:
            [.relayToSender, .noJitter]
        case .camp:
            [.evictArbitrary, .relayToSender, .retryEmptyContent, .anyMessageID]
        case .peat:
            [.laxSections, .laxCounters, .laxEnvelopeLength, .markerVersion]
        }
    }
}

/// What `--mutant a,b,c` names: faults of the reference node, composed, and possibly `app`,
/// the dialect's app profile, which stands for a different set of faults in each dialect.
public struct MutantSelection: Sendable, Hashable {
    public var faults: Set<Fault>
    public var appProfile: Bool

    public init(faults: Set<Fault> = [], appProfile: Bool = false) {
        self.faults = faults
        self.appProfile = appProfile
    }

    /// Parses `a,b,c`; returns the first name that is neither a mutant nor `app` as the error.
    public static func parse(_ text: String) -> Result<MutantSelection, UnknownMutant> {
        var selection = MutantSelection()
        for name in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if name == AppProfile.mutantName {
                selection.appProfile = true
            } else if let fault = Fault(rawValue: name) {
                selection.faults.insert(fault)
            } else {
                return .failure(UnknownMutant(name: name))
            }
        }
        return .success(selection)
    }

    /// The faults a node of `dialect` carries under this selection.
    public func faults(for dialect: DialectName) -> Set<Fault> {
        appProfile ? faults.union(AppProfile.faults(of: dialect)) : faults
    }

    public var isEmpty: Bool { faults.isEmpty && !appProfile }

    /// `app+no-dedup`, for reports.
    public var name: String {
        ((appProfile ? [AppProfile.mutantName] : []) + faults.map(\.rawValue).sorted()).joined(separator: "+")
    }
}

public struct UnknownMutant: Error, Sendable {
    public var name: String
}
