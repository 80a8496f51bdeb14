/// Why a decoder refused its input.
///
/// The `code` is the stable part: golden vectors, `meshconform decode`, fuzz reports and
/// external decoders under `meshconform vectors --exec` all name errors by it, so a code is
/// never renamed. `detail` is for humans and may change.
public struct WireError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Hashable, Sendable, CaseIterable, Codable {
        /// The input ends before a field it must contain (includes empty input).
        case truncated
        /// A length field disagrees with the bytes it describes, or a fixed-size field has another size.
        case lengthMismatch
        /// Bytes remain after a complete value where the format allows none.
        case trailingBytes
        /// A type byte, marker or type string that the format does not define.
        case unknownType
        /// Not well-formed JSON (RFC 8259), or not valid UTF-8.
        case badJSON
        /// JSON nested deeper than any message of the dialect needs.
        case tooDeep
        /// A JSON object names the same key twice.
        case duplicateKey
        /// A required field is absent.
        case missingField
        /// A field holds a JSON value of the wrong kind (string for number, null for a required field, 1.5 for an integer, ...).
        case wrongType
        /// An integer outside the range of its field (negative count, above UInt64.max, ...).
        case valueOutOfRange
        /// A TTL or hop field outside 0...255.
        case ttlOutOfRange
        /// Text that is not a UUID in 8-4-4-4-12 hex form.
        case badUUID
        /// Text that is not standard padded base64.
        case badBase64
        /// A date that is not in the message's date convention.
        case badDate
        /// A chunk index not below its chunk total, or a total of zero or above the cap.
        case chunkIndexOutOfRange
        /// Input larger than the format's stated maximum.
        case tooLarge
        /// An AEAD tag that does not verify: tampered ciphertext or tag, or the wrong key.
        case authenticationFailed
        /// Key material of the wrong size or not a valid point.
        case badKey
        /// Entries that must be in strictly ascending key order (peat counters and acks) are not.
        case outOfOrder
        /// A known marker where the layout does not allow it: a peat section repeated or out of
        /// order, or a document whose first byte is one of the frame markers 0xAE...0xB2.
        case misplacedMarker
        /// A BLE device name that does not follow the dialect's naming rule (peat `PEAT_<mesh>-<%08X>`).
        case badName
        /// A compressed payload that is not a complete raw DEFLATE or zlib stream, or that
        /// inflates to a size other than the original size it declares.
        case badCompression
        /// A declared original size more than the format allows per compressed byte (bitchat: 50 000).
        case ratioTooHigh
    }

    public var code: Code
    public var detail: String

    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    public var description: String { detail.isEmpty ? code.rawValue : "\(code.rawValue): \(detail)" }

    public static func truncated(need: Int, have: Int, at offset: Int) -> WireError {
        WireError(.truncated, "need \(need) byte(s) at offset \(offset), have \(have)")
    }
}
