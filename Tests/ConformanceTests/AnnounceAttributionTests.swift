import Conformance
import MeshNode
import Testing

/// RTE/BV-03 judges the ANNOUNCE of the link-up it made, not the DUT's announces for links of
/// its own: a phone also connects to other devices, and announces on every link each time
/// (BLEMESH-R14). Against the example DUT on the air such an announce once made the check FAIL.
@Suite struct AnnounceAttributionTests {
    static let check = Catalog.all.first { $0.id == "RTE/BV-03" }!

    static func verdict(_ driver: OtherLinkUpDriver) -> CheckResult {
        Runner(capabilities: .referenceNode(.blemesh), driver: driver).run(check)
    }

    /// 300 ms after each tester link, the DUT's own connection to another device comes up: a
    /// second announcement on the testers' links, which is not this check's.
    @Test func anotherLinkUpsAnnounceIsNotJudged() {
        let result = Self.verdict(OtherLinkUpDriver(newLinkOnly: false))
        #expect(result.verdict == .pass, "\(result.reason ?? "") \(result.seen ?? "")")
    }

    /// A DUT that announces a link-up on the new link alone FAILs, though another link-up's
    /// announcement reaches the old link in the same window.
    @Test func anotherLinkUpsAnnounceDoesNotStandInForTheMissingOne() {
        let result = Self.verdict(OtherLinkUpDriver(newLinkOnly: true))
        #expect(result.verdict == .fail && result.reason == "the ANNOUNCE for T2's link-up did not go on every link",
                "\(result.verdict) \(result.reason ?? "")")
    }

    /// The mutants that do not announce (or write the ANNOUNCE raw, which receivers drop) FAIL:
    /// the raw one on the wire rule its undecodable unit breaks, the check's finding kept.
    @Test(arguments: [Fault.noAnnounce, .rawControl])
    func silentMutantsFail(_ fault: Fault) {
        let result = Runner(capabilities: .referenceNode(.blemesh), driver: VirtualDriver(faults: [fault])).run(Self.check)
        #expect(result.verdict == .fail && result.reason?.hasSuffix("no ANNOUNCE on the new link when T1 linked up") == true, "\(result.reason ?? "")")
        #expect(result.failedRule == (fault == .rawControl ? "BLEMESH-W1" : nil))
    }
}

/// The reference node, as a device with connections of its own: `otherLinkAfter` each link
/// the check brings up, a link the tester does not see (`hidden`) comes up and goes down again,
/// and the node announces on every link for it. With `newLinkOnly`, the node's announcement for
/// a tester's link-up reaches that new link alone (a DUT breaking BLEMESH-R14).
final class OtherLinkUpDriver: DUTDriver, @unchecked Sendable {
    let newLinkOnly: Bool
    static let hidden = LinkID(9)
    static let otherLinkAfter: Duration = .milliseconds(300)

    init(newLinkOnly: Bool) { self.newLinkOnly = newLinkOnly }

    var name: String { "reference node with links of its own" }

    func start(_ setup: DUTSetup) throws -> any DUTSession {
        Session(inner: try VirtualDriver().start(setup), newLinkOnly: newLinkOnly)
    }

    final class Session: DUTSession {
        let inner: any DUTSession
        let newLinkOnly: Bool
        /// Tester link-ups, with when they came: their announcements are filtered by `newLinkOnly`.
        var linkUps: [(link: LinkID, at: Instant)] = []
        var otherLinkUps: [Instant] = []

        init(inner: any DUTSession, newLinkOnly: Bool) {
            self.inner = inner
            self.newLinkOnly = newLinkOnly
        }

        var now: Instant { inner.now }

        func apply(_ event: NodeEvent) throws {
            if case .linkUp(let link, _, _) = event {
                linkUps.append((link, inner.now))
                otherLinkUps.append(inner.now + OtherLinkUpDriver.otherLinkAfter)
            }
            try inner.apply(event)
        }

        func wait(until deadline: Instant) throws -> [DUTOutput] {
            var outputs: [DUTOutput] = []
            while let at = otherLinkUps.first, at <= deadline {
                otherLinkUps.removeFirst()
                outputs += try inner.wait(until: at)
                try inner.apply(.linkUp(OtherLinkUpDriver.hidden, peer: nil))
                try inner.apply(.linkDown(OtherLinkUpDriver.hidden))
            }
            outputs += try inner.wait(until: deadline)
            return outputs.filter { output in
                guard case .sent(_, let link) = output.kind else { return true }
                if link == OtherLinkUpDriver.hidden { return false }
                return !(newLinkOnly && linkUps.contains { $0.at == output.at && $0.link != link })
            }
        }

        func close() -> String? { inner.close() }
    }
}
