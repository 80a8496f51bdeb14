import MeshNode
import MeshWire

/// A copy of a message the tester sent, seen leaving the DUT: decoded, or a unit the tester
/// cannot decode that its bytes tie to the message. Undecodable output is still output: the
/// rules about where, how often and whether a DUT relays count both (docs/checks.md,
/// "Verdicts").
public struct Sighting: Sendable {
    public var link: LinkID
    public var time: Duration
    /// Why the tester could not decode the unit; nil for a decoded copy.
    public var undecodable: WireError?
    public var bytes: [UInt8]

    /// "relayed on L2 at 31 ms", "relayed (undecodable: trailingBytes) on L2 at 31 ms".
    public var line: String {
        let form = undecodable.map { " (undecodable: \($0.code.rawValue))" } ?? ""
        return "relayed\(form) on \(link) at \(CheckContext.ms(time))"
    }
}

extension CheckContext {
    /// Every copy of `message` the DUT sent, decoded or not, in time order. An undecodable unit
    /// counts when its bytes resemble a unit the tester sent for `message` (at most an eighth
    /// of their common bytes differ: the TTL, a flag, a rewritten field) more closely than any
    /// unit of another message of the check; what the DUT adds after the frame (padding, junk)
    /// does not count against it.
    public func sightings(of message: ProbeMessage, in observations: [Observation]) -> [Sighting] {
        sightings(ofKey: message.key, in: observations)
    }

    /// The copies of the message whose de-duplication key is `key`, as `sightings(of:in:)`.
    public func sightings(ofKey key: String, in observations: [Observation]) -> [Sighting] {
        observations.compactMap { o in
            guard let link = o.link else { return nil }
            if let m = o.message, m.key == key { return Sighting(link: link, time: o.time, bytes: o.bytes ?? []) }
            guard case .malformed(let error)? = o.packet, let bytes = o.bytes, matchedMessage(bytes) == key else { return nil }
            judgedUndecodable = true
            return Sighting(link: link, time: o.time, undecodable: error, bytes: bytes)
        }
    }

    /// The key of the message whose units `unit` most resembles, when one does and no other
    /// message's as closely (a tie ties the unit to nothing).
    func matchedMessage(_ unit: [UInt8]) -> String? {
        var best: (key: String, distance: Int)?
        var tied = false
        for sent in sentUnits {
            for candidate in sent.units {
                guard let d = Self.distance(unit, candidate, below: best.map { $0.distance + 1 } ?? .max) else { continue }
                if best == nil || d < best!.distance {
                    best = (sent.key, d)
                    tied = false
                } else if sent.key != best!.key {
                    tied = true
                }
            }
        }
        return tied ? nil : best?.key
    }

    /// "trailingBytes 3, truncated 1": how many units failed with each code, the counts left out
    /// when `codes` are only the first of more.
    static func tally(_ codes: [String], complete: Bool = true) -> String {
        Dictionary(grouping: codes, by: { $0 }).map { complete ? "\($0.key) \($0.value.count)" : $0.key }.sorted().joined(separator: ", ")
    }

    /// A unit's bytes for a reason: the first 96 in hex.
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.count > 96 ? Hex.encode(Array(bytes.prefix(96))) + "..." : Hex.encode(bytes)
    }

    /// Bytes that differ between `unit` and `sent` over their common length, when that length
    /// covers at least half of `sent` (and 16 bytes) and at most an eighth of it differs, and
    /// fewer than `limit` do; else nil.
    static func distance(_ unit: [UInt8], _ sent: [UInt8], below limit: Int = .max) -> Int? {
        let n = min(unit.count, sent.count)
        guard n >= 16, n * 2 >= sent.count else { return nil }
        let most = min(n / 8, limit - 1)
        var differing = 0
        for i in 0..<n where unit[i] != sent[i] {
            differing += 1
            if differing > most { return nil }
        }
        return differing
    }

    /// A check about a relay's content reads it: a copy of `message` the tester cannot decode
    /// FAILs the wire rule it breaks, with its bytes, rather than reading as "not relayed".
    public func expectReadable(_ message: ProbeMessage, in observations: [Observation]) throws {
        try expectReadable(key: message.key, in: observations)
    }

    /// `expectReadable(_:in:)` for the message whose de-duplication key is `key`.
    public func expectReadable(key: String, in observations: [Observation]) throws {
        let unread = sightings(ofKey: key, in: observations).filter { $0.undecodable != nil }
        guard let first = unread.first, let error = first.undecodable else { return }
        let rule = probe.wireRule(for: error)
        let shown = Self.hex(first.bytes)
        throw CheckFailed(reason: "relayed, but a decoder of the page refuses the relay (\(error.code.rawValue)): it breaks \(rule)",
                          expected: "relays that decode as \(rule) says",
                          seen: "\(unread.map(\.line).joined(separator: ", ")): \(error.detail); \(first.bytes.count) bytes \(shown)",
                          rule: rule, finding: .undecodableOutput)
    }
}
