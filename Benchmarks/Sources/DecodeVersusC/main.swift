import CDecoders
import Foundation
import MeshVectors
import MeshWire

// meshconform's decoders of the four binary formats against plain C decoders written from the
// dialect pages (Benchmarks/Sources/CDecoders), in one run on the same inputs:
// 1. agreement: both decode every vector of Vectors/<format>.json, and must accept the same
//    ones with the same fields and refuse the others with the same error code;
// 2. speed: decodes per second over the valid vectors, the two alternating round by round.
//
//   swift build -c release --package-path Benchmarks
//   Benchmarks/.build/release/DecodeVersusC [--seconds S] [--vectors DIR]    # from the repository root
//
// Exit status 1 when the decoders disagree on any vector.

let arguments = CommandLine.arguments
func option(_ name: String) -> String? { arguments.firstIndex(of: name).map { arguments[$0 + 1] } }
let seconds = Double(option("--seconds") ?? "1.5")!
let vectorDir = option("--vectors") ?? "Vectors"

/// One format: the C decoder's result (its code and, when accepted, the differences between its
/// fields and the Swift value's), and the Swift decoder.
struct Format {
    var id: FormatID
    var c: cd_format
    /// One pass over the inputs; the count of accepted ones.
    var swift: ([ArraySlice<UInt8>]) -> Int
    /// nil: Swift accepts; else its error code.
    var swiftCode: ([UInt8]) -> String?
    /// C's error code name ("" when accepted) and, when both accept, the fields that differ.
    var compare: ([UInt8]) -> (code: String, differences: [String])
}

func swiftCode<T: WireFormat>(_ type: T.Type) -> ([UInt8]) -> String? {
    { bytes in
        do throws(WireError) {
            _ = try T(decoding: bytes[...])
            return nil
        } catch {
            return error.code.rawValue
        }
    }
}

func bytes(_ p: UnsafePointer<UInt8>?, _ n: Int) -> [UInt8]? { p.map { Array(UnsafeBufferPointer(start: $0, count: n)) } }

/// Field-by-field differences, named.
struct Differences {
    var list: [String] = []
    mutating func check<V: Equatable>(_ name: String, _ c: V, _ swift: V) {
        if c != swift { list.append("\(name): C \(c), meshconform \(swift)") }
    }
}

func comparePacket(_ input: [UInt8]) -> (code: String, differences: [String]) {
    var p = cd_bitchat_packet()
    let rc = input.withUnsafeBufferPointer { cd_bitchat_packet_decode($0.baseAddress, $0.count, &p) }
    defer { cd_bitchat_packet_free(&p) }
    let code = String(cString: cd_code_name(rc))
    guard rc == 0, let s = try? BitchatPacket(decoding: input) else { return (code, []) }
    var d = Differences()
    d.check("version", p.version, s.version)
    d.check("type", p.type, s.type)
    d.check("ttl", p.ttl, s.ttl)
    d.check("timestamp", p.timestamp, s.timestamp)
    d.check("flags", p.flags, s.flags.rawValue)
    d.check("senderID", bytes(p.sender, 8), s.senderID)
    d.check("recipientID", bytes(p.recipient, 8), s.recipientID)
    d.check("route", bytes(p.route, 8 * Int(p.route_count)), s.route.map { $0.flatMap { $0 } })
    d.check("payload", bytes(p.payload, p.payload_length) ?? [], s.payload)
    d.check("compression", p.compressed == 0 ? nil : p.compressed == 1 ? "deflate" : "zlib", s.compression?.format.rawValue)
    d.check("compressed data", bytes(p.compressed_data, p.compressed_length), s.compression?.data)
    d.check("signature", bytes(p.signature, 64), s.signature)
    d.check("padding", Int(p.padding), s.padding)
    return (code, d.list)
}

func compareFragment(_ input: [UInt8]) -> (code: String, differences: [String]) {
    var f = cd_bitchat_fragment()
    let rc = input.withUnsafeBufferPointer { cd_bitchat_fragment_decode($0.baseAddress, $0.count, &f) }
    let code = String(cString: cd_code_name(rc))
    guard rc == 0, let s = try? BitchatFragment(decoding: input) else { return (code, []) }
    var d = Differences()
    d.check("fragmentID", bytes(f.fragment_id, 8), s.fragmentID)
    d.check("index", Int(f.index), s.index)
    d.check("total", Int(f.total), s.total)
    d.check("originalType", f.original_type, s.originalType)
    d.check("data", bytes(f.data, f.data_length), s.data)
    return (code, d.list)
}

func le(_ b: [UInt8], _ at: Int, _ width: Int) -> UInt64 {
    (0..<width).reversed().reduce(0) { $0 << 8 | UInt64(b[at + $1]) }
}

func compareDocument(_ input: [UInt8]) -> (code: String, differences: [String]) {
    var doc = cd_peat_document()
    let rc = input.withUnsafeBufferPointer { cd_peat_document_decode($0.baseAddress, $0.count, &doc) }
    let code = String(cString: cd_code_name(rc))
    guard rc == 0, let s = try? PeatDocument(decoding: input) else { return (code, []) }
    var d = Differences()
    d.check("version", doc.version, s.version)
    d.check("nodeId", doc.node_id, s.nodeID)
    let raw = bytes(doc.counters, 12 * Int(doc.counter_count)) ?? []
    let counters = (0..<Int(doc.counter_count)).map { "\(le(raw, 12 * $0, 4)):\(le(raw, 12 * $0 + 4, 8))" }
    d.check("counters", counters, s.counters.map { "\($0.node):\($0.count)" })
    d.check("peripheral", doc.has_peripheral != 0, s.peripheral != nil)
    if doc.has_peripheral != 0, let sp = s.peripheral {
        let p = doc.peripheral
        d.check("peripheral.id", p.id, sp.id)
        d.check("peripheral.parent", p.parent, sp.parent)
        d.check("peripheral.type", p.type, sp.kind.rawValue)
        d.check("peripheral.callsign", bytes(p.callsign, p.callsign_length) ?? [], Array(sp.callsign.utf8))
        d.check("peripheral.health", [p.battery, p.activity, p.alerts, p.heart_rate],
                [sp.health.battery, sp.health.activity, sp.health.alerts, sp.health.heartRate ?? 0])
        d.check("peripheral.event", p.has_event != 0 ? "\(p.event_type)@\(p.event_timestamp)" : nil,
                sp.event.map { "\($0.type.rawValue)@\($0.timestamp)" })
        d.check("peripheral.timestamp", p.timestamp, sp.timestamp)
        d.check("peripheral.locationByte", p.location_byte != 0, sp.hasLocationByte)
        d.check("peripheral.location", p.has_location != 0 ? [p.latitude, p.longitude] : nil,
                sp.location.map { [$0.latitude, $0.longitude] })
        d.check("peripheral.altitude", p.has_altitude != 0 ? p.altitude : nil, sp.location?.altitude)
        d.check("peripheral.accuracy", p.has_accuracy != 0 ? p.accuracy : nil, sp.location?.accuracy)
    }
    d.check("emergency", doc.has_emergency != 0, s.emergency != nil)
    if doc.has_emergency != 0, let se = s.emergency {
        let e = doc.emergency
        d.check("emergency.source", e.source, se.source)
        d.check("emergency.timestamp", e.timestamp, se.timestamp)
        let acks = bytes(e.acks, 5 * Int(e.ack_count)) ?? []
        d.check("emergency.acks", (0..<Int(e.ack_count)).map { "\(le(acks, 5 * $0, 4)):\(acks[5 * $0 + 4])" },
                se.acks.map { "\($0.node):\($0.acked ? 1 : 0)" })
    }
    d.check("chat", bytes(doc.chat, doc.chat_length), s.chat)
    d.check("trailer", bytes(doc.trailer, doc.trailer_length) ?? [], s.trailer)
    return (code, d.list)
}

func compareAck(_ input: [UInt8]) -> (code: String, differences: [String]) {
    var seq: UInt64 = 0
    let rc = input.withUnsafeBufferPointer { cd_relay_ack_decode($0.baseAddress, $0.count, &seq) }
    let code = String(cString: cd_code_name(rc))
    guard rc == 0, let s = try? RelayAck(decoding: input) else { return (code, []) }
    var d = Differences()
    d.check("seq", seq, s.seq)
    return (code, d.list)
}

/// One pass of meshconform's decoder over the inputs, the loop specialised for `T` as C's is
/// compiled for its decoder. The decoder borrows each input, as C's gets a pointer and a
/// length; what Swift still adds per call is a retain and a release of the array element
/// around the call, which any Swift caller pays.
func ours<T: WireFormat>(_ type: T.Type) -> ([ArraySlice<UInt8>]) -> Int {
    { inputs in
        var accepted = 0
        for i in inputs.indices {
            do throws(WireError) {
                _ = try T(decoding: inputs[i])
                accepted += 1
            } catch {}
        }
        return accepted
    }
}

let formats = [
    Format(id: "bitchat.packet", c: CD_BITCHAT_PACKET, swift: ours(BitchatPacket.self), swiftCode: swiftCode(BitchatPacket.self), compare: comparePacket),
    Format(id: "bitchat.fragment", c: CD_BITCHAT_FRAGMENT, swift: ours(BitchatFragment.self), swiftCode: swiftCode(BitchatFragment.self), compare: compareFragment),
    Format(id: "peat.document", c: CD_PEAT_DOCUMENT, swift: ours(PeatDocument.self), swiftCode: swiftCode(PeatDocument.self), compare: compareDocument),
    Format(id: "relay.ack", c: CD_RELAY_ACK, swift: ours(RelayAck.self), swiftCode: swiftCode(RelayAck.self), compare: compareAck),
]

// `--profile FORMAT`: only meshconform's decoder of FORMAT in a loop for --seconds, for
// `perf record -g` (no agreement check, no C).
if let profiled = option("--profile") {
    guard let format = formats.first(where: { $0.id == profiled }),
          let file = try? VectorFile(contentsOf: "\(vectorDir)/\(profiled).json") else {
        print("--profile takes one of \(formats.map(\.id).joined(separator: ", ")), run from the repository root")
        exit(2)
    }
    let inputs = file.tests.filter { $0.result == .valid }.map { $0.bytes[...] }
    print("\(profiled): \(Int(swiftRate(format.swift, inputs))) decodes/s")
    exit(0)
}

// MARK: agreement

var disagreements = 0
var validInputs: [FormatID: [[UInt8]]] = [:]
for format in formats {
    guard let file = try? VectorFile(contentsOf: "\(vectorDir)/\(format.id).json") else {
        print("no vector file \(vectorDir)/\(format.id).json (run from the repository root, or pass --vectors DIR)")
        exit(2)
    }
    var accepted = 0, refused = 0
    for test in file.tests {
        let expected = test.result == .valid ? "" : test.error ?? "?"
        let swift = format.swiftCode(test.bytes) ?? ""
        let (c, differences) = format.compare(test.bytes)
        if swift != c || c != expected || !differences.isEmpty {
            disagreements += 1
            let say = { (code: String) in code.isEmpty ? "accepts" : "refuses \(code)" }
            print("DISAGREE \(test): vector \(say(expected)), meshconform \(say(swift)), C \(say(c))"
                + (differences.isEmpty ? "" : "; fields: " + differences.joined(separator: "; ")))
        } else if c.isEmpty {
            accepted += 1
        } else {
            refused += 1
        }
    }
    validInputs[format.id] = file.tests.filter { $0.result == .valid }.map(\.bytes)
    print("agreement \(format.id): \(file.tests.count) vectors, \(accepted) accepted with equal fields and \(refused) refused with the same code by both")
}
print()

// MARK: speed

/// Decodes per second of one Swift round of `seconds` over `inputs`.
func swiftRate(_ pass: ([ArraySlice<UInt8>]) -> Int, _ inputs: [ArraySlice<UInt8>]) -> Double {
    // The thread's CPU time, the clock C's rounds read too (cd_thread_seconds).
    let start = cd_thread_seconds()
    var count = 0, accepted = 0
    var elapsed = 0.0
    while elapsed < seconds {
        for _ in 0..<CD_PASSES_PER_CLOCK_READ { accepted += pass(inputs) }
        count += inputs.count * Int(CD_PASSES_PER_CLOCK_READ)
        elapsed = cd_thread_seconds() - start
    }
    precondition(accepted > 0, "no input decoded: the benchmark would measure nothing")
    return Double(count) / elapsed
}

func cRate(_ format: cd_format, _ inputs: [[UInt8]]) -> Double {
    // The inputs as C sees them: pointers into buffers that stay put for the whole round.
    let buffers = inputs.map { bytes -> UnsafeMutableBufferPointer<UInt8> in
        let b = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
        _ = b.initialize(from: bytes)
        return b
    }
    defer { buffers.forEach { $0.deallocate() } }
    let pointers: [UnsafePointer<UInt8>?] = buffers.map { UnsafePointer($0.baseAddress) }
    let lengths = buffers.map(\.count)
    let rate = cd_rate(Int32(format.rawValue), pointers, lengths, inputs.count, seconds, 1)
    precondition(rate > 0, "no input decoded by C: the benchmark would measure nothing")
    return rate
}

func lpad(_ s: String, _ n: Int) -> String { s.count >= n ? s : String(repeating: " ", count: n - s.count) + s }

print("| format | valid inputs | mean bytes | meshconform decodes/s | C decodes/s | meshconform / C (time per decode) |")
print("|---|---:|---:|---:|---:|---:|")
for format in formats {
    let inputs = validInputs[format.id] ?? []
    let slices = inputs.map { $0[...] }
    guard !inputs.isEmpty else { continue }
    var swiftBest = 0.0, cBest = 0.0
    // Five rounds each, alternating, so both see the same machine load; best of each kept.
    for _ in 0..<5 {
        swiftBest = max(swiftBest, swiftRate(format.swift, slices))
        cBest = max(cBest, cRate(format.c, inputs))
    }
    let mean = inputs.map(\.count).reduce(0, +) / inputs.count
    print("| \(format.id) | \(inputs.count) | \(mean) | \(lpad(String(Int(swiftBest)), 10)) | \(lpad(String(Int(cBest)), 10)) | \(String(format: "%.2f", cBest / swiftBest)) |")
}

if disagreements > 0 {
    print("\n\(disagreements) vector(s) where the decoders disagree")
    exit(1)
}
