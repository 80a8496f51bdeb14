/// Format-aware mutations of JSON text found inside an input, read from the bytes each time:
/// no parse is needed, so they also work on JSON that a previous mutation already broke.
enum JSONText {
    struct Member {
        var key: Range<Int>      // the key text, without quotes
        var value: Range<Int>    // the value text as written
        var start: Int           // the opening quote of the key
    }

    static let quote = UInt8(ascii: "\""), colon = UInt8(ascii: ":"), backslash = UInt8(ascii: "\\")

    /// Members `"key": value` found by a forward scan; bounded so that a huge input stays cheap.
    static func members(in b: [UInt8], limit: Int = 64) -> [Member] {
        var found: [Member] = []
        var i = 0
        while i < b.count, found.count < limit {
            guard b[i] == quote, let close = stringEnd(b, from: i) else { i += 1; continue }
            var j = close + 1
            while j < b.count, isSpace(b[j]) { j += 1 }
            guard j < b.count, b[j] == colon else { i = close + 1; continue }
            j += 1
            while j < b.count, isSpace(b[j]) { j += 1 }
            let end = valueEnd(b, from: j)
            found.append(Member(key: (i + 1)..<close, value: j..<end, start: i))
            // Step into objects and arrays: their members are candidates too.
            i = (j < b.count && (b[j] == UInt8(ascii: "{") || b[j] == UInt8(ascii: "["))) ? j + 1 : max(end, j + 1)
        }
        return found
    }

    /// The index of the quote closing the string that opens at `open`.
    static func stringEnd(_ b: [UInt8], from open: Int) -> Int? {
        var k = open + 1
        while k < b.count {
            if b[k] == backslash { k += 2; continue }
            if b[k] == quote { return k }
            k += 1
        }
        return nil
    }

    static func valueEnd(_ b: [UInt8], from start: Int) -> Int {
        guard start < b.count else { return start }
        if b[start] == quote { return (stringEnd(b, from: start) ?? b.count - 1) + 1 }
        if b[start] == UInt8(ascii: "{") || b[start] == UInt8(ascii: "[") {
            var depth = 0, k = start
            while k < b.count {
                switch b[k] {
                case quote: k = stringEnd(b, from: k) ?? b.count
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return k + 1 }
                default: break
                }
                k += 1
            }
            return b.count
        }
        var k = start
        while k < b.count, ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]")].contains(b[k]), !isSpace(b[k]) { k += 1 }
        return k
    }

    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }

    static let numberEdges: [String] = ["0", "-1", "1", "255", "256", "65535", "65536", "4294967296", "-0", "1.5", "1e2", "1e999",
                                        "18446744073709551616", "null", "\"8\"", "true", "[]"]

    /// Replaces the value of one member named like `keys` with an edge value of its field.
    static func replaceValue(ofKeys keys: Set<String>, in b: inout [UInt8], rng: inout FuzzRandom) -> Bool {
        let candidates = members(in: b).filter { keys.contains(String(decoding: b[$0.key], as: UTF8.self)) }
        guard !candidates.isEmpty else { return false }
        let m = rng.pick(candidates)
        var replacement: String
        if let n = Int(String(decoding: b[m.value], as: UTF8.self)), rng.oneIn(2) {
            // Wrapping, whole step at once: next to Int.max or Int.min, `n &+ 1 + k` traps on `+ k`.
            let step = 1 + rng.below(3)
            replacement = String(rng.oneIn(2) ? n &+ step : n &- step)
        } else {
            replacement = rng.pick(numberEdges)
        }
        if rng.oneIn(8) { replacement = String(repeating: "9", count: 1 + rng.below(40)) }
        b.replaceSubrange(m.value, with: Array(replacement.utf8))
        return true
    }

    static func replaceAnyValue(in b: inout [UInt8], with token: [UInt8], rng: inout FuzzRandom) -> Bool {
        let all = members(in: b)
        guard !all.isEmpty else { return false }
        b.replaceSubrange(rng.pick(all).value, with: token)
        return true
    }

    static let keyNames = ["type", "ttl", "payload", "flags", "chunkIndex", "totalChunks", "messageID", "origin", "dest", "seq", "id", "x"]

    /// Renames, duplicates, drops or re-cases one key.
    static func mutateKey(in b: inout [UInt8], rng: inout FuzzRandom) -> Bool {
        let all = members(in: b)
        guard !all.isEmpty else { return false }
        let m = rng.pick(all)
        switch rng.below(5) {
        case 0: b.replaceSubrange(m.key, with: Array(rng.pick(keyNames).utf8))
        case 1:
            // The same member twice: duplicate keys are refused by the strict decoders.
            let member = Array(b[m.start..<m.value.upperBound])
            b.insert(contentsOf: member + [UInt8(ascii: ",")], at: m.start)
        case 2:
            var end = m.value.upperBound
            if end < b.count, b[end] == UInt8(ascii: ",") { end += 1 }
            b.removeSubrange(m.start..<end)
        case 3:
            for k in m.key where (0x61...0x7A).contains(b[k]) || (0x41...0x5A).contains(b[k]) { b[k] ^= 0x20; break }
        default:
            b.replaceSubrange(m.key, with: Array(b[m.key]) + Array("\\u0000".utf8).prefix(rng.below(7)))
        }
        return true
    }

    /// 8-4-4-4-12 hex text: lower-cased, a dash dropped, a non-hex digit, one char short, braces.
    static func mutateUUID(in b: inout [UInt8], rng: inout FuzzRandom) -> Bool {
        var starts: [Int] = []
        var i = 0
        while i + 36 <= b.count, starts.count < 16 {
            if isUUID(b, at: i) { starts.append(i); i += 36 } else { i += 1 }
        }
        guard !starts.isEmpty else { return false }
        let s = rng.pick(starts)
        switch rng.below(6) {
        case 0: for k in s..<(s + 36) where (0x41...0x46).contains(b[k]) { b[k] |= 0x20 }
        case 1: b.remove(at: s + [8, 13, 18, 23][rng.below(4)])
        case 2: b[s + [0, 9, 14, 19, 24, 35][rng.below(6)]] = UInt8(ascii: "G")
        case 3: b.remove(at: s + 35)
        case 4: b.insert(UInt8(ascii: "{"), at: s); b.insert(UInt8(ascii: "}"), at: s + 37)
        default: b.replaceSubrange(s..<(s + 36), with: Array("00000000-0000-0000-0000-000000000000".utf8))
        }
        return true
    }

    static func isUUID(_ b: [UInt8], at s: Int) -> Bool {
        for k in 0..<36 {
            let c = b[s + k]
            if k == 8 || k == 13 || k == 18 || k == 23 { if c != UInt8(ascii: "-") { return false } } else if !isHex(c) { return false }
        }
        return true
    }

    static func isHex(_ c: UInt8) -> Bool { (0x30...0x39).contains(c) || (0x41...0x46).contains(c) || (0x61...0x66).contains(c) }

    /// A base64 string value: padding broken or added, a character outside the alphabet, the
    /// encoding of edge bytes, or a very long one.
    static func mutateBase64(in b: inout [UInt8], rng: inout FuzzRandom) -> Bool {
        let strings = members(in: b).compactMap { m -> Range<Int>? in
            guard m.value.count >= 6, b[m.value.lowerBound] == quote else { return nil }
            let inner = (m.value.lowerBound + 1)..<(m.value.upperBound - 1)
            guard inner.count % 4 == 0, inner.allSatisfy({ isBase64(b[$0]) }) else { return nil }
            return inner
        }
        guard !strings.isEmpty else { return false }
        let r = rng.pick(strings)
        switch rng.below(6) {
        case 0: if let last = r.last, b[last] == UInt8(ascii: "=") { b.remove(at: last) } else { b.insert(UInt8(ascii: "="), at: r.upperBound) }
        case 1: b[r.lowerBound + rng.below(r.count)] = [UInt8(ascii: "!"), UInt8(ascii: "-"), UInt8(ascii: "_"), 0x20][rng.below(4)]
        case 2: b.replaceSubrange(r, with: Array(["", "AA==", "AAAA", "////", "e30=", "bnVsbA==", "W10="][rng.below(7)].utf8))
        case 3: b.insert(contentsOf: Array(b[r]), at: r.upperBound)
        case 4: b.replaceSubrange(r, with: Array(b[r].prefix(r.count - 1 - rng.below(3))))
        default: b.insert(contentsOf: Array("\\n".utf8), at: r.lowerBound + rng.below(r.count))
        }
        return true
    }

    static func isBase64(_ c: UInt8) -> Bool {
        (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || (0x30...0x39).contains(c) || c == UInt8(ascii: "+") || c == UInt8(ascii: "/") || c == UInt8(ascii: "=")
    }
}
