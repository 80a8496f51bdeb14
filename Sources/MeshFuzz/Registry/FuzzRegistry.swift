import BLEHost
import MeshWire

/// Every decoder the fuzzers know: each dialect format of `FormatCatalog.all`, automatically,
/// with what the oracles and mutators know about it. Adding a format is one line: in the
/// catalog (nothing to do here), or one entry in `extra` for a parser outside it (BLE host
/// parsers). `ci/gen-fuzz-targets` makes the libFuzzer executables from this list.
public enum FuzzRegistry {
    public static let all: [FuzzTarget] = FormatCatalog.all.map(target(for:)) + extra

    /// Decoders that are not catalog formats: the BLE host's parsers of controller and peer bytes.
    static let extra: [FuzzTarget] = HostParsers.all.map(FuzzTarget.init(host:))

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
        case "peat.encrypted":
            // The mesh key of the vectors (mesh DEMO): mutants of the sealed seeds are opened,
            // so the fuzzer reaches authentication and the plaintext, not only the split.
            return FuzzTarget(codec: codec, context: peatMeshContext,
                              layout: [BinaryField(offset: 0, width: 1, role: .type), BinaryField(offset: 1, width: 1, role: .flags)])
        case "peat.peer-e2ee":
            // Node B's key pair from the vectors (A to B): the session key is agreed per decode.
            return FuzzTarget(codec: codec, context: peatPeerContext,
                              layout: [BinaryField(offset: 0, width: 1, role: .type), BinaryField(offset: 1, width: 1, role: .flags),
                                       BinaryField(offset: 10, width: 8, bigEndian: false, role: .index)])
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

    /// The key contexts of the valid peat vectors (`Vectors/peat.encrypted.json` tcId 1,
    /// `Vectors/peat.peer-e2ee.json` tcId 1); RegistryTests checks they still match.
    static let peatMeshContext: JSONValue = .object([
        ("meshId", .string("DEMO")),
        ("secret", .string("b3f61cc44ce0d6f1b2a284bff8d4a61cf575c05fb172d5cb511d1cf73c70de7d")),
    ])
    static let peatPeerContext: JSONValue = .object([
        ("peerPublicKey", .string("b6fab2fe14622a66dd1245b90d7d767c0c8530428a39d69800f902ba910a9c49")),
        ("privateKey", .string("1f40bc10abee1558093a6fcf3b9ca4f889c069f0b1265e2445cd2dfbebd09ae1")),
    ])
}
