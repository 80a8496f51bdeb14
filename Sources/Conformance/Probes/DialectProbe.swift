import MeshNode
import MeshWire

/// Someone in a check's scenario: a tester on a link to the DUT, a node further away that
/// only testers can reach (a "stranger"), or the DUT itself.
public enum Party: Hashable, Sendable {
    case tester(Int)
    case stranger(Int)
    case dut
}

extension Party {
    /// The name a probe gives the party where its dialect carries one (blemesh originName,
    /// camp senderName).
    public var displayName: String { self == .dut ? "DUT" : "meshconform \(shortName)" }

    /// DUT, T1, S2: the evidence's names.
    public var shortName: String {
        switch self {
        case .dut: "DUT"
        case .tester(let n): "T\(n)"
        case .stranger(let n): "S\(n)"
        }
    }
}

/// What a check wants sent, in dialect-neutral terms; the probe turns it into wire bytes.
public struct MessageSpec: Sendable {
    public var origin: Party
    /// nil: a broadcast (dialects without broadcast refuse it: the check is NA).
    public var destination: Party?
    /// nil: the dialect's default TTL.
    public var ttl: Int?
    public var payload: [UInt8]
    /// nil: a fresh sequence number for this origin.
    public var sequence: UInt64?

    public init(from origin: Party = .stranger(1), to destination: Party?, ttl: Int? = nil,
                payload: [UInt8] = Array("meshconform probe".utf8), sequence: UInt64? = nil) {
        self.origin = origin
        self.destination = destination
        self.ttl = ttl
        self.payload = payload
        self.sequence = sequence
    }
}

/// A user message the tester built: its identity in the dialect (for matching what the DUT
/// sends back) and what it carries.
public struct ProbeMessage: Sendable {
    /// The dialect's de-duplication key as text (relay `origin/seq`, blemesh `id-origin-seq`).
    public var key: String
    /// What an ack for this message names (relay: the seq, blemesh: the envelope id).
    public var ackID: String
    public var origin: NodeAddress
    public var destination: NodeAddress?
    public var ttl: Int
    public var sequence: UInt64
    /// The bytes a relay must carry untouched (relay: the sealed body; blemesh: the payload).
    public var body: [UInt8]
    /// The plaintext the app should receive.
    public var payload: [UInt8]
    /// The dialect value, for probes that re-encode per link (blemesh hop paths).
    public var value: DialectValue
}

/// A decoded dialect value, for checks that look past the neutral view.
public enum DialectValue: Sendable {
    case relay(RelayPacket)
    case blemesh(MessageEnvelope)
    case camp(CampMessage)
    case peatEnvelope(PeatRelayEnvelope)
    case peatDocument(PeatDocument)
    case bitchat(BitchatPacket)
    case simple(SimpleMessage)
}

/// A user message the DUT sent, as the tester reads it.
public struct HeardMessage: Sendable {
    public var key: String
    public var origin: NodeAddress
    public var destination: NodeAddress?
    public var ttl: Int
    public var body: [UInt8]
    /// blemesh: the hop path; relay: nil.
    public var hopPath: [NodeAddress]?
    public var value: DialectValue
}

/// What one unit (packet, or completed chunk set) the DUT sent was.
public enum HeardPacket: Sendable {
    case message(HeardMessage)
    /// An ack naming `ackID` (compare `ProbeMessage.ackID`), addressed to `destination` when
    /// the dialect says (blemesh), with its envelope when there is one.
    case ack(ackID: String, destination: NodeAddress?, value: DialectValue)
    case beacon(Beacon)
    /// A control message other than an ack (blemesh ANNOUNCE / RREQ / RREP / RERR / READ).
    case control(ControlMessage, envelope: MessageEnvelope)
    /// Bytes the tester could not decode: the DUT sent something malformed.
    case malformed(WireError)
    /// The DUT's own state, which its dialect floods by merging rather than relaying (a peat
    /// document, PEAT-R5): not a message, so checks about relaying never count it.
    case state(DialectValue)
}

/// Something seen during a check, with its time since the check started.
public struct Observation: Sendable {
    public enum Kind: Sendable {
        case packet(HeardPacket, on: LinkID)
        case delivered(AppMessage)
        case acknowledged(messageID: String)
        case disconnected(LinkID)
    }

    public var time: Duration
    public var kind: Kind
    /// The unit as the DUT sent it, for a packet: what an undecodable unit is matched by
    /// (`CheckContext.sightings(of:in:)`).
    public var bytes: [UInt8]?

    public init(time: Duration, kind: Kind, bytes: [UInt8]? = nil) {
        self.time = time
        self.kind = kind
        self.bytes = bytes
    }

    public var packet: HeardPacket? { if case .packet(let p, _) = kind { p } else { nil } }
    public var link: LinkID? { if case .packet(_, let l) = kind { l } else { nil } }
    public var message: HeardMessage? { if case .message(let m)? = packet { m } else { nil } }
}

/// One dialect's part of the tester: identities, building messages, and reading what the DUT
/// sends. A probe lives for one check; it may keep state (reassembly of the DUT's chunks).
public protocol DialectProbe: AnyObject {
    var dialect: DialectName { get }
    /// The DUT's configuration for this check and the id the tester will address it by;
    /// every identifier the probe makes in the check comes from `identifiers`, so none repeats
    /// one the DUT heard earlier in the run (or in an earlier run).
    func setup(capabilities: Capabilities, seed: UInt64, identifiers: RunIdentifiers) throws -> DUTSetup
    /// The DUT's mesh id.
    var dutAddress: NodeAddress { get }
    /// Takes `address` as the DUT's id from here on: the id a DUT that keeps its own was
    /// learned by (from its traffic, or read over the air by the driver).
    func adopt(dutAddress address: NodeAddress)
    func address(of party: Party) -> NodeAddress
    /// The destination of a message the DUT must relay: relay has no broadcast, so a stranger;
    /// blemesh relays broadcasts (nil).
    var relayedDestination: Party? { get }
    /// Builds a message. Throws `CheckNotApplicable` for what the dialect cannot express.
    func message(_ spec: MessageSpec) throws -> ProbeMessage
    /// The units (packets or chunks) that carry `message` when tester `via` sends it.
    func units(of message: ProbeMessage, via tester: Int) -> [[UInt8]]
    /// Reads one unit the DUT sent on `link`; nil while a chunk set is incomplete.
    func hear(_ bytes: [UInt8], on link: LinkID) -> HeardPacket?
    /// A one-line description of a unit for the evidence.
    func describe(_ bytes: [UInt8]) -> String
    /// The catalog format of one unit (default: nil; see below).
    var unitFormat: FormatID? { get }
    /// Builds a message at `clock`, the time since the DUT's session began (its clock, for a
    /// DUT given `epoch`), for dialects whose messages carry the sender's clock (bitchat
    /// timestamps, BITCHAT-R4). Default: `message(spec)`.
    func message(_ spec: MessageSpec, at clock: Duration) throws -> ProbeMessage
    /// Whether a message may carry a sequence number the tester picks (default: true; see below).
    var acceptsChosenSequence: Bool { get }
    /// What tester `tester` sends first on a new link when the DUT is not told who is on it
    /// (over the air), so the DUT learns the neighbour's id as the dialect page says (default: nil).
    func introduction(of tester: Int) -> ProbeMessage?
    /// The page's wire rule a unit refused with `error` breaks, for FAILs on relays the tester
    /// cannot decode (default: the unit format's first wire rule, `<DIALECT>-W1`).
    func wireRule(for error: WireError) -> String
    /// Where the check's rule is stricter than a real implementation on purpose (a behavioural
    /// row of the page's differences table), what its FAIL adds: "stricter than bitchat
    /// Android, which ...", with the app's source line. nil elsewhere.
    func stricterThanApps(_ checkID: String) -> String?
}

extension DialectProbe {
    /// The catalog format of one unit on a link (what `units(of:via:)` returns), so fuzzing over
    /// the air can aim format-aware mutations at it and name why an input was refused; nil: the
    /// inputs get generic mutations only.
    public var unitFormat: FormatID? { nil }

    public func wireRule(for error: WireError) -> String { "\(dialect.rawValue.uppercased())-W1" }
    public func stricterThanApps(_ checkID: String) -> String? { nil }

    public func message(_ spec: MessageSpec, at clock: Duration) throws -> ProbeMessage { try message(spec) }

    /// Outside a run (a node taking the suite's identity, a fuzz campaign): the seed stands
    /// for the run base.
    public func setup(capabilities: Capabilities, seed: UInt64) throws -> DUTSetup {
        try setup(capabilities: capabilities, seed: seed, identifiers: .outsideRun(seed: seed))
    }

    /// Whether `address` is a tester's or a stranger's: someone the tester plays.
    public func isTesterParty(_ address: NodeAddress) -> Bool {
        (1...8).contains { self.address(of: .tester($0)) == address } || (1...9).contains { self.address(of: .stranger($0)) == address }
    }

    /// The id of the node that sent `packet` as its own, where the packet says so: a relay
    /// beacon at hop 0, a blemesh ANNOUNCE at hopCount 0, a peat document, a bitchat announce
    /// or a camp announcement (their sender), a simple message nobody relayed. Nil for
    /// anything a relay could have passed on. A sender the tester plays is not the DUT.
    public func ownIdentity(in packet: HeardPacket) -> NodeAddress? {
        let id: NodeAddress?
        switch packet {
        case .beacon(let b) where b.hop == 0: id = NodeAddress(b.origin)
        case .control(.peerAnnounce(let a), _) where a.hopCount == 0: id = NodeAddress(a.deviceID)
        case .state(.peatDocument(let d)): id = NodeAddress(peatNode: d.nodeID)
        case .message(let m):
            switch m.value {
            case .bitchat(let p) where p.type == BitchatMessageType.announce.rawValue: id = m.origin
            case .camp(let c) where c.kind == .campAnnouncement: id = m.origin
            case .simple(let s) where !s.isRelayed && s.relayCount == 0: id = m.origin
            default: id = nil
            }
        default: id = nil
        }
        return id.flatMap { isTesterParty($0) ? nil : $0 }
    }

    /// Whether `MessageSpec.sequence` may be any number the tester picks (default: true). Not so
    /// where the dialect has no sequence number (camp) or where it is the sender's clock
    /// (bitchat, whose receivers drop a timestamp far from their own clock).
    public var acceptsChosenSequence: Bool { true }

    public func introduction(of tester: Int) -> ProbeMessage? { nil }
}
