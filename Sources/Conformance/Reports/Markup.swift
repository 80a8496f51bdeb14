/// Text and attribute escaping for the XML and HTML reports. The five markup characters become
/// entities; control characters, C1 controls and non-characters (which XML 1.0 cannot carry
/// and a DUT could use to garble a page) become U+FFFD. Newlines and tabs stay.
public enum Markup {
    public static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\n", "\t", "\r": out.unicodeScalars.append(scalar)
            default:
                let v = scalar.value
                let bad = v < 0x20 || (0x7F...0x9F).contains(v) || (0xFDD0...0xFDEF).contains(v) || v & 0xFFFE == 0xFFFE
                out.unicodeScalars.append(bad ? "\u{FFFD}" : scalar)
            }
        }
        return out
    }
}

/// Text for a terminal: what a DUT said (log lines, stderr, reasons quoting its bytes) must not
/// move the cursor, recolour the screen or set the window title, so every control character
/// but the tab becomes U+FFFD; a newline inside one value is shown as "⏎" to keep one value per line.
public enum TerminalText {
    public static func plain(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for scalar in s.unicodeScalars {
            let v = scalar.value
            if scalar == "\t" {
                out.unicodeScalars.append(scalar)
            } else if scalar == "\n" {
                out += "⏎"
            } else if v < 0x20 || (0x7F...0x9F).contains(v) {
                out.unicodeScalars.append("\u{FFFD}")
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
