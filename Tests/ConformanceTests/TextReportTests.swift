import Conformance
import MeshNode
import Testing

@Suite("terminal report")
struct TextReportTests {
    /// A DUT's log line and the bytes it sent reach the terminal as text: an escape sequence in
    /// them must not recolour the screen or retitle the window (ESC, BEL, CSI all become U+FFFD).
    @Test func whatTheDUTSaidCannotDriveTheTerminal() {
        var result = CheckResult(id: "ROB/BI-01", purpose: "survives a truncated unit", dialect: .relay, verdict: .fail,
                                 reason: "the DUT said \u{1B}[31mred\u{1B}[0m")
        result.expected = "nothing\u{07}"
        result.seen = "log: \u{1B}]0;pwned\u{07}"
        result.evidence = [EvidenceEntry(time: .zero, direction: .fromDUT, summary: "log: two\nlines \u{9B}2J")]
        let text = TextReport.line(result)
        #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B })
        #expect(text.contains("\u{FFFD}[31mred"))
        #expect(text.contains("two⏎lines"))
        // The report's own layout (a line per field) survives.
        #expect(text.split(separator: "\n").count == 6)
    }
}
