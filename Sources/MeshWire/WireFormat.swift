/// A format id `<dialect>.<format>`, as used by vectors, the CLI and the fuzzer.
public typealias FormatID = String

/// A wire format: a value that is read from bytes and written back to the same bytes.
///
/// `init(decoding:)` and `encoded()` mirror each other: for every canonical encoding `b`,
/// `try T(decoding: b).encoded() == b`, and for every value `v`, `try T(decoding: v.encoded()) == v`.
public protocol WireFormat: Hashable, Sendable {
    static var formatID: FormatID { get }
    /// `borrowing`: the caller keeps ownership of its input, so a call costs no retain of it
    /// (a decoder whose value keeps a slice of the input retains that slice itself).
    init(decoding bytes: borrowing ArraySlice<UInt8>) throws(WireError)
    func encoded() -> [UInt8]
}

/// A value with a dialect-neutral JSON form: what `meshconform decode` prints, what `encode`
/// reads, and what a vector's `decoded` holds (conventions in docs/vectors.md).
public protocol NeutralForm {
    init(neutral: JSONValue) throws(WireError)
    var neutral: JSONValue { get }
}

extension WireFormat {
    public init(decoding bytes: [UInt8]) throws(WireError) {
        try self.init(decoding: bytes[...])
    }
}
