import Conformance
import Foundation
import Testing

/// Over the air the report says how many links each tester adapter gave and why not more
/// (docs/radio.md, "Several identities per adapter"), in the text summary and in the JSON.
@Suite struct TesterLinksReportTests {
    static let links = [
        TesterLinks(adapter: "tcp:127.0.0.1:7001", identities: 6, links: 6,
                    note: "extended advertising (240 advertising sets); 6 simultaneous link(s) to the DUT measured"),
        TesterLinks(adapter: "tcp:127.0.0.1:7002", identities: 1, links: 1,
                    note: "no LE extended advertising: a legacy controller has one random address, so one identity"),
    ]

    static func report(_ testerLinks: [TesterLinks]) -> RunReport {
        let result = CheckResult(id: "RLY/BV-14", purpose: "fans out", dialect: .blemesh, verdict: .notApplicable,
                                 reason: "needs 6 links at once; maxLinks is 2 (tester links per adapter: ...)")
        return RunReport(dut: "GATT device", seed: 1, sections: [.init(capabilities: Capabilities(dialect: .blemesh), results: [result])],
                         wallSeconds: 1, testerLinks: testerLinks)
    }

    @Test func textSummaryNamesEachAdaptersLinksBeforeTheCounts() {
        let lines = TextReport.summary(Self.report(Self.links)).split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines[0] == "tester tcp:127.0.0.1:7001: 6 links to the DUT (extended advertising (240 advertising sets); 6 simultaneous link(s) to the DUT measured)")
        #expect(lines[1].hasPrefix("tester tcp:127.0.0.1:7002: 1 link to the DUT (no LE extended advertising"))
        // The dialect's counts stay the line before the last (scripts read `tail -2 | head -1`).
        #expect(lines[2].hasPrefix("blemesh: 1 checks,") && lines[3].hasPrefix("DUT: "))
        #expect(!TextReport.summary(Self.report([])).contains("tester "))
    }

    @Test func jsonCarriesTesterLinks() throws {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(JSONReport.render(Self.report(Self.links)))) as? [String: Any])
        let testers = try #require(json["testerLinks"] as? [[String: Any]])
        #expect(testers.count == 2)
        #expect(testers[0]["adapter"] as? String == "tcp:127.0.0.1:7001" && testers[0]["links"] as? Int == 6 && testers[0]["identities"] as? Int == 6)
        #expect((testers[1]["note"] as? String)?.contains("legacy controller") == true && testers[1]["links"] as? Int == 1)
    }
}
