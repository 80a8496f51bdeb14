/// Exact reading of JSON number text as an integer.
///
/// Foundation's JSONDecoder accepts `8.0` or `8e0` for an integer field, so we do too, but
/// exactly: the value must be integral with no rounding, however many digits it has.
enum JSONNumberText {
    enum Integer: Equatable {
        case value(negative: Bool, magnitude: UInt64)
        case notIntegral
        case overflow
    }

    static func integer(_ text: String) -> Integer {
        var bytes = Substring(text).utf8[...]
        var negative = false
        if bytes.first == UInt8(ascii: "-") { negative = true; bytes = bytes.dropFirst() }
        var digits: [UInt8] = []
        var fractionCount = 0
        var inFraction = false
        var exponent = 0
        var it = bytes.makeIterator()
        while let c = it.next() {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if digits.isEmpty && c == UInt8(ascii: "0") { if inFraction { fractionCount += 1 }; continue }
                // Cap the digits we keep: more than 40 significant digits cannot be a UInt64
                // unless they are zeros, which are counted, not stored.
                guard digits.count < 400 else { return .overflow }
                digits.append(c - UInt8(ascii: "0"))
                if inFraction { fractionCount += 1 }
            case UInt8(ascii: "."):
                inFraction = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                var expNegative = false
                var exp = 0
                while let e = it.next() {
                    if e == UInt8(ascii: "-") { expNegative = true; continue }
                    if e == UInt8(ascii: "+") { continue }
                    exp = min(exp * 10 + Int(e - UInt8(ascii: "0")), 100_000)
                }
                exponent = expNegative ? -exp : exp
            default:
                return .notIntegral
            }
        }
        if digits.isEmpty { return .value(negative: negative, magnitude: 0) }
        var scale = exponent - fractionCount
        while scale < 0, let last = digits.last, last == 0 { digits.removeLast(); scale += 1 }
        if scale < 0 { return .notIntegral }
        guard digits.count + scale <= 20 else { return .overflow }
        var magnitude: UInt64 = 0
        for d in digits + Array(repeating: 0, count: scale) {
            let (m1, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (m2, o2) = m1.addingReportingOverflow(UInt64(d))
            guard !o1, !o2 else { return .overflow }
            magnitude = m2
        }
        return .value(negative: negative, magnitude: magnitude)
    }
}
