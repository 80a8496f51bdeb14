/// Whole-second ISO-8601 timestamps, as `JSONEncoder.DateEncodingStrategy.iso8601` writes them
/// (`2025-05-03T00:00:00Z`).
///
/// Read: `YYYY-MM-DDTHH:MM:SS` then `Z` or a `±HH:MM` offset. Fractional seconds are refused
/// (`badDate`): the apps never write them and older Foundation refuses them, so accepting
/// them would hide an interoperability bug. Written: always UTC with `Z`.
public enum ISO8601Seconds {
    public static func parse(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        guard b.count == 20 || b.count == 25 else { return nil }
        func num(_ range: Range<Int>) -> Int? {
            var v = 0
            for i in range {
                guard b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") else { return nil }
                v = v * 10 + Int(b[i] - UInt8(ascii: "0"))
            }
            return v
        }
        guard b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[10] == UInt8(ascii: "T"),
              b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
              let year = num(0..<4), let month = num(5..<7), let day = num(8..<10),
              let hour = num(11..<13), let minute = num(14..<16), let second = num(17..<19),
              (1...12).contains(month), (1...daysIn(month, year)).contains(day),
              hour < 24, minute < 60, second < 60
        else { return nil }
        var offset = 0
        if b.count == 20 {
            guard b[19] == UInt8(ascii: "Z") else { return nil }
        } else {
            guard b[19] == UInt8(ascii: "+") || b[19] == UInt8(ascii: "-"), b[22] == UInt8(ascii: ":"),
                  let oh = num(20..<22), let om = num(23..<25), oh < 24, om < 60 else { return nil }
            offset = (oh * 3600 + om * 60) * (b[19] == UInt8(ascii: "+") ? 1 : -1)
        }
        let days = daysFromCivil(year, month, day)
        return Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second - offset)
    }

    public static func format(_ seconds: Int64) -> String {
        let days = Int(seconds.floorDiv(86_400))
        let secs = Int(seconds - Int64(days) * 86_400)
        let (y, m, d) = civilFromDays(days)
        func pad(_ v: Int, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(secs / 3600, 2)):\(pad(secs / 60 % 60, 2)):\(pad(secs % 60, 2))Z"
    }

    /// The range `format` can write and `parse` can read back.
    public static let representable: ClosedRange<Int64> = -62_135_596_800...253_402_300_799

    private static func daysIn(_ month: Int, _ year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // Howard Hinnant's days_from_civil / civil_from_days.
    private static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func civilFromDays(_ z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}

extension Int64 {
    fileprivate func floorDiv(_ d: Int64) -> Int64 {
        let q = self / d
        return (self % d != 0 && (self < 0) != (d < 0)) ? q - 1 : q
    }
}

extension JSONFields {
    public func iso8601(_ key: String) throws(WireError) -> Int64 {
        let s = try string(key)
        guard let seconds = ISO8601Seconds.parse(s) else {
            throw WireError(.badDate, "\(context).\(key): \"\(s.prefix(40))\" is not yyyy-MM-ddTHH:mm:ssZ")
        }
        return seconds
    }
}
