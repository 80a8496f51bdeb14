import Foundation
import MeshNode
import MeshWire

/// The tester's side of the `bitchat` dialect (docs/dialects/bitchat.md): 8-byte peer ids for
/// the DUT, the testers and the strangers beyond them, v1 packets timestamped on the DUT's
/// clock, and fragments (BITCHAT-R7) for frames over one characteristic value.
///
/// Identities are public, so a report reads without a legend and a process DUT is told its
/// own in the `start` frame (DUTSetup.address, hex). A DUT keys its de-duplication on the
/// sender and the timestamp (BITCHAT-R3), so the testers' and strangers' ids carry six bytes
/// of the check's number (RunIdentifiers.tag): new in every check of every run.
///
/// | party | peer id |
/// |---|---|
/// | DUT | `DD00000000000000` (or the first 8 bytes of `address` from the capabilities file) |
/// | tester n (1...8) | `7E` + 6 check bytes + `nn` |
/// | stranger n (1...9) | `5E` + 6 check bytes + `nn` |
///
/// bitchat drops a packet more than 120 s from its clock (BITCHAT-R4), so the tester gives the
/// DUT its clock in the `epoch` setting (seconds since 1970 at the session's start) and stamps
/// each message with that epoch plus the session's time. A DUT on the real date
/// (`Capabilities.takesEpoch` false: a device on the air) is stamped on the wall clock instead.
public final class BitchatProbe: DialectProbe {
    /// What tester units are, for format-aware fuzzing over the air.
    public var unitFormat: FormatID? { "bitchat.packet" }
    /// bitchat's sequence is the sender's clock (BITCHAT-R4): the probe picks it.
    public var acceptsChosenSequence: Bool { false }

    public let dialect = DialectName.bitchat
    public private(set) var dutAddress = NodeAddress(bytes: BitchatProbe.fixedID(prefix: 0xDD, 0))
    static let testers = 1...8
    static let strangers = 1...9
    /// The DUT's clock at the session's start, in seconds since 1970 (setting `epoch`).
    public static let epochSeconds: UInt64 = 1_750_000_000
    /// This session's: `epochSeconds`, or the wall clock at setup for a DUT on the real date.
    public private(set) var epochMs: UInt64 = BitchatProbe.epochSeconds * 1000
    private var lastTimestamp: UInt64 = 0
    private var random = SeededRandom(seed: 0)
    /// The check's six bytes in the testers' and strangers' ids.
    private var checkTag = [UInt8](repeating: 0, count: 6)

    public init() {}

    /// bitchat relays broadcasts (BITCHAT-R6), so the neutral checks use them.
    public var relayedDestination: Party? { nil }

    public func setup(capabilities: Capabilities, seed: UInt64, identifiers: RunIdentifiers) throws -> DUTSetup {
        if let declared = capabilities.address {
            guard let uuid = UUID(uuidString: declared) else { throw TesterError("capabilities address \"\(declared)\" is not a UUID") }
            // BITCHAT-R1: the peer id is the first 8 bytes of a longer address.
            dutAddress = NodeAddress(bytes: Array(NodeAddress(uuid).bytes.prefix(BitchatPacket.idSize)))
        } else {
            dutAddress = NodeAddress(bytes: Self.fixedID(prefix: 0xDD, 0))
        }
        // Apart from the DUT's seed, so fragment ids never collide with the DUT's own.
        random = SeededRandom(seed: identifiers.value("bitchat.fragment"))
        checkTag = identifiers.tag(6)
        lastTimestamp = 0
        epochMs = capabilities.takesEpoch ? Self.epochSeconds * 1000 : UInt64(Date().timeIntervalSince1970 * 1000)
        return DUTSetup(dialect: .bitchat, address: dutAddress, settings: ["epoch": String(Self.epochSeconds)], seed: seed)
    }

    public func adopt(dutAddress address: NodeAddress) { dutAddress = NodeAddress(bytes: Array(address.bytes.prefix(BitchatPacket.idSize))) }

    public func address(of party: Party) -> NodeAddress {
        switch party {
        case .dut: dutAddress
        case .tester(let n): NodeAddress(bytes: [0x7E] + checkTag + [UInt8(truncatingIfNeeded: n)])
        case .stranger(let n): NodeAddress(bytes: [0x5E] + checkTag + [UInt8(truncatingIfNeeded: n)])
        }
    }

    static func fixedID(prefix: UInt8, _ n: Int) -> [UInt8] { [prefix, 0, 0, 0, 0, 0, 0, UInt8(truncatingIfNeeded: n)] }

    /// The DUT's clock `at` into its session, in milliseconds since 1970.
    public func clock(at time: Duration) -> UInt64 {
        epochMs + UInt64(max(0, time.components.seconds)) * 1000 + UInt64(max(0, time.components.attoseconds / 1_000_000_000_000_000))
    }

    // MARK: building

    public func message(_ spec: MessageSpec) throws -> ProbeMessage { try message(spec, at: .zero) }

    /// A `message` packet (BITCHAT-R2), version 1, broadcast when `destination` is nil; its
    /// timestamp is the DUT's clock now, strictly increasing so no two share a dedup key.
    public func message(_ spec: MessageSpec, at time: Duration) throws -> ProbeMessage {
        let ttl = spec.ttl ?? DialectParameters.of(.bitchat).defaultTTL
        guard (0...255).contains(ttl) else { throw TesterError("bitchat ttl \(ttl) does not fit a byte") }
        let timestamp = spec.sequence ?? max(clock(at: time), lastTimestamp + 1)
        lastTimestamp = max(lastTimestamp, timestamp)
        let packet = BitchatPacket(type: BitchatMessageType.message.rawValue, ttl: UInt8(ttl), timestamp: timestamp,
                                   senderID: address(of: spec.origin).bytes, recipientID: spec.destination.map { address(of: $0).bytes },
                                   payload: spec.payload)
        return Self.probeMessage(packet)
    }

    static func probeMessage(_ packet: BitchatPacket) -> ProbeMessage {
        ProbeMessage(key: packet.dedupKey, ackID: "", origin: NodeAddress(bytes: packet.senderID),
                     destination: packet.recipientID.map { NodeAddress(bytes: $0) }, ttl: Int(packet.ttl),
                     sequence: packet.timestamp, body: packet.payload, payload: packet.payload, value: .bitchat(packet))
    }

    /// The packet a message carries.
    public func packet(of message: ProbeMessage) -> BitchatPacket {
        guard case .bitchat(let packet) = message.value else { preconditionFailure("not a bitchat message") }
        return packet
    }

    /// The same packet changed by `edit` (another TTL, padding, flags): the same message.
    public func edited(_ message: ProbeMessage, _ edit: (inout BitchatPacket) -> Void) -> ProbeMessage {
        var packet = packet(of: message)
        edit(&packet)
        return Self.probeMessage(packet)
    }

    /// The packet whole, or as fragments when it is over one characteristic value (BITCHAT-R7).
    public func units(of message: ProbeMessage, via tester: Int) -> [[UInt8]] {
        let whole = packet(of: message).encoded()
        guard whole.count > BitchatProbe.maxUnit else { return [whole] }
        return fragments(of: message).map { $0.encoded() }
    }

    /// BITCHAT-G3: the largest value a node writes.
    static let maxUnit = 512
    /// BITCHAT-R7: data bytes per fragment.
    public static let fragmentChunk = 469

    /// The fragment packets that carry `message` (BITCHAT-R7): one fresh fragment id, slices
    /// of `chunk` bytes, the frame's type as `originalType` unless `claiming` says otherwise,
    /// and the frame's sender, recipient, timestamp and TTL.
    public func fragments(of message: ProbeMessage, fragmentID: [UInt8]? = nil, chunk: Int = BitchatProbe.fragmentChunk,
                          claiming originalType: UInt8? = nil) -> [BitchatPacket] {
        let frame = packet(of: message)
        let id = fragmentID ?? random.bytes(8)
        let pieces = BitchatFragment.split(frame.encoded(), fragmentID: id, originalType: originalType ?? frame.type, chunkSize: chunk) ?? []
        return pieces.map { fragmentPacket(of: frame, $0) }
    }

    /// A fragment packet for `frame`: its sender, recipient, timestamp and TTL around `fragment`.
    public func fragmentPacket(of frame: BitchatPacket, _ fragment: BitchatFragment) -> BitchatPacket {
        BitchatPacket(type: BitchatMessageType.fragment.rawValue, ttl: frame.ttl, timestamp: frame.timestamp,
                      senderID: frame.senderID, recipientID: frame.recipientID, payload: fragment.encoded())
    }

    // MARK: hearing

    public func hear(_ bytes: [UInt8], on link: LinkID) -> HeardPacket? {
        do {
            let packet = try BitchatPacket(decoding: bytes[...])
            return .message(HeardMessage(key: packet.dedupKey, origin: NodeAddress(bytes: packet.senderID),
                                         destination: packet.recipientID.map { NodeAddress(bytes: $0) }, ttl: Int(packet.ttl),
                                         body: packet.payload, hopPath: nil, value: .bitchat(packet)))
        } catch {
            return .malformed(error)
        }
    }

    /// BITCHAT-W7 for bytes after the frame that are not one pad, W6 and W5 for compression,
    /// W1 for the rest of the packet's layout.
    public func wireRule(for error: WireError) -> String {
        switch error.code {
        case .trailingBytes: "BITCHAT-W7"
        case .badCompression: "BITCHAT-W6"
        case .ratioTooHigh: "BITCHAT-W5"
        default: "BITCHAT-W1"
        }
    }

    /// The page's differences table, rows 5, 14, 15 and 17: where a FAIL is the page's strictness.
    public func stricterThanApps(_ checkID: String) -> String? {
        switch checkID {
        case "RLY/BV-04":
            "BITCHAT-R5 is stricter than bitchat Android, which relays a TTL-1 packet with TTL 0: PacketRelayManager.kt:59-62@09b481f1 (bitchat.md section 7 row 14)"
        case "RLY/BV-17":
            "BITCHAT-R5 is stricter than bitchat Android, which has no TTL cap: PacketRelayManager.kt:64-70@09b481f1 (bitchat.md section 7 row 15)"
        case "RLY/BV-23":
            "BITCHAT-R4 is stricter than bitchat Android, which judges only announces by age: AnnouncementIdentityValidator.kt:11, 21-22@09b481f1 (bitchat.md section 7 row 17)"
        case "DDP/BV-12":
            "BITCHAT-R3 is stricter than bitchat iOS, which exempts fragments from de-duplication: BLEFragmentAssemblyBuffer.swift:110-112@9b84b361 (bitchat.md section 7 row 5)"
        default: nil
        }
    }

    public func describe(_ bytes: [UInt8]) -> String {
        let packet: BitchatPacket
        do { packet = try BitchatPacket(decoding: bytes[...]) } catch {
            return "undecodable (\(error.code.rawValue)) \(bytes.count)B: \(Hex.encode(Array(bytes.prefix(24))))\(bytes.count > 24 ? "..." : "")"
        }
        let type = packet.messageType.map { "\($0)" } ?? "type 0x\(Hex.encode([packet.type]))"
        let to = packet.recipientID.map { "->\(name($0))" } ?? " broadcast"
        var line = "v\(packet.version) \(type) from \(name(packet.senderID))\(to) ttl \(packet.ttl) ts \(packet.timestamp) flags 0x\(Hex.encode([packet.flags.rawValue]))"
        if packet.type == BitchatMessageType.fragment.rawValue, let f = try? BitchatFragment(decoding: packet.payload[...]) {
            line += " fragment \(Hex.encode(f.fragmentID)) \(f.index)/\(f.total) of type 0x\(Hex.encode([f.originalType])) \(f.data.count)B"
        } else {
            line += " \(packet.payload.count)B"
        }
        return line + (packet.padding > 0 ? " +\(packet.padding) pad" : "") + " (\(bytes.count)B)"
    }

    /// DUT, T1, S2 ... for the evidence; other ids in hex.
    func name(_ id: [UInt8]) -> String {
        if id == dutAddress.bytes { return "DUT" }
        if id.count == 8, Array(id[1..<7]) == checkTag {
            if id[0] == 0x7E, Self.testers.contains(Int(id[7])) { return "T\(id[7])" }
            if id[0] == 0x5E, Self.strangers.contains(Int(id[7])) { return "S\(id[7])" }
        }
        return Hex.encode(id)
    }
}
