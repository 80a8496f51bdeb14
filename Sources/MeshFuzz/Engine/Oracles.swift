import MeshWire

/// A broken promise other than a crash or a hang, found in-process (DESIGN.md section 8).
public struct OracleFailure: Sendable, Hashable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// The worker died on a signal or a trap.
        case crash
        /// The decoder did not return within the per-input time limit.
        case hang
        /// More memory than the worker's address-space bound, or a decoded value far larger than its input.
        case allocation
        /// decode(encode(decode(x))) differs from decode(x), or encode refused a decoded value.
        case roundTrip = "round-trip"
        /// Two decoders of the same bytes disagree.
        case differential
    }

    public var kind: Kind
    public var detail: String

    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }
}

/// The oracles that run in the decoder's own process, after each execution that returned.
/// Crash and hang are judged from outside by the supervisor (`Supervisor`), allocation partly
/// here (the decoded value's size) and partly there (the worker's address-space bound).
public enum Oracles {
    /// A decoded value may hold at most this many bytes per input byte, plus `allocationSlack`:
    /// hex doubles a body and JSON adds framing, nothing legitimate comes near 64.
    public static let allocationFactor = 64
    public static let allocationSlack = 4096

    /// Every oracle failure `outcome` shows for `input`, cheapest first; empty when all hold.
    public static func judge(_ target: FuzzTarget, input: [UInt8], outcome: Outcome) -> OracleFailure? {
        guard case .decoded(let value) = outcome else { return nil }
        let size = value.estimatedBytes
        if size > allocationFactor * input.count + allocationSlack {
            return OracleFailure(.allocation, "decoded value of about \(size) bytes from \(input.count) input bytes")
        }
        if let encode = target.encode {
            let again: [UInt8]
            do { again = try encode(value) } catch {
                // Escaping may make the canonical form longer than a size limit the input
                // respected (Foundation writes `/` as `\/`): refusing that is allowed.
                if error.code != .tooLarge { return OracleFailure(.roundTrip, "encode refused the decoded value: \(error)") }
                return nil
            }
            do {
                let back = try target.decode(again)
                if !back.isEquivalent(to: value) {
                    return OracleFailure(.roundTrip, "decode(encode(v)) differs from v; re-encoded \(Hex.encode(again.prefix(64)))")
                }
            } catch {
                return OracleFailure(.roundTrip, "the re-encoded value does not decode: \(error)")
            }
        }
        for differential in target.differentials {
            if let disagreement = differential.check(input, value) {
                return OracleFailure(.differential, "\(differential.name): \(disagreement)")
            }
        }
        return nil
    }
}

extension JSONValue {
    /// About how many bytes this value holds: text and 16 per node. Cheap and allocation-free.
    public var estimatedBytes: Int {
        switch self {
        case .null, .bool: 16
        case .number(let text), .string(let text): 16 + text.utf8.count
        case .array(let items): items.reduce(16) { $0 + $1.estimatedBytes }
        case .object(let object): object.members.reduce(16) { $0 + 16 + $1.key.utf8.count + $1.value.estimatedBytes }
        }
    }
}
