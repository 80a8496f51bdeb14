import MeshNode

/// The report a person reads (`--html FILE`): one self-contained page, no network, with the
/// run's summary, filters by verdict, group and dialect, and per check its purpose, rules
/// (linked to the dialect page), verdict, expected vs seen, and a message sequence chart of
/// its evidence (SequenceChart). Everything that came from the DUT is untrusted: every text
/// goes through `escape`, and the script reads data back only through `textContent`.
public enum HTMLReport {
    /// Options that do not come from the run.
    public struct Style: Sendable {
        /// Where docs/dialects/ is, as a URL prefix ending in `/`; rule links append `relay.md#...`.
        public var dialectPages: String
        /// At most this many units per chart: the first ones and the last ones, with a note in between.
        public var unitLimit: Int

        public init(dialectPages: String = "docs/dialects/", unitLimit: Int = 200) {
            self.dialectPages = dialectPages
            self.unitLimit = unitLimit
        }
    }

    public static func render(_ report: RunReport, style: Style = Style(), catalog: [Check] = Catalog.all) -> String {
        let checks = Dictionary(catalog.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let results = report.results
        let groups = CatalogDocument.groups(catalog).map(\.name).filter { g in results.contains { group(of: $0) == g } }
            + Set(results.map(group(of:))).subtracting(catalog.map(\.group)).sorted()
        let dialects = report.sections.map(\.capabilities.dialect.rawValue)
        let failed = report.exitStatus != 0

        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>meshconform: \(escape(report.dut)): \(failed ? "FAILED" : "passed")</title>
            <style>\(css)</style>
            </head>
            <body>
            <header class="run \(failed ? "failed" : "passed")">
            <div class="banner"><span class="outcome">\(failed ? "FAILED" : "PASSED")</span>
            <h1>meshconform conformance report</h1></div>
            <dl class="facts">
            <div><dt>DUT</dt><dd>\(escape(report.dut))</dd></div>
            <div><dt>dialects</dt><dd>\(escape(dialects.joined(separator: ", ")))</dd></div>
            <div><dt>seed</dt><dd>\(report.seed)</dd></div>
            <div><dt>checks</dt><dd>\(results.count)</dd></div>
            <div><dt>wall time</dt><dd>\(seconds(report.wallSeconds))</dd></div>
            </dl>
            <div class="tiles">

            """
        for v in Verdict.allCases {
            html += "<button class=\"tile v-\(cls(v))\" data-filter=\"verdict\" data-value=\"\(v.rawValue)\" title=\"show only \(v.rawValue)\"><b>\(report.count(v))</b><span>\(v.rawValue)</span></button>\n"
        }
        html += "</div>\n<div class=\"bars\">\n"
        for section in report.sections {
            html += bar(section)
        }
        html += "</div>\n"
        let problems = results.filter { $0.verdict == .fail || $0.verdict == .error }
        if !problems.isEmpty {
            let title = problems.contains { $0.verdict == .error } ? "FAIL or ERROR" : "Failed"
            html += "<div class=\"problems\"><span class=\"problems-title\">\(title) (\(problems.count))</span>\n"
            var links = 0
            for section in report.sections {
                let failed = section.results.filter { $0.verdict == .fail || $0.verdict == .error }
                guard !failed.isEmpty, links < maxProblemLinks else { continue }
                html += "<span class=\"pgroup\"><b>\(escape(section.capabilities.dialect.rawValue))</b> "
                html += failed.prefix(maxProblemLinks - links).map { r in
                    "<a href=\"#\(anchor(r))\" class=\"v-\(cls(r.verdict))\">\(escape(r.id))</a>"
                }.joined(separator: " ")
                links += min(failed.count, maxProblemLinks - links)
                html += "</span>\n"
            }
            if problems.count > links { html += "<span>and \(problems.count - links) more</span>" }
            html += "</div>\n"
        }
        html += "</header>\n<nav class=\"filters\" aria-label=\"filters\">\n"
        html += chips("verdict", Verdict.allCases.filter { report.count($0) > 0 }.map { ($0.rawValue, $0.rawValue, "v-" + cls($0)) })
        html += chips("group", groups.map { ($0, $0, "") })
        if dialects.count > 1 { html += chips("dialect", dialects.map { ($0, $0, "") }) }
        html += """
            <span class="chipset"><input type="search" id="search" placeholder="id or words" aria-label="search checks">
            <button class="act" id="expand">open all</button><button class="act" id="collapse">close all</button>
            <span id="shown"></span></span>
            </nav>
            <main>
            <div class="head row"><span>verdict</span><span>check</span><span>dialect</span><span>purpose</span><span>rules</span><span class="num">units</span><span class="num">time</span></div>

            """
        for r in results { html += row(r, check: checks[r.id], style: style) }
        html += """
            </main>
            <footer>Generated by meshconform. Units are the bytes exchanged with the DUT on each tester link; hover one for its bytes in hex. The JSON report (<code>--json</code>) holds every unit of every check.</footer>
            <div id="tip" role="tooltip" hidden><div class="tip-head"></div><div class="tip-sum"></div><pre class="tip-hex"></pre></div>
            <script>\(script)</script>
            </body>
            </html>

            """
        return html
    }

    /// Links to failed checks in the header, at most.
    static let maxProblemLinks = 80

    // MARK: pieces

    static func bar(_ section: RunReport.Section) -> String {
        let rs = section.results
        var html = "<div class=\"bar-row\"><span class=\"bar-name\">\(escape(section.capabilities.dialect.rawValue))</span><span class=\"bar\">"
        for v in Verdict.allCases {
            let n = rs.filter { $0.verdict == v }.count
            if n > 0 { html += "<span class=\"seg v-\(cls(v))\" style=\"flex-grow:\(n)\" title=\"\(n) \(v.rawValue)\">\(n)</span>" }
        }
        let fails = rs.filter { $0.verdict == .fail }.count
        return html + "</span><span class=\"bar-note\">\(rs.count) checks\(fails > 0 ? ", \(fails) failed" : "")</span></div>\n"
    }

    static func chips(_ name: String, _ values: [(value: String, label: String, cls: String)]) -> String {
        guard !values.isEmpty else { return "" }
        var html = "<span class=\"chipset\" data-name=\"\(name)\"><span class=\"chips-label\">\(name)</span>"
        for v in values {
            html += "<button class=\"chip \(v.cls)\" data-filter=\"\(name)\" data-value=\"\(escape(v.value))\" aria-pressed=\"false\">\(escape(v.label))</button>"
        }
        return html + "</span>\n"
    }

    /// One check: a `<details>` whose summary is its row; open when it FAILed.
    static func row(_ r: CheckResult, check: Check?, style: Style) -> String {
        let rules = (check?.rules ?? []).filter { $0.hasPrefix(r.dialect.rawValue.uppercased() + "-") }
        let units = r.evidence.filter { $0.bytes != nil }.count
        var html = "<details class=\"check v-\(cls(r.verdict))\" id=\"\(anchor(r))\" data-verdict=\"\(r.verdict.rawValue)\" data-group=\"\(escape(group(of: r)))\" data-dialect=\"\(r.dialect.rawValue)\"\(r.verdict == .fail ? " open" : "")>\n"
        html += "<summary class=\"row\"><span class=\"badge v-\(cls(r.verdict))\">\(r.verdict.rawValue)</span>"
        html += "<span class=\"id\">\(escape(r.id))</span><span class=\"dialect\">\(r.dialect.rawValue)</span>"
        html += "<span class=\"purpose\">\(escape(r.purpose))"
        if let reason = r.reason, r.verdict != .pass { html += "<span class=\"reason\">\(escape(reason))</span>" }
        html += "</span><span class=\"rules\">\(rules.map { ruleLink($0, style: style) }.joined(separator: " "))</span>"
        html += "<span class=\"num\">\(units)</span><span class=\"num\">\(seconds(r.wallSeconds))</span></summary>\n"
        html += "<div class=\"body\">\n"
        if r.expected != nil || r.seen != nil {
            html += "<div class=\"verdict-detail\"><div class=\"expected\"><h4>expected</h4><p>\(escape(r.expected ?? ""))</p></div>"
            html += "<div class=\"seen\"><h4>seen</h4><p>\(escape(r.seen ?? ""))</p></div></div>\n"
        }
        if !rules.isEmpty {
            html += "<p class=\"rule-list\">Rules: " + rules.map { rule in
                let section = RuleLinks.target(of: rule).map { " (\($0.dialect.rawValue).md, \(escape($0.title)))" } ?? ""
                return ruleLink(rule, style: style) + section
            }.joined(separator: "; ") + "</p>\n"
        } else if let cited = check?.rules, !cited.isEmpty {
            html += "<p class=\"rule-list\">The check cites no \(r.dialect.rawValue) rule; for other dialects: "
            html += cited.map { ruleLink($0, style: style) }.joined(separator: " ") + "</p>\n"
        }
        if r.evidence.isEmpty {
            html += "<p class=\"none\">No units exchanged.</p>\n"
        } else {
            html += SequenceChart(r.evidence, limit: style.unitLimit, seen: SeenUnits(r.verdict == .fail ? r.seen : nil)).svg
        }
        return html + "</div>\n</details>\n"
    }

    static func ruleLink(_ rule: String, style: Style) -> String {
        guard let target = RuleLinks.target(of: rule) else { return "<span class=\"rule\">\(escape(rule))</span>" }
        return "<a class=\"rule\" href=\"\(escape(style.dialectPages + target.path))\" title=\"\(escape("docs/dialects/\(target.dialect.rawValue).md, section \(target.title)"))\">\(escape(rule))</a>"
    }

    /// `c-relay--DDP-BV-01`: an id attribute made only of letters, digits and `-`.
    static func anchor(_ r: CheckResult) -> String {
        "c-" + String((r.dialect.rawValue + "--" + r.id).map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "-" })
    }

    static func group(of r: CheckResult) -> String { String(r.id.prefix { $0 != "/" }) }

    static func cls(_ v: Verdict) -> String { v.rawValue.lowercased() }

    static func seconds(_ s: Double) -> String {
        s < 1 ? "\(Int((s * 1000).rounded())) ms" : s < 100 ? String(format: "%.2f s", s) : String(format: "%.0f s", s)
    }

    static func escape(_ s: String) -> String { Markup.escape(s) }
}
