import MeshNode
import Foundation
import Testing
@testable import MeshWire

@Suite("JSON reader and writer")
struct JSONTests {
    func parseError(_ text: String) -> WireError.Code? {
        do { _ = try JSONParser.parse(text); return nil } catch { return error.code }
    }

    @Test("refuses what RFC 8259 refuses, with the precise code", arguments: [
        ("", WireError.Code.truncated), ("{", .truncated), ("{\"a\":", .truncated), ("[1,", .truncated), ("\"abc", .truncated),
        ("{\"a\" 1}", .badJSON), ("[1,]", .badJSON), ("01", .badJSON), ("+1", .badJSON), ("1.", .truncated), ("1.e3", .badJSON),
        ("NaN", .badJSON), ("tru", .truncated), ("trux", .badJSON), ("\"\u{01}\"", .badJSON), ("\"\\x\"", .badJSON),
        ("\"\\ud800\"", .badJSON), ("\"\\udc00\"", .badJSON), ("{} x", .badJSON), ("{\"a\":1,\"a\":2}", .duplicateKey),
        (String(repeating: "[", count: 33) + String(repeating: "]", count: 33), .tooDeep),
    ])
    func refuses(text: String, expected: WireError.Code) {
        #expect(parseError(text) == expected, "\(text.debugDescription)")
    }

    @Test func refusesInvalidUTF8() {
        #expect(code { try JSONParser.parse([0x22, 0xff, 0x22][...]) } == .badJSON)
    }

    @Test func acceptsDepthLimitExactly() throws {
        let text = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
        _ = try JSONParser.parse(text)
    }

    @Test func keepsNumbersExact() throws {
        let v = try JSONParser.parse("{\"seq\":4745111029145403392,\"max\":18446744073709551615}")
        let f = try JSONFields(v, context: "t")
        #expect(try f.integer("seq", as: UInt64.self) == 4_745_111_029_145_403_392)
        #expect(try f.integer("max", as: UInt64.self) == .max)
    }

    @Test("integer fields read exactly", arguments: [
        ("8", Int64(8)), ("8.0", 8), ("8e0", 8), ("0.8e1", 8), ("-0", 0), ("-9223372036854775808", .min), ("1E2", 100), ("0.00", 0),
    ])
    func integers(text: String, value: Int64) throws {
        let f = try JSONFields(JSONParser.parse("{\"n\":\(text)}"), context: "t")
        #expect(try f.integer("n", as: Int64.self) == value)
    }

    @Test("integer fields refuse", arguments: [
        ("8.5", WireError.Code.wrongType), ("1e-1", .wrongType), ("256", .valueOutOfRange), ("-1", .valueOutOfRange),
        ("1e300", .valueOutOfRange), ("\"8\"", .wrongType), ("null", .wrongType), ("true", .wrongType),
    ])
    func integerRefusals(text: String, expected: WireError.Code) throws {
        let f = try JSONFields(JSONParser.parse("{\"n\":\(text)}"), context: "t")
        #expect(throws: WireError.self) { _ = try f.integer("n", as: UInt8.self) }
        do { _ = try f.integer("n", as: UInt8.self) } catch { #expect(error.code == expected) }
    }

    @Test("a number that overflows a Double is refused under any key, as Foundation refuses the message",
          arguments: ["1e400", "-1e400", "1E+309", String(repeating: "9", count: 310)])
    func doubleOverflow(text: String) {
        do {
            _ = try JSONParser.parse("{\"unknown\":[\(text)]}")
            Issue.record("\(text) accepted")
        } catch { #expect(error.code == .valueOutOfRange) }
        #expect((try? JSONParser.parse("{\"n\":1e-400}")) != nil, "underflow reads as 0, as in Foundation")
    }

    @Test func nullOptionalIsAbsentAndMissingRequiredIsPrecise() throws {
        let f = try JSONFields(JSONParser.parse("{\"a\":null}"), context: "t")
        #expect(try f.optionalUUID("a") == nil)
        #expect(try f.optionalUUID("b") == nil)
        do { _ = try f.uuid("a"); Issue.record("null accepted") } catch { #expect(error.code == .wrongType) }
        do { _ = try f.uuid("b"); Issue.record("absent accepted") } catch { #expect(error.code == .missingField) }
    }

    struct Mirror: Codable { var d: Double; var s: String; var data: Data; var id: UUID; var n: UInt64 }

    /// Our writer must produce exactly what the apps' own encoder sends.
    @Test func writerMatchesFoundationJSONEncoder() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var rng = SeededRandom(seed: 7)
        let alphabet: [Character] = ["a", "/", "\\", "\"", "\u{0}", "\u{1f}", "\n", "\t", "\u{8}", "\u{c}", "\r", "é", "😀", "\u{7f}", "\u{2028}", " "]
        for i in 0..<2_000 {
            let double = i % 3 == 0 ? Double(rng.next() % 2_000_000_000) : Double(bitPattern: rng.next())
            guard double.isFinite else { continue }
            let s = String((0..<Int(rng.next() % 12)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] })
            let data = (0..<Int(rng.next() % 40)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let n = rng.next()
            let id = UUID()
            let expected = Array(try encoder.encode(Mirror(d: double, s: s, data: Data(data), id: id, n: n)))
            let ours = JSONWriter.write(.object([
                ("d", .double(double)), ("s", .string(s)), ("data", .base64(data)), ("id", .uuid(id)), ("n", .integer(n)),
            ]))
            #expect(ours == expected, "\(String(decoding: expected, as: UTF8.self))")
            // And our parser reads Foundation's bytes back to the same value.
            let back = try JSONFields(JSONParser.parse(expected[...]), context: "t")
            #expect(try back.double("d") == double && back.string("s") == s && back.base64("data") == data && back.integer("n", as: UInt64.self) == n)
        }
    }

    @Test func iso8601MatchesFoundation() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        var rng = SeededRandom(seed: 11)
        for _ in 0..<2_000 {
            let seconds = Int64(rng.next() % 8_000_000_000) - 2_000_000_000
            let foundation = String(decoding: try encoder.encode([Date(timeIntervalSince1970: Double(seconds))]), as: UTF8.self)
            #expect(foundation == "[\"\(ISO8601Seconds.format(seconds))\"]")
            #expect(ISO8601Seconds.parse(ISO8601Seconds.format(seconds)) == seconds)
        }
        #expect(ISO8601Seconds.parse("2025-05-03T02:00:00+02:00") == 1_746_230_400)
        for bad in ["2025-05-03T00:00:00.5Z", "2025-02-30T00:00:00Z", "2025-05-03 00:00:00Z", "2025-05-03T24:00:00Z", "2025-05-03T00:00:00"] {
            #expect(ISO8601Seconds.parse(bad) == nil, "\(bad)")
        }
    }
}
