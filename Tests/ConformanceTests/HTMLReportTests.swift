import Conformance
import Foundation
import MeshNode
import Testing

/// The HTML report (`--html`): one row per check, a sequence chart per FAIL (open), charts
/// capped with a note, rules linked to the section of the dialect page that states them, and
/// nothing the DUT sent able to become markup.
@Suite struct HTMLReportTests {
    /// Strings a hostile DUT could put in its log, its bytes' decoding or its name.
    static let hostile = [
        "<script>alert(1)</script>", "\"><img src=x onerror=alert(2)>", "'><svg onload=alert(3)>",
        "</text></g></svg></figure></details><iframe src=//evil>", "<!-- ]]> <![CDATA[ x ]]>",
        "&lt;already&gt; &amp; \u{0}\u{1b}[31m\u{7f}\u{85}\u{FFFE}\u{2028}", "javascript:alert(4)",
    ]

    static func entry(_ ms: Int, _ direction: EvidenceEntry.Direction, _ link: Int?, _ bytes: [UInt8]?, _ summary: String) -> EvidenceEntry {
        EvidenceEntry(time: .milliseconds(ms), direction: direction, link: link.map(LinkID.init), bytes: bytes, summary: summary)
    }

    static let evidence = [
        entry(0, .toDUT, 1, nil, "link up, peer T1 = S1"),
        entry(0, .toDUT, 2, nil, "link up, peer T2 = S2"),
        entry(0, .toDUT, 1, [0x41, 0x01, 0xFF], "frame origin=S1 dest=S2 ttl=8"),
        entry(35, .fromDUT, 2, [0x41, 0x01, 0xFE], "frame origin=S1 dest=S2 ttl=7"),
        entry(40, .fromDUT, nil, nil, "app delivery 7 from S1: 3 bytes"),
        entry(41, .fromDUT, nil, nil, "log: cache full"),
        entry(900, .note, nil, nil, "sent the second copy"),
    ]

    /// Two dialects, every verdict, one FAIL per dialect.
    static let report = RunReport(dut: "mutant no-dedup (virtual radio)", seed: 7, sections: [
        .init(capabilities: .referenceNode(.relay), results: [
            CheckResult(id: "DDP/BV-01", purpose: "the same message twice on one link is relayed once", dialect: .relay, verdict: .fail,
                        reason: "the duplicate was relayed again", expected: "nothing after the second copy", seen: "message ttl 7 on L2",
                        evidence: evidence, wallSeconds: 0.035),
            CheckResult(id: "RLY/BV-01", purpose: "relays", dialect: .relay, verdict: .pass, evidence: evidence),
            CheckResult(id: "ACK/BV-01", purpose: "acks", dialect: .relay, verdict: .inconclusive, reason: "past its budget", evidence: evidence),
            CheckResult(id: "BCN/BV-01", purpose: "beacons", dialect: .relay, verdict: .notApplicable, reason: "needs beacons"),
        ]),
        .init(capabilities: .referenceNode(.blemesh), results: [
            CheckResult(id: "DDP/BV-01", purpose: "the same message twice on one link is relayed once", dialect: .blemesh, verdict: .fail,
                        reason: "again", expected: "x", seen: "y", evidence: evidence),
            CheckResult(id: "ROB/BI-01", purpose: "survives", dialect: .blemesh, verdict: .error, reason: "tester failed"),
        ]),
    ], wallSeconds: 1.5)

    @Test func oneRowPerCheckAndAnOpenChartPerFail() {
        let html = HTMLReport.render(Self.report)
        let rows = Page.elements(html, "details")
        #expect(rows.count == Self.report.results.count)
        for (row, result) in zip(rows, Self.report.results) {
            #expect(row.contains("data-verdict=\"\(result.verdict.rawValue)\""))
            #expect(row.contains("data-dialect=\"\(result.dialect.rawValue)\""))
            #expect(row.contains("data-group=\"\(result.id.prefix(3))\""))
            let opening = row.prefix { $0 != ">" }
            #expect(opening.hasSuffix(" open") == (result.verdict == .fail), "\(result.id): only a FAIL opens")
            #expect(row.contains("<svg class=\"msc\"") == !result.evidence.isEmpty, "\(result.id): a chart exactly when there is evidence")
        }
        // The summary: counts per verdict, dialects, seed, DUT, wall time.
        for v in Verdict.allCases { #expect(html.contains("<b>\(Self.report.count(v))</b><span>\(v.rawValue)</span>")) }
        #expect(html.contains("relay, blemesh") && html.contains("<dd>7</dd>") && html.contains("1.50 s"))
        #expect(html.contains("mutant no-dedup (virtual radio)"))
        // Filters: a chip per verdict present, per group, per dialect.
        for value in ["FAIL", "PASS", "INCONC", "NA", "ERROR", "DDP", "RLY", "ACK", "BCN", "ROB", "relay", "blemesh"] {
            #expect(html.contains("data-value=\"\(value)\" aria-pressed"), "no filter chip \(value)")
        }
        // Self-contained: no URL the browser would fetch.
        #expect(!html.contains("src=") && !html.contains("<link") && !html.contains("@import") && !html.contains("url("))
    }

    @Test func chartHasALanePerLinkAnArrowPerUnitAndTheBytes() throws {
        let html = HTMLReport.render(Self.report)
        let chart = try #require(Page.elements(Page.elements(html, "details")[0], "svg").first)
        for lane in ["app", "DUT", "tester L1", "tester L2"] { #expect(chart.contains(">\(lane)</text>"), "lane \(lane)") }
        #expect(Page.count(chart, "<g class=\"u ") == Self.evidence.count)
        #expect(Page.count(chart, "<line class=\"arrow\"") == 5, "two link events, two units, one app delivery")
        #expect(chart.contains("data-hex=\"4101ff\" data-n=\"3\""))
        #expect(chart.contains("class=\"u from\" data-t=\"35.0 ms\" data-d=\"DUT → tester link L2\""))
        #expect(chart.contains("class=\"u log\"") && chart.contains("class=\"u note\"") && chart.contains("class=\"u app\""))
        #expect(chart.contains("class=\"jump\""), "859 ms without a unit breaks the lifelines")
        #expect(!chart.contains(" seen\""), "a seen text without times names no unit")
    }

    @Test func theUnitsTheVerdictNamesAreMarked() throws {
        var fail = Self.report.results[0]
        fail.seen = "message ttl 7 on L2 at 35.0ms; delivery of 7 at 40.0ms; message ttl 7 on L1 at 35.0ms"
        let html = HTMLReport.render(RunReport(dut: "d", seed: 1, sections: [.init(capabilities: .referenceNode(.relay), results: [fail])], wallSeconds: 1))
        let marked = html.components(separatedBy: "<g class=\"u ").dropFirst().filter { $0.hasPrefix("from seen\"") || $0.hasPrefix("app seen\"") }
        #expect(marked.count == 2, "the unit on L2 at 35.0 ms and the delivery at 40.0 ms; nothing was sent on L1")
        #expect(html.contains("▶ marks the 2 the verdict names under seen"))
    }

    @Test func longEvidenceKeepsItsFirstAndLastUnitsAndSaysHowManyAreLeftOut() throws {
        let long = (0..<1000).map { Self.entry($0, .toDUT, 1, [UInt8($0 & 0xFF)], "filler \($0)") }
        let report = RunReport(dut: "d", seed: 1, sections: [.init(capabilities: .referenceNode(.relay), results: [
            CheckResult(id: "DDP/BV-06", purpose: "p", dialect: .relay, verdict: .fail, evidence: long),
        ])], wallSeconds: 1)
        let html = HTMLReport.render(report, style: .init(unitLimit: 100))
        #expect(Page.count(html, "<g class=\"u ") == 100)
        #expect(html.contains(">filler 0<") && html.contains(">filler 59<") && !html.contains(">filler 60<"))
        #expect(html.contains(">filler 960<") && html.contains(">filler 999<") && !html.contains(">filler 959<"))
        #expect(html.contains("900 entries left out (60.0 ms to 959.0 ms)"))

        // A unit the FAIL names in the middle of the evidence is kept, between two cuts.
        var named = long
        named[500] = Self.entry(500, .fromDUT, 2, [1], "the relay that should not be")
        let marked = HTMLReport.render(RunReport(dut: "d", seed: 1, sections: [.init(capabilities: .referenceNode(.relay), results: [
            CheckResult(id: "DDP/BV-06", purpose: "p", dialect: .relay, verdict: .fail, seen: "message ttl 7 on L2 at 500.0ms", evidence: named),
        ])], wallSeconds: 1), style: .init(unitLimit: 100))
        #expect(Page.count(marked, "<g class=\"u ") == 101)
        #expect(marked.contains("class=\"u from seen\"") && marked.contains(">the relay that should not be<"))
        #expect(marked.contains("440 entries left out (60.0 ms to 499.0 ms)") && marked.contains("459 entries left out (501.0 ms to 959.0 ms)"))
    }

    @Test func rulesLinkToTheSectionOfTheirDialectPage() {
        let html = HTMLReport.render(Self.report, style: .init(dialectPages: "file:///repo/docs/dialects/"))
        // DDP/BV-01 cites RELAY-R3 for relay and BLEMESH-R5 for blemesh: each row shows its own dialect's.
        let rows = Page.elements(html, "details")
        #expect(rows[0].contains("href=\"file:///repo/docs/dialects/relay.md#3-node-rules\"") && rows[0].contains(">RELAY-R3</a>"))
        #expect(!rows[0].contains("BLEMESH-"))
        #expect(rows[4].contains("href=\"file:///repo/docs/dialects/blemesh.md#3-node-rules\"") && !rows[4].contains("RELAY-"))
        // A check that cites no rule of the row's dialect says so, and shows what it does cite.
        let camp = RunReport(dut: "d", seed: 1, sections: [.init(capabilities: .referenceNode(.camp), results: [
            CheckResult(id: "DDP/BV-01", purpose: "p", dialect: .camp, verdict: .pass),
        ])], wallSeconds: 1)
        let page = HTMLReport.render(camp, catalog: [Check("DDP/BV-01", "p", rules: ["RELAY-R3"]) { _ in }])
        #expect(page.contains("The check cites no camp rule; for other dialects: <a class=\"rule\" href=\"docs/dialects/relay.md#3-node-rules\""))
    }

    @Test(arguments: hostile)
    func nothingFromTheDUTBecomesMarkup(_ text: String) throws {
        let evil = [Self.entry(1, .fromDUT, 1, Array(text.utf8), text), Self.entry(2, .fromDUT, nil, nil, "log: " + text),
                    Self.entry(3, .note, nil, nil, "DUT stderr: " + text), Self.entry(4, .fromDUT, nil, nil, text)]
        let report = RunReport(dut: text, seed: 1, sections: [.init(capabilities: .referenceNode(.relay), results: [
            CheckResult(id: "RLY/BV-01", purpose: text, dialect: .relay, verdict: .fail, reason: text, expected: text, seen: text, evidence: evil),
            CheckResult(id: "RLY/BV-02", purpose: "p", dialect: .relay, verdict: .inconclusive, reason: text + String(repeating: "x", count: 300), evidence: evil),
        ])], wallSeconds: 1)
        let html = HTMLReport.render(report)
        // Our one script, unchanged; with it removed, every tag is one the renderer writes, and balanced.
        let scripts = Page.elements(html, "script")
        try #require(scripts.count == 1)
        #expect(scripts[0].contains(">(function () {"))
        let markup = html.replacingOccurrences(of: scripts[0], with: "")
        let tags = Page.tags(markup)
        #expect(tags.subtracting(Page.rendererTags).isEmpty, "unexpected elements: \(tags.subtracting(Page.rendererTags))")
        for tag in ["details", "svg", "g", "text", "figure", "div", "span", "p", "a"] {
            #expect(Page.count(markup, "<\(tag) ") + Page.count(markup, "<\(tag)>") == Page.count(markup, "</\(tag)>"), "<\(tag)> unbalanced")
        }
        #expect(Page.elements(html, "details").count == 2)
        #expect(!html.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\t" || (0x7F...0x9F).contains($0.value) })
        #expect(!html.contains("onerror=alert") || html.contains("&gt;&lt;img src=x onerror=alert(2)&gt;"))
    }

    @Test func escapesTextAndAttributes() {
        #expect(Markup.escape("<a href='x' title=\"y\">&amp;</a>") == "&lt;a href=&#39;x&#39; title=&quot;y&quot;&gt;&amp;amp;&lt;/a&gt;")
        #expect(Markup.escape("a\u{0}b\u{1b}c\u{9f}\u{FFFF}\n\t\ré") == "a\u{FFFD}b\u{FFFD}c\u{FFFD}\u{FFFD}\n\t\ré")
    }

    /// A real run: the reference node with no de-duplication, the DDP checks of every dialect.
    @Test func aRunAgainstAMutantRendersEveryCheckAndAChartPerFail() throws {
        let driver = VirtualDriver(faults: [.noDedup])
        var sections: [RunReport.Section] = []
        for dialect in [DialectName.relay, .blemesh] {
            let runner = Runner(capabilities: .referenceNode(dialect), driver: driver)
            sections.append(.init(capabilities: .referenceNode(dialect),
                                  results: try runner.run(Runner.select(Catalog.all, dialect: dialect, patterns: ["DDP/*"]))))
        }
        let report = RunReport(dut: driver.name, seed: 1, sections: sections, wallSeconds: 1)
        let html = HTMLReport.render(report)
        let rows = Page.elements(html, "details")
        #expect(rows.count == report.results.count)
        let failed = rows.filter { $0.contains("data-verdict=\"FAIL\"") }
        #expect(failed.count == report.count(.fail) && failed.count > 2)
        #expect(failed.allSatisfy { Page.elements($0, "svg").count == 1 })
        // The checks' seen texts (CheckContext.summary) name units the chart can point at.
        #expect(failed.allSatisfy { $0.contains(" seen\"") }, "a FAIL's chart marks the units its verdict names")
        #expect(Page.count(html, "<g class=\"u ") <= report.results.count * HTMLReport.Style().unitLimit)
    }

    @Test func everyRuleACheckCitesHasASection() {
        for check in Catalog.all {
            for rule in check.rules { #expect(RuleLinks.target(of: rule) != nil, "\(check.id) cites \(rule), which no dialect page defines") }
        }
        #expect(RuleLinks.target(of: "RELAY-R5.3")?.path == "relay.md#3-node-rules")
        #expect(RuleLinks.target(of: "RELAY-W1")?.path == "relay.md#21-relaypacket")
        #expect(RuleLinks.target(of: "PEAT-W3")?.path == "peat.md#22-peatperipheral-section-0xab")
        #expect(RuleLinks.target(of: "NOPE-R1") == nil)
    }

    /// The table in RuleLinks is what the dialect pages say today.
    @Test(arguments: DialectName.allCases)
    func ruleTableMatchesTheDialectPage(_ dialect: DialectName) throws {
        let page = try String(contentsOf: Repository.root.appending(path: "docs/dialects/\(dialect.rawValue).md"), encoding: .utf8)
        let definitions = RuleLinks.definitions(inPage: page)
        #expect(definitions.count > 5)
        for (rule, heading) in definitions {
            let target = RuleLinks.target(of: rule)
            #expect(target?.dialect == dialect && target?.heading == heading,
                    "\(rule) is under \"\(heading)\" in docs/dialects/\(dialect.rawValue).md: update RuleLinks.headings")
            #expect(page.contains("\n" + String(repeating: "#", count: 2) + " " + heading) || page.contains("\n### " + heading))
        }
    }
}

/// Just enough HTML reading for the tests: the page's markup is ours, and every `<` in data
/// is escaped, so a `<` always opens a tag.
enum Page {
    static let rendererTags: Set<String> = [
        "!doctype", "html", "head", "meta", "title", "style", "body", "header", "div", "span", "h1", "dl", "dt", "dd",
        "button", "b", "nav", "input", "main", "details", "summary", "h4", "p", "a", "figure", "figcaption", "svg",
        "line", "g", "rect", "text", "path", "circle", "footer", "pre", "code",
    ]

    static func count(_ s: String, _ needle: String) -> Int { s.components(separatedBy: needle).count - 1 }

    /// Each `<name ...>...</name>` element, outermost first (no nesting of the same name).
    static func elements(_ s: String, _ name: String) -> [String] {
        var found: [String] = []
        var rest = s[...]
        while let start = rest.range(of: "<\(name)")?.lowerBound,
              let end = rest[start...].range(of: "</\(name)>")?.upperBound {
            found.append(String(rest[start..<end]))
            rest = rest[end...]
        }
        return found
    }

    /// The names of the tags opened in `s` (lower case).
    static func tags(_ s: String) -> Set<String> {
        var names: Set<String> = []
        for piece in s.split(separator: "<").dropFirst() where !piece.hasPrefix("/") {
            names.insert(String(piece.prefix { !$0.isWhitespace && $0 != ">" && $0 != "/" }).lowercased())
        }
        return names
    }
}
