import MeshNode
import Testing
@testable import MeshSim

/// Tiny topologies where every number can be worked out by hand (links: 10 ms, no jitter).
@Suite struct MetricsTests {
    @Test func lineOfThreeImmediateFlood() {
        // 0 -> 1 at 1.000 s (arrives 1.010), 1 delivers and relays to 2 (arrives 1.020);
        // 2 delivers and has no other link, so it sends nothing.
        let m = probeRun(.line(3, profile: exactLink), messages: [broadcast(from: 0)])
        #expect(m.messages == 1)
        #expect(m.expectedDeliveries == 2)
        #expect(m.delivered == 2)
        #expect(m.deliveryRatio == 1)
        #expect(m.transmissions == 2)
        #expect(m.messageTransmissions == 2)
        #expect(m.backgroundTransmissions == 0)
        #expect(m.transmissionsPerMessage == 2)
        #expect(m.receptions == 2)
        #expect(m.duplicatesReceived == 0)
        #expect(m.relaysScheduled == 1)
        #expect(m.relaysImmediate == 1)
        #expect(m.relaysExecuted == 1)
        #expect(m.relaysCancelled == 0)
        #expect(m.latencyP50Ms == 10)
        #expect(m.latencyP99Ms == 20)
        #expect(m.hopsP50 == 1)
        #expect(m.hopsMax == 2)
        #expect(m.hopsMean == 1.5)
        #expect(m.peakNodeState == 1)
        // 3 starts + 1 injection + 2 receptions; handle() calls: linkUp 1 + 2 + 1, command, 2 receptions.
        #expect(m.eventsProcessed == 6)
        #expect(m.nodeEvents == 7)
        #expect(m.misdeliveries == 0 && m.appDuplicates == 0 && m.unknownDeliveries == 0)
    }

    @Test func triangleImmediateFloodCountsDuplicates() {
        // 0 sends to 1 and 2; each relays to the other; each then hears the other's copy again.
        let m = probeRun(.ring(3, profile: exactLink), messages: [broadcast(from: 0)])
        #expect(m.delivered == 2)
        #expect(m.transmissions == 4)
        #expect(m.receptions == 4)
        #expect(m.duplicatesReceived == 2)
        #expect(m.relaysScheduled == 2 && m.relaysExecuted == 2)
        #expect(m.hopsMax == 1)
    }

    @Test func triangleWithJitterCountsCancellation() {
        // Node 1 relays 5 ms after hearing (t 1.010 -> fires 1.015, copy reaches 2 at 1.025);
        // node 2 would relay 30 ms after hearing (1.040) but hears 1's copy at 1.025 and cancels.
        let delays: [Int: Duration] = [1: .milliseconds(5), 2: .milliseconds(30)]
        let m = probeRun(.ring(3, profile: exactLink), messages: [broadcast(from: 0)], relayDelay: { delays[$0] })
        #expect(m.relaysScheduled == 2)
        #expect(m.relaysImmediate == 0)
        #expect(m.relaysExecuted == 1)
        #expect(m.relaysCancelled == 1)
        #expect(m.relaysPending == 0)
        #expect(m.relayExecutionRatio == 0.5)
        #expect(m.transmissions == 3)
        #expect(m.receptions == 3)
        #expect(m.duplicatesReceived == 1)
        #expect(m.delivered == 2)
        #expect(m.latencyP50Ms == 10 && m.latencyP99Ms == 10)
    }

    @Test func relayAccountingAddsUp() {
        let mesh = Topology.geometric(60, radius: 0.25, seed: 5, profile: LinkProfile(loss: 0.2))
        let messages = (0..<10).map { broadcast(from: $0 * 5, at: 1 + Double($0) * 0.05) }
        let m = probeRun(mesh, messages: messages, seed: 9, relayDelay: { _ in .milliseconds(20) })
        #expect(m.relaysScheduled > 0)
        #expect(m.relaysScheduled == m.relaysExecuted + m.relaysCancelled + m.relaysSuppressed + m.relaysDroppedByFailure + m.relaysPending)
        #expect(m.receptions + m.lost + m.mtuDrops + m.sendsOnDownLinks + m.droppedInFlight == m.transmissions)
    }

    @Test func reachabilityLeavesOutRecipientsTheMeshCannotReach() {
        // 0 - 1, and 2 alone: a broadcast from 0 expects 2 deliveries, only 1 reachable.
        let mesh = Topology(name: "pair and one", nodeCount: 3, edges: [Topology.Edge(0, 1, profile: exactLink)])
        let m = probeRun(mesh, messages: [broadcast(from: 0)])
        #expect(m.expectedDeliveries == 2 && m.delivered == 1 && m.deliveryRatio == 0.5)
        #expect(m.reachableDeliveries == 1 && m.reachableDelivered == 1 && m.reachableDeliveryRatio == 1)
    }

    @Test func copiesAreWholeEnvelopesAsTheNodesCountThem() {
        // blemesh triangle, plain flooding: 0's broadcast reaches 1 and 2, and each relays it to
        // the other (split horizon keeps it off 0's link). 4 copies, 2 of them duplicates, each
        // copy several chunks: per transmission, most receptions look like duplicates.
        let config = SimConfig(topology: .ring(3, profile: exactLink), workload: Workload(messages: [broadcast(from: 0)]), seed: 1, settle: .seconds(1))
        let m = Simulator(config: config, dialect: .blemesh, policy: .flood).run()
        #expect(m.copiesReceived == 4 && m.duplicateCopies == 2 && m.duplicateRatio == 0.5)
        #expect(m.messageReceptions > 4 && m.duplicatesReceived > 2)
        #expect(m.delivered == 2)
    }

    @Test func aDroppedEighthLinkIsGoneForBothEndsAndAcksAreCounted() {
        // A relay hub with 8 leaves keeps 7 links (RELAY-R11) and drops the last to come up.
        let edges = (1...8).map { Topology.Edge(0, $0, profile: exactLink) }
        let star = Topology(name: "star", nodeCount: 9, edges: edges)
        let messages = [Workload.Message(time: .seconds(1), origin: 1, destination: 2),
                        Workload.Message(time: .seconds(1.5), origin: 1, destination: 8)]
        let config = SimConfig(topology: star, workload: Workload(messages: messages), seed: 1, settle: .seconds(1))
        let m = Simulator(config: config, dialect: .relay, policy: .flood).run()
        #expect(m.disconnects == 1 && m.edges == 7)
        // 1 -> 2 through the hub, acked back to 1 (RELAY-R7.3); 8 is cut off and not reachable.
        #expect(m.expectedDeliveries == 2 && m.reachableDeliveries == 1 && m.delivered == 1)
        #expect(m.acknowledgements == 1)
    }

    @Test func percentilesAreNearestRank() {
        #expect(percentile([1, 2, 3, 4], 0.5) == 2)
        #expect(percentile([1, 2, 3, 4], 0.99) == 4)
        #expect(percentile([7], 0.5) == 7)
        #expect(percentile([Int](), 0.5) == nil)
    }

    @Test func workloadPayloadRoundTrips() {
        let payload = WorkloadPayload.make(index: 70_000, size: 40)
        #expect(payload.count == 40)
        #expect(WorkloadPayload.index(of: payload) == 70_000)
        #expect(WorkloadPayload.index(of: Array("hello, world".utf8)) == nil)
    }

    @Test func unicastWorkloadNeverTargetsTheOrigin() {
        let workload = Workload.random(count: 500, nodes: 7, mode: .unicast, seed: 4)
        #expect(workload.messages.allSatisfy { $0.destination != nil && $0.destination != $0.origin })
        #expect(Set(workload.messages.map(\.origin)).count == 7)
    }
}
