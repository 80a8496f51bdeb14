import Foundation
import MeshNode
import MeshWire

/// The tester's side of the `simple` dialect (docs/dialects/simple.md): named nodes, JSON
/// `SimpleMessage`s, broadcast only.
///
/// A node's name is its identity on the wire (`sender`, `originalSender`, `lastRelay`,
/// SIMPLE-R1); its address in reports is that name's UTF-8 bytes, or the UUID when the name
/// is one (as the reference node reports deliveries). Names are fixed: the DUT is
/// `meshconform DUT` (given in the `name` setting; a declared `address` UUID is used as the
/// name instead), tester n `meshconform Tn`, stranger n `meshconform Sn`.
public final class SimpleProbe: DialectProbe {
    /// What tester units are, for format-aware fuzzing over the air.
    public var unitFormat: FormatID? { "simple.message" }

    public let dialect = DialectName.simple
    public private(set) var dutName = "meshconform DUT"
    private var random = SeededRandom(seed: 0)
    private var nextSequence: UInt64 = 0
    /// Seconds since 2001 of the testers' messages (SIMPLE-W1 `timestamp`): mid 2025.
    static let timestampBase = 772_000_000.0

    public init() {}

    /// simple has only broadcasts (SIMPLE-R2).
    public var relayedDestination: Party? { nil }

    public var dutAddress: NodeAddress { Self.address(named: dutName) }

    public func setup(capabilities: Capabilities, seed: UInt64, identifiers: RunIdentifiers) throws -> DUTSetup {
        if let declared = capabilities.address {
            guard let uuid = UUID(uuidString: declared) else { throw TesterError("capabilities address \"\(declared)\" is not a UUID") }
            dutName = uuid.uuidString
        } else {
            dutName = "meshconform DUT"
        }
        // Message ids are what a DUT keys on (SIMPLE-R3): new in every check of every run.
        random = SeededRandom(seed: identifiers.value("simple.ids"))
        nextSequence = 0
        return DUTSetup(dialect: .simple, address: dutAddress, settings: ["name": dutName], seed: seed)
    }

    public func adopt(dutAddress address: NodeAddress) {
        dutName = address.uuid?.uuidString ?? String(decoding: address.bytes, as: UTF8.self)
    }

    /// The name `party` goes by on the wire.
    public func name(of party: Party) -> String {
        switch party {
        case .dut: dutName
        case .tester(let n): "meshconform T\(n)"
        case .stranger(let n): "meshconform S\(n)"
        }
    }

    public func address(of party: Party) -> NodeAddress { Self.address(named: name(of: party)) }

    static func address(named name: String) -> NodeAddress {
        UUID(uuidString: name).map { NodeAddress($0) } ?? NodeAddress(bytes: Array(name.utf8))
    }

    // MARK: building

    /// A message as its originator sends it (SIMPLE-R2): a fresh id, `ttl` 5 unless the spec
    /// says, relayCount 0, not relayed. The content is the payload as text.
    public func message(_ spec: MessageSpec) throws -> ProbeMessage {
        guard spec.destination == nil else { throw CheckNotApplicable("simple messages have no destination: broadcast only (SIMPLE-R2)") }
        let ttl = spec.ttl ?? DialectParameters.of(.simple).defaultTTL
        guard (0...255).contains(ttl) else { throw TesterError("simple ttl \(ttl) is outside 0...255") }
        guard let content = String(validating: spec.payload, as: UTF8.self) else { throw TesterError("simple content must be UTF-8") }
        nextSequence += 1
        let sequence = spec.sequence ?? nextSequence
        let origin = name(of: spec.origin)
        let message = SimpleMessage(id: random.uuid().uuidString, sender: origin, content: content,
                                    timestamp: Self.timestampBase + Double(sequence), ttl: UInt8(ttl), originalSender: origin)
        return Self.probeMessage(message, sequence: sequence)
    }

    static func probeMessage(_ m: SimpleMessage, sequence: UInt64) -> ProbeMessage {
        ProbeMessage(key: m.dedupKey, ackID: "", origin: address(named: m.originalSender), destination: nil, ttl: Int(m.ttl),
                     sequence: sequence, body: Array(m.content.utf8), payload: Array(m.content.utf8), value: .simple(m))
    }

    /// The JSON message a probe message carries.
    public func simpleMessage(of message: ProbeMessage) -> SimpleMessage {
        guard case .simple(let m) = message.value else { preconditionFailure("not a simple message") }
        return m
    }

    /// The same message changed by `edit` (a relay copy's fields, another TTL): the same key.
    public func edited(_ message: ProbeMessage, _ edit: (inout SimpleMessage) -> Void) -> ProbeMessage {
        var m = simpleMessage(of: message)
        edit(&m)
        return Self.probeMessage(m, sequence: message.sequence)
    }

    /// One ATT value is one message (SIMPLE-G2).
    public func units(of message: ProbeMessage, via tester: Int) -> [[UInt8]] { [simpleMessage(of: message).encoded()] }

    // MARK: hearing

    public func hear(_ bytes: [UInt8], on link: LinkID) -> HeardPacket? {
        do {
            let m = try SimpleMessage(decoding: bytes[...])
            return .message(HeardMessage(key: m.dedupKey, origin: Self.address(named: m.originalSender), destination: nil,
                                         ttl: Int(m.ttl), body: Array(m.content.utf8), hopPath: nil, value: .simple(m)))
        } catch {
            return .malformed(error)
        }
    }

    public func describe(_ bytes: [UInt8]) -> String {
        guard let m = try? SimpleMessage(decoding: bytes[...]) else {
            return "undecodable \(bytes.count)B: \(String(decoding: bytes.prefix(48), as: UTF8.self))\(bytes.count > 48 ? "..." : "")"
        }
        let relay = m.isRelayed ? " relayed x\(m.relayCount) last \(short(m.lastRelay ?? "-"))" : (m.relayCount > 0 ? " relayCount \(m.relayCount)" : "")
        return "message \(m.id.prefix(8)) from \(short(m.originalSender)) sender \(short(m.sender)) ttl \(m.ttl)\(relay) \(m.content.utf8.count)B"
    }

    /// DUT, T1, S2 ... for the evidence; other names as they are.
    private func short(_ name: String) -> String {
        if name == dutName { return "DUT" }
        return name.hasPrefix("meshconform ") ? String(name.dropFirst("meshconform ".count)) : name
    }
}
