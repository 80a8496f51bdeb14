import MeshNode
import Testing
@testable import MeshSim

@Suite struct ChurnTests {
    @Test func aFailedNodeNeitherReceivesNorSends() {
        // 0 - 1 - 2; node 1 fails at 0.5 s, before a broadcast from 0 at 1 s.
        let log = ProbeLog()
        let m = probeRun(.line(3, profile: exactLink), messages: [broadcast(from: 0)],
                         churn: [ChurnEvent(at: .seconds(0.5), .fail(1))], log: log)
        #expect(log.events(of: 1).allSatisfy { $0.time < .seconds(0.5) })
        // Its neighbours were told its links went down.
        #expect(log.events(of: 0).contains { $0.event == .linkDown(LinkID(0)) })
        #expect(log.events(of: 2).contains { $0.event == .linkDown(LinkID(0)) })
        #expect(m.expectedDeliveries == 1)   // node 2 only: node 1 is down at injection
        #expect(m.delivered == 0)
        #expect(m.transmissions == 0)        // node 0 has no live link left
    }

    @Test func packetsInFlightToAFailingNodeAreDropped() {
        // The copy to node 1 leaves at 1.000 s and would arrive at 1.010; node 1 fails at 1.005.
        let log = ProbeLog()
        let m = probeRun(.line(3, profile: exactLink), messages: [broadcast(from: 0)],
                         churn: [ChurnEvent(at: .seconds(1.005), .fail(1))], log: log)
        #expect(m.droppedInFlight == 1)
        #expect(m.receptions == 0)
        #expect(!log.events(of: 1).contains { if case .received = $0.event { true } else { false } })
    }

    @Test func aFailedNodeDoesNotSendItsScheduledRelays() {
        // Node 1 hears at 1.010 and would relay at 1.060; it fails at 1.030.
        let m = probeRun(.line(3, profile: exactLink), messages: [broadcast(from: 0)],
                         churn: [ChurnEvent(at: .seconds(1.03), .fail(1))], relayDelay: { _ in .milliseconds(50) })
        #expect(m.relaysScheduled == 1)
        #expect(m.relaysDroppedByFailure == 1)
        #expect(m.relaysExecuted == 0)
        #expect(m.transmissions == 1)
        #expect(m.delivered == 1)   // node 1 got it before failing; node 2 never does
    }

    @Test func aJoiningNodeComesBackFreshWithItsLinks() {
        let log = ProbeLog()
        let m = probeRun(.line(3, profile: exactLink), messages: [broadcast(from: 0, at: 1), broadcast(from: 0, at: 3)],
                         churn: [ChurnEvent(at: .seconds(0.5), .fail(1)), ChurnEvent(at: .seconds(2), .join(1))], log: log)
        // First message: nobody reachable; second: both.
        #expect(m.expectedDeliveries == 1 + 2)
        #expect(m.reachableDeliveries == 0 + 2)   // worked out again after the join
        #expect(m.delivered == 2)
        let rejoin = log.events(of: 1).filter { $0.time == .seconds(2) }.map(\.event)
        #expect(rejoin == [.linkUp(LinkID(0), peer: NodeSpec.address(of: 0)), .linkUp(LinkID(1), peer: NodeSpec.address(of: 2))])
        #expect(log.events(of: 0).contains { $0.time == .seconds(2) && $0.event == .linkUp(LinkID(0), peer: NodeSpec.address(of: 1)) })
    }

    @Test func aMovingNodeChangesItsLinks() {
        // Geometric, radius 0.3: 0 at x 0.1, 1 at x 0.3, 2 at x 0.9. Node 2 moves next to 1.
        let positions = [Topology.Point(x: 0.1, y: 0.5), Topology.Point(x: 0.3, y: 0.5), Topology.Point(x: 0.9, y: 0.5)]
        let mesh = Topology(name: "geometric", nodeCount: 3,
                            edges: Topology.geometricEdges(positions, radius: 0.3, profile: exactLink),
                            positions: positions, radius: 0.3)
        #expect(mesh.edges.map { [$0.a, $0.b] } == [[0, 1]])
        let log = ProbeLog()
        let m = probeRun(mesh, messages: [broadcast(from: 0, at: 1), broadcast(from: 0, at: 3)],
                         churn: [ChurnEvent(at: .seconds(2), .move(2, to: Topology.Point(x: 0.5, y: 0.5)))], log: log)
        #expect(log.events(of: 2).contains { $0.event == .linkUp(LinkID(0), peer: NodeSpec.address(of: 1)) })
        #expect(m.expectedDeliveries == 4)
        #expect(m.reachableDeliveries == 1 + 2)   // and again after the move
        #expect(m.delivered == 3)   // node 2 misses the first message only
        // Moving away again takes the link down on both ends.
        let log2 = ProbeLog()
        _ = probeRun(mesh, messages: [], churn: [ChurnEvent(at: .seconds(1), .move(1, to: Topology.Point(x: 0.9, y: 0.9)))], log: log2)
        #expect(log2.events(of: 0).contains { $0.event == .linkDown(LinkID(0)) })
        #expect(log2.events(of: 1).contains { $0.event == .linkDown(LinkID(0)) })
    }
}
