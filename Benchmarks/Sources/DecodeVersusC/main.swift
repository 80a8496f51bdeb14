import CDecoders
import Foundation
import MeshVectors
import MeshWire

// meshconform's decoders of the four binary formats against plain C decoders written from the
// dialect pages (Benchmarks/Sources/CDecoders), in one run on the same inputs:
// 1. agreement: both decode every vector of Vectors/<format>.json, and must accept the same
//    ones with the same fields and refuse the others with the same error code;
// 2. speed: decodes per second over the valid vectors, round by round in turn: meshconform's
//    in-place decoder (the format's `Layout` over a borrowed Span: fields and offsets, no
//    reference kept, as C returns pointers into its input), its value decoder (the public value
//    types, which own their bytes), and C.
//
//   swift build -c release --package-path Benchmarks
//   Benchmarks/.build/release/DecodeVersusC [--seconds S] [--vectors DIR]    # from the repository root
//   Benchmarks/.build/release/DecodeVersusC --profile FORMAT [--in-place]     # one decoder alone, for perf
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
    /// One pass of the in-place decoder (no value built, nothing retained) over the inputs lent
    /// from one flat buffer, as C's loop passes pointers into buffers that stay put.
    var inPlace: (FlatInputs) -> Int
    /// nil: the in-place decoder accepts; else its error code.
    var inPlaceCode: ([UInt8]) -> String?
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

/// The inputs of one format back to back in one buffer, and where each one lies.
struct FlatInputs {
    var bytes: [UInt8] = []
    var ranges: [Range<Int>] = []
    init(_ inputs: [[UInt8]]) {
        for input in inputs {
            ranges.append(bytes.count..<bytes.count + input.count)
            bytes += input
        }
    }
}

/// meshconform's decoders that read a borrowed `Span` and build nothing that refers to it: the
/// `Layout` of a format (its fields, and offsets for its byte fields), or the value itself where
/// it holds no bytes (relay.ack).
protocol InPlaceDecoder { init(decoding bytes: Span<UInt8>) throws(WireError) }
extension BitchatPacket.Layout: InPlaceDecoder {}
extension BitchatFragment.Layout: InPlaceDecoder {}
extension PeatDocument.Layout: InPlaceDecoder {}
extension RelayAck: InPlaceDecoder {}

/// One pass of an in-place decoder, the loop specialised for `T`: one span of the flat buffer
/// per pass, one decoder call per input on its part of it (no reference counting anywhere).
func inPlace<T: InPlaceDecoder>(_ type: T.Type) -> (FlatInputs) -> Int {
    { inputs in
        let all = inputs.bytes.span
        var accepted = 0
        for range in inputs.ranges {
            do throws(WireError) {
                _ = try T(decoding: all.extracting(range))
                accepted += 1
            } catch {}
        }
        return accepted
    }
}

func inPlaceCode<T: InPlaceDecoder>(_ type: T.Type) -> ([UInt8]) -> String? {
    { bytes in
        do throws(WireError) {
            _ = try T(decoding: bytes.span)
            return nil
        } catch {
            return error.code.rawValue
        }
    }
}

let formats = [
    Format(id: "bitchat.packet", c: CD_BITCHAT_PACKET, swift: ours(BitchatPacket.self), inPlace: inPlace(BitchatPacket.Layout.self), inPlaceCode: inPlaceCode(BitchatPacket.Layout.self), swiftCode: swiftCode(BitchatPacket.self), compare: comparePacket),
    Format(id: "bitchat.fragment", c: CD_BITCHAT_FRAGMENT, swift: ours(BitchatFragment.self), inPlace: inPlace(BitchatFragment.Layout.self), inPlaceCode: inPlaceCode(BitchatFragment.Layout.self), swiftCode: swiftCode(BitchatFragment.self), compare: compareFragment),
    Format(id: "peat.document", c: CD_PEAT_DOCUMENT, swift: ours(PeatDocument.self), inPlace: inPlace(PeatDocument.Layout.self), inPlaceCode: inPlaceCode(PeatDocument.Layout.self), swiftCode: swiftCode(PeatDocument.self), compare: compareDocument),
    Format(id: "relay.ack", c: CD_RELAY_ACK, swift: ours(RelayAck.self), inPlace: inPlace(RelayAck.self), inPlaceCode: inPlaceCode(RelayAck.self), swiftCode: swiftCode(RelayAck.self), compare: compareAck),
]

// `--profile FORMAT`: only meshconform's decoder of FORMAT in a loop for --seconds, for
// `perf record -g` (no agreement check, no C).
if let profiled = option("--profile") {
    guard let format = formats.first(where: { $0.id == profiled }),
          let file = try? VectorFile(contentsOf: "\(vectorDir)/\(profiled).json") else {
        print("--profile takes one of \(formats.map(\.id).joined(separator: ", ")), run from the repository root")
        exit(2)
    }
    let valid = file.tests.filter { $0.result == .valid }.map(\.bytes)
    if arguments.contains("--in-place") {
        let flat = FlatInputs(valid)
        print("\(profiled) in place: \(Int(swiftRate({ _ in format.inPlace(flat) }, valid.map { $0[...] }))) decodes/s")
    } else {
        print("\(profiled): \(Int(swiftRate(format.swift, valid.map { $0[...] }))) decodes/s")
    }
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
        let inPlace = format.inPlaceCode(test.bytes) ?? ""
        let (c, differences) = format.compare(test.bytes)
        if swift != c || inPlace != swift || c != expected || !differences.isEmpty {
            disagreements += 1
            let say = { (code: String) in code.isEmpty ? "accepts" : "refuses \(code)" }
            print("DISAGREE \(test): vector \(say(expected)), meshconform \(say(swift)) (in place \(say(inPlace))), C \(say(c))"
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

print("| format | valid inputs | mean bytes | meshconform in place decodes/s | meshconform values decodes/s | C decodes/s | in place / C | values / C |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for format in formats {
    let inputs = validInputs[format.id] ?? []
    let slices = inputs.map { $0[...] }
    let flat = FlatInputs(inputs)
    guard !inputs.isEmpty else { continue }
    var inPlaceBest = 0.0, swiftBest = 0.0, cBest = 0.0
    // Five rounds each, alternating, so all three see the same machine load; best of each kept.
    for _ in 0..<5 {
        inPlaceBest = max(inPlaceBest, swiftRate({ _ in format.inPlace(flat) }, slices))
        swiftBest = max(swiftBest, swiftRate(format.swift, slices))
        cBest = max(cBest, cRate(format.c, inputs))
    }
    let mean = inputs.map(\.count).reduce(0, +) / inputs.count
    func rate(_ r: Double) -> String { lpad(Int(r).formatted(), 12) }
    print("| \(format.id) | \(inputs.count) | \(mean) | \(rate(inPlaceBest)) | \(rate(swiftBest)) | \(rate(cBest)) | \(String(format: "%.2f", cBest / inPlaceBest)) | \(String(format: "%.2f", cBest / swiftBest)) |")
}

if disagreements > 0 {
    print("\n\(disagreements) vector(s) where the decoders disagree")
    exit(1)
}
