import Testing
@testable import MeshNode

/// A relay waiting for its jitter keeps its sends as actions or, for a relay node's flood, as
/// the packet and the links it had then (`DeferredSends`): both forms send the same.
@Suite struct DeferredSendsTests {
    static let packet: [UInt8] = [0x42, 1, 2, 3]

    @Test func aFloodSendsOnEveryLinkButTheIngressInOrder() {
        var out: [NodeAction] = [.cancelTimer(TimerID(9))]
        DeferredSends.flood(packet: Self.packet, links: [LinkID(1), LinkID(2), LinkID(5)], except: LinkID(2)).append(to: &out)
        #expect(out == [.cancelTimer(TimerID(9)), .send(Self.packet, on: LinkID(1)), .send(Self.packet, on: LinkID(5))])
    }

    @Test func bothFormsLeaveOutLinksNoLongerUp() {
        let links = [LinkID(1), LinkID(3), LinkID(4)]
        let live: (LinkID) -> Bool = { $0 != LinkID(3) }
        var flood: [NodeAction] = [], actions: [NodeAction] = []
        DeferredSends.flood(packet: Self.packet, links: links, except: nil).append(to: &flood, where: live)
        DeferredSends.actions(links.map { .send(Self.packet, on: $0) } + [.setTimer(TimerID(2), at: .zero)]).append(to: &actions, where: live)
        #expect(flood == [.send(Self.packet, on: LinkID(1)), .send(Self.packet, on: LinkID(4))])
        #expect(actions == flood + [.setTimer(TimerID(2), at: .zero)])
    }

    @Test func aFloodOnlyBackToItsIngressIsEmpty() {
        #expect(DeferredSends.flood(packet: Self.packet, links: [LinkID(7)], except: LinkID(7)).isEmpty)
        #expect(!DeferredSends.flood(packet: Self.packet, links: [LinkID(7)], except: nil).isEmpty)
        #expect(DeferredSends.actions([]).isEmpty)
    }
}
