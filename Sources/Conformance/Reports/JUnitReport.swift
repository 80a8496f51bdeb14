/// JUnit XML as CI systems read it (Jenkins, GitLab, GitHub test reporters): one testsuite per
/// dialect, one testcase per check. FAIL is a `<failure>`, ERROR an `<error>`, NA and INCONC
/// are `<skipped>` with the reason; the evidence goes in the element text.
public enum JUnitReport {
    public static func render(_ report: RunReport) -> String {
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"meshconform\" tests=\"\(report.results.count)\" failures=\"\(report.count(.fail))\" errors=\"\(report.count(.error))\" skipped=\"\(report.count(.notApplicable) + report.count(.inconclusive))\" time=\"\(seconds(report.wallSeconds))\">\n"
        for section in report.sections {
            let rs = section.results
            let dialect = section.capabilities.dialect.rawValue
            xml += "  <testsuite name=\"meshconform.\(dialect)\" tests=\"\(rs.count)\" failures=\"\(rs.filter { $0.verdict == .fail }.count)\" errors=\"\(rs.filter { $0.verdict == .error }.count)\" skipped=\"\(rs.filter { $0.verdict == .notApplicable || $0.verdict == .inconclusive }.count)\" time=\"\(seconds(rs.map(\.wallSeconds).reduce(0, +)))\">\n"
            xml += "    <properties><property name=\"dut\" value=\"\(escape(report.dut))\"/><property name=\"seed\" value=\"\(report.seed)\"/></properties>\n"
            for r in rs {
                xml += "    <testcase classname=\"meshconform.\(dialect).\(r.id.prefix { $0 != "/" })\" name=\"\(escape(r.id)) \(escape(r.purpose))\" time=\"\(seconds(r.wallSeconds))\""
                switch r.verdict {
                case .pass:
                    xml += "/>\n"
                case .fail, .error:
                    let tag = r.verdict == .fail ? "failure" : "error"
                    xml += ">\n      <\(tag) message=\"\(escape(r.reason ?? r.verdict.rawValue))\" type=\"\(r.verdict.rawValue)\">\(escape(details(r)))</\(tag)>\n    </testcase>\n"
                case .notApplicable, .inconclusive:
                    xml += ">\n      <skipped message=\"\(escape("\(r.verdict.rawValue): \(r.reason ?? "")"))\"/>\n    </testcase>\n"
                }
            }
            xml += "  </testsuite>\n"
        }
        return xml + "</testsuites>\n"
    }

    static func details(_ r: CheckResult) -> String {
        var lines: [String] = []
        if let v = r.expected { lines.append("expected: \(v)") }
        if let v = r.seen { lines.append("seen:     \(v)") }
        lines.append("evidence:")
        lines += r.evidence.map { "  " + $0.line }
        return lines.joined(separator: "\n")
    }

    static func seconds(_ s: Double) -> String { String(format: "%.3f", s) }

    static func escape(_ s: String) -> String { Markup.escape(s) }
}
