import MeshWire

/// Every decoder the fuzzers know: each dialect format of `FormatCatalog.all`, automatically,
/// with what the oracles and mutators know about it. Adding a format is one line: in the
/// catalog (nothing to do here), or one entry in `extra` for a parser outside it (BLE host
/// parsers). `ci/gen-fuzz-targets` makes the libFuzzer executables from this list.
public enum FuzzRegistry {
    public static let all: [FuzzTarget] = FormatCatalog.all.map(target(for:)) + extra

    /// Decoders that are not catalog formats.
    static let extra: [FuzzTarget] = []

    public static func target(_ id: String) -> FuzzTarget? { all.first { $0.id == id } }

    public static var ids: [String] { all.map(\.id) }

    /// What a catalog format needs beyond its codec. Formats not named get the defaults: no
    /// context, no fixed fields (JSON formats are mutated by key), and for JSON formats the
    /// Foundation differential.
    static func target(for codec: FormatCodec) -> FuzzTarget {
        switch codec.id {
        case "relay.packet":
            return FuzzTarget(codec: codec, differentials: [("embedded header", Differentials.relayEmbeddedHeader)],
                              layout: [BinaryField(offset: 0, width: 1, role: .type), BinaryField(offset: 1, width: 2, role: .length)],
                              dictionary: [[0x46], [0x61], [0x42]])
        case "relay.ack":
            return FuzzTarget(codec: codec, layout: [BinaryField(offset: 0, width: 8, role: .index)])
        case "relay.sealed":
            // One fixed key pair from the vectors: mutated ciphertexts fail authentication,
            // but nonce, length and tag handling are all reached.
            return FuzzTarget(codec: codec, context: sealedContext, layout: [BinaryField(offset: 0, width: 12, role: .type)])
        case _ where jsonFormats.contains(codec.id) || jsonDialects.contains(codec.dialect):
            return FuzzTarget(codec: codec, differentials: [("Foundation JSONSerialization", Differentials.foundationJSON)])
        default:
            return FuzzTarget(codec: codec)   // binary or text: Foundation's JSON parser has no opinion
        }
    }

    /// Formats whose bytes are one JSON text, where Foundation's parser is a second opinion.
    static let jsonDialects: Set<String> = ["blemesh", "camp", "simple"]
    static let jsonFormats: Set<FormatID> = ["relay.frame-header", "relay.beacon"]

    static let sealedContext: JSONValue = .object([
        ("peerPublicKey", .string("f912aad93f10a1699fb878bb2c786034786a046fca9d83fdc3a93c4e8bfe290d")),
        ("privateKey", .string("cef64fd77a8cff1e97fdbc2bbffd278b2e494f74561c324bbb77d86df1e723a4")),
    ])
}
