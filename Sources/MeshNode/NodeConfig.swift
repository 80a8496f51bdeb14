/// How one node is set up: identity, relay policy, and (for mutants) a deliberate fault.
public struct NodeConfig: Sendable {
    public var address: NodeAddress
    /// The relay decision: the dialect's own rule, or another policy (the simulator compares them).
    public var relayPolicy: RelayPolicyKind
    /// Deliberate deviations from the dialect page, each one named mutant of the reference node.
    public var faults: Set<Fault>
    /// Dialect-specific settings (keys, contacts, timing overrides), as the dialect defines them.
    public var dialectSettings: [String: String]

    public init(address: NodeAddress, relayPolicy: RelayPolicyKind = .dialect, faults: Set<Fault> = [], dialectSettings: [String: String] = [:]) {
        self.address = address
        self.relayPolicy = relayPolicy
        self.faults = faults
        self.dialectSettings = dialectSettings
    }
}

/// Which relay decision a node uses.
public enum RelayPolicyKind: Hashable, Sendable {
    /// The dialect page's own rule.
    case dialect
    /// Seed 000's policy: relay probability by degree (0-2 links 100 %, 3-4 90 %, 5-6 70 %,
    /// 7+ 45 %), jitter, cancellation when the message is heard again before the relay fires,
    /// at most 20 scheduled relays.
    case probabilistic
    /// Plain flooding: every new message relayed at once (the simulator's reference point).
    case flood
}

/// A named mutant: one small, visible deviation from the reference node, used to prove that a
/// conformance check can fail. `--mutant NAME` on the command line.
public enum Fault: String, CaseIterable, Hashable, Sendable {
    case noDedup = "no-dedup"
    case noTTLDecrement = "no-ttl-decrement"
    case relayTTLOne = "relay-ttl-one"
    case relayToSender = "relay-to-sender"
    case ignoreHopPath = "ignore-hop-path"
    case noAck = "no-ack"
    case ackBroadcast = "ack-broadcast"
    case ackWrongID = "ack-wrong-id"
    case doubleDeliver = "double-deliver"
    case noJitter = "no-jitter"
    /// Stops answering altogether after the first truncated input.
    case crashOnTruncated = "crash-on-truncated"

    public var summary: String {
        switch self {
        case .noDedup: "keeps no de-duplication cache: every copy is delivered and relayed"
        case .noTTLDecrement: "relays with the TTL unchanged"
        case .relayTTLOne: "relays even when the TTL budget is spent (ttl <= 1)"
        case .relayToSender: "relays back on the link the message came in on"
        case .ignoreHopPath: "relays to nodes already on the hop path"
        case .noAck: "never acks"
        case .ackBroadcast: "acks broadcasts too"
        case .ackWrongID: "acks with a wrong identifier"
        case .doubleDeliver: "delivers a duplicate to the app again"
        case .noJitter: "relays at once, with no jitter"
        case .crashOnTruncated: "stops answering after a truncated input"
        }
    }
}
