import Conformance
import MeshNode
import Testing

/// Issue 13, background traffic: a DUT's own packets (announces, beacons, documents, its own
/// messages and their retries) are never counted as relays or acks of a check's message. The
/// positive-control mutant `chatty` conforms but sends its background traffic on every link-up
/// and every 500 ms: it must PASS every check the reference node passes.
@Suite struct BackgroundTrafficTests {
    static let modes: [(DialectName, Bool)] = DialectName.probed.flatMap { d in [(d, false), (d, true)] }

    @Test(arguments: modes)
    func chattyPassesWhatTheReferenceNodePasses(_ dialect: DialectName, _ persistent: Bool) throws {
        let checks = Runner.select(Catalog.all, dialect: dialect)
        let reference = try Runner(capabilities: .referenceNode(dialect), driver: VirtualDriver(persistent: persistent)).run(checks)
        let chatty = try Runner(capabilities: .referenceNode(dialect), driver: VirtualDriver(faults: [.chatty], persistent: persistent)).run(checks)
        #expect(chatty.map(\.verdict) == reference.map(\.verdict), "\(dialect) persistent \(persistent):\n\(HistoryTests.failures(chatty))")
    }

    /// The control is real: chatty does talk, in every dialect, on link-up and on its period.
    @Test(arguments: DialectName.probed)
    func chattyTalksOnLinkUpAndEvery500ms(_ dialect: DialectName) {
        var node = Node(dialect: dialect, config: NodeConfig(address: VirtualDriver.ownAddress, faults: [.chatty]), seed: 1)
        let onLinkUp = node.handle(.linkUp(LinkID(1), peer: nil), at: .zero)
        #expect(onLinkUp.contains { if case .send(_, LinkID(1)) = $0 { true } else { false } }, "\(dialect): nothing sent on link-up")
        #expect(onLinkUp.contains(.setTimer(Node.chattyTimer, at: .milliseconds(500))), "\(dialect): no 500 ms timer")
        let onTick = node.handle(.timer(Node.chattyTimer), at: .milliseconds(500))
        #expect(onTick.contains { if case .send(_, LinkID(1)) = $0 { true } else { false } }, "\(dialect): nothing sent on the tick")
        #expect(onTick.contains(.setTimer(Node.chattyTimer, at: .milliseconds(1000))))
        // No link, no talk, no timer.
        _ = node.handle(.linkDown(LinkID(1)), at: .milliseconds(600))
        #expect(node.handle(.timer(Node.chattyTimer), at: .milliseconds(1000)).isEmpty)
    }

    /// The reference node announcing as the apps (`meshconform node`): bitchat on each new link
    /// and every 15 s (BITCHAT-R12), camp every 300 s (CAMP-R8); the catalog's verdicts are the
    /// reference node's.
    @Test(arguments: [(DialectName.bitchat, Duration.seconds(15)), (.camp, .seconds(300))])
    func anAnnouncingNodeTalksOnLinkUpAndItsPeriod(_ dialect: DialectName, _ period: Duration) throws {
        var node = Node(dialect: dialect, config: NodeConfig(address: VirtualDriver.ownAddress, announces: true), seed: 1)
        let onLinkUp = node.handle(.linkUp(LinkID(1), peer: nil), at: .zero)
        #expect(onLinkUp.contains { if case .send(_, LinkID(1)) = $0 { true } else { false } }, "\(dialect): nothing sent on link-up")
        #expect(onLinkUp.contains(.setTimer(Node.chattyTimer, at: .zero + period)))
        let onTick = node.handle(.timer(Node.chattyTimer), at: .zero + period)
        #expect(onTick.contains { if case .send(_, LinkID(1)) = $0 { true } else { false } }, "\(dialect): nothing sent on the period")
        let checks = Runner.select(Catalog.all, dialect: dialect)
        let reference = try Runner(capabilities: .referenceNode(dialect), driver: VirtualDriver()).run(checks)
        let announcing = try Runner(capabilities: .referenceNode(dialect), driver: VirtualDriver(announces: true)).run(checks)
        #expect(announcing.map(\.verdict) == reference.map(\.verdict), "\(dialect):\n\(HistoryTests.failures(announcing))")
    }

    /// Where the engine names itself already, or the page has nothing to say, announcing adds nothing.
    @Test(arguments: [DialectName.relay, .blemesh, .simple, .peat])
    func elsewhereAnnouncingChangesNothing(_ dialect: DialectName) {
        var plain = Node(dialect: dialect, config: NodeConfig(address: VirtualDriver.ownAddress), seed: 1)
        var announcing = Node(dialect: dialect, config: NodeConfig(address: VirtualDriver.ownAddress, announces: true), seed: 1)
        #expect(plain.handle(.linkUp(LinkID(1), peer: nil), at: .zero) == announcing.handle(.linkUp(LinkID(1), peer: nil), at: .zero))
    }

    @Test func chattyIsAPositiveControlNotADeviation() {
        #expect(Fault.chatty.isPositiveControl && Fault.chatty.dialects.isEmpty)
        #expect(Fault.allCases.filter(\.isPositiveControl) == [.chatty])
    }
}
