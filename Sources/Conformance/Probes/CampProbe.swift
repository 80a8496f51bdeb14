import Foundation
import MeshNode
import MeshWire

/// The tester's side of the `camp` dialect (docs/dialects/camp.md): user ids for the DUT, the
/// testers and the strangers beyond them, BLEMessages, and delivery confirmations read as acks.
///
/// User ids are UUID texts (CAMP-R1 allows any string), so a process DUT can be told its own
/// in the `start` frame (setting `userID`) and a report reads without a legend. The testers'
/// and strangers' carry five bytes of the check's number (`cccccccccc`, RunIdentifiers.tag),
/// so a DUT that keeps retries and confirmations per peer meets new peers in every check:
///
/// | party | user id |
/// |---|---|
/// | DUT | `CA000000-0000-4000-8000-000000000000` (or `address` from the capabilities file, any string) |
/// | tester n (1...8) | `7E000000-0000-4000-8000-ccccccccccnn` (nn = n in hex) |
/// | stranger n (1...9) | `5E000000-0000-4000-8000-ccccccccccnn` |
///
/// BLEMessage has no TTL and no sequence number (CAMP-R3): a check asking for either is NA.
/// A ProbeMessage's `body` is the whole value as written, since a relay must carry it byte for
/// byte (CAMP-R4); its `key` and `ackID` are the message `id`.
public final class CampProbe: DialectProbe {
    /// camp messages have no sequence number (camp.md 2.1).
    public var acceptsChosenSequence: Bool { false }

    public let dialect = DialectName.camp
    public private(set) var dutAddress = NodeAddress(CampProbe.dutID)
    static let dutID = UUID(uuidString: "CA000000-0000-4000-8000-000000000000")!
    /// The `timestamp` of everything the testers send (seconds since 2001-01-01): camp.md's example.
    static let timestamp = 767_923_200.0

    private var random = SeededRandom(seed: 0)
    private var checkTag = [UInt8](repeating: 0, count: 5)

    public init() {}

    /// camp relays broadcasts (CAMP-R4) and never confirms them (CAMP-R5): the neutral checks use them.
    public var unitFormat: FormatID? { CampMessage.formatID }

    public var relayedDestination: Party? { nil }

    public func setup(capabilities: Capabilities, seed: UInt64, identifiers: RunIdentifiers) throws -> DUTSetup {
        dutAddress = capabilities.address.map { NodeAddress(campUserID: $0) } ?? NodeAddress(Self.dutID)
        // Not the DUT's own seed: the reference node draws its ids from that one.
        random = SeededRandom(seed: identifiers.value("camp.ids"))
        checkTag = identifiers.tag(5)
        return DUTSetup(dialect: .camp, address: dutAddress, settings: ["userID": dutAddress.campUserID, "name": "meshconform DUT"], seed: seed)
    }

    public func adopt(dutAddress address: NodeAddress) { dutAddress = address }

    public func address(of party: Party) -> NodeAddress {
        switch party {
        case .dut: dutAddress
        case .tester(let n): NodeAddress(BLEMeshProbe.partyID(prefix: 0x7E, checkTag, n))
        case .stranger(let n): NodeAddress(BLEMeshProbe.partyID(prefix: 0x5E, checkTag, n))
        }
    }

    public func userID(_ party: Party) -> String { address(of: party).campUserID }

    /// A fresh message id from the check's seed.
    public func newID() -> String { random.uuid().uuidString }

    // MARK: building

    public func message(_ spec: MessageSpec) throws -> ProbeMessage {
        guard spec.ttl == nil else { throw CheckNotApplicable("camp messages have no TTL (camp.md CAMP-R3)") }
        guard spec.sequence == nil else { throw CheckNotApplicable("camp messages have no sequence number (camp.md 2.1)") }
        guard let content = String(validating: spec.payload, as: UTF8.self) else {
            throw CheckNotApplicable("camp content is text; the payload is not UTF-8")
        }
        return probeMessage(CampMessage(id: newID(), senderID: userID(spec.origin), senderName: spec.origin.displayName,
                                        recipientID: spec.destination.map(userID) ?? CampMessage.broadcast,
                                        kind: .text, content: content, timestamp: Self.timestamp))
    }

    /// The delivery confirmation `by` sends for `message` (CAMP-R5): a new message addressed to its sender.
    public func confirmation(of messageID: String, to recipient: Party, by sender: Party) -> ProbeMessage {
        probeMessage(CampMessage(id: newID(), senderID: userID(sender), senderName: sender.displayName, recipientID: userID(recipient),
                                 kind: .deliveryConfirmation, content: messageID, timestamp: Self.timestamp))
    }

    /// `message` written as other bytes: the value is the same, so only the bytes of a relay differ.
    public func rewritten(_ message: ProbeMessage, as bytes: [UInt8]) -> ProbeMessage {
        var copy = message
        copy.body = bytes
        return copy
    }

    func probeMessage(_ m: CampMessage) -> ProbeMessage {
        ProbeMessage(key: m.id, ackID: m.id, origin: NodeAddress(campUserID: m.senderID),
                     destination: m.isBroadcast ? nil : NodeAddress(campUserID: m.recipientID), ttl: 0, sequence: 0,
                     body: m.encoded(), payload: Array(m.content.utf8), value: .camp(m))
    }

    public func units(of message: ProbeMessage, via tester: Int) -> [[UInt8]] { [message.body] }

    // MARK: hearing

    public func hear(_ bytes: [UInt8], on link: LinkID) -> HeardPacket? {
        let m: CampMessage
        do { m = try CampMessage(decoding: bytes[...]) } catch {
            // A message whose only fault is an id that is not a UUID (CAMP-W1) is still a
            // message: a DUT that relays one must be seen relaying it (camp.md section 6, row 6).
            guard error.code == .badUUID, let lax = try? CampMessage(decoding: bytes[...], anyID: true) else { return .malformed(error) }
            m = lax
        }
        if m.kind == .deliveryConfirmation {
            return .ack(ackID: m.content, destination: NodeAddress(campUserID: m.recipientID), value: .camp(m))
        }
        return .message(HeardMessage(key: m.id, origin: NodeAddress(campUserID: m.senderID),
                                     destination: m.isBroadcast ? nil : NodeAddress(campUserID: m.recipientID),
                                     ttl: 0, body: bytes, hopPath: nil, value: .camp(m)))
    }

    public func describe(_ bytes: [UInt8]) -> String {
        let m: CampMessage
        do { m = try CampMessage(decoding: bytes[...]) } catch {
            return "undecodable (\(error.code.rawValue)) \(bytes.count)B: \(String(decoding: bytes.prefix(48), as: UTF8.self).debugDescription)"
        }
        let to = m.isBroadcast ? "broadcast" : label(m.recipientID)
        let what = m.kind == .deliveryConfirmation ? "confirms \(m.content)" : "content \(m.content.utf8.count)B"
        return "\(m.kind.rawValue) id=\(m.id) from=\(label(m.senderID)) to=\(to) \(what), \(bytes.count)B"
    }

    /// DUT, T1, S2 ... for the evidence; other ids in full.
    private func label(_ user: String) -> String {
        if user == dutAddress.campUserID { return "DUT" }
        for n in 1...8 where userID(.tester(n)) == user { return "T\(n)" }
        for n in 1...9 where userID(.stranger(n)) == user { return "S\(n)" }
        return user
    }
}
