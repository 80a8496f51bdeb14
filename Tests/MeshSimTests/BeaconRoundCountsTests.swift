import MeshNode
import Testing
@testable import MeshSim

/// The simulator's speed work (issue 16) must not change what a run does: a small version of
/// docs/performance.md's beacon-round scenario (relay dialect, geometric mesh of degree 8,
/// 100 unicast messages 1 ms apart, the first beacon round) gives exactly the counts it gave
/// before that work. The numbers are those of commit f47424d's
/// `meshconform sim --dialect relay --topology geometric --nodes 120 --messages 100 --interval 1 --settle 2 --seed 1 --json`.
@Suite struct BeaconRoundCountsTests {
    @Test func relayBeaconRoundCountsAreUnchanged() {
        let nodes = 120
        let profile = LinkProfile(loss: 0, latency: .milliseconds(10), jitter: .milliseconds(5), mtu: 512)
        let mesh = Topology.geometric(nodes, radius: Topology.radius(forAverageDegree: 8, nodes: nodes), seed: 1, profile: profile)
        let workload = Workload.random(count: 100, nodes: nodes, mode: .unicast, interval: .milliseconds(1), payloadSize: 32, seed: 1)
        let m = Simulator(config: SimConfig(topology: mesh, workload: workload, seed: 1, settle: .seconds(2)), dialect: .relay).run()
        #expect(m.eventsProcessed == 95_910)
        #expect(m.nodeEvents == 96_618)
        #expect(m.receptions == 78_041)
        #expect(m.transmissions == 78_041)
        #expect(m.messageTransmissions == 35_908)
        #expect(m.backgroundTransmissions == 42_133)
        #expect(m.copiesReceived == 35_005)
        #expect(m.duplicateCopies == 25_785)
        #expect(m.duplicatesReceived == 26_623)
        #expect(m.relaysScheduled == 8_469)
        #expect(m.relaysExecuted == 8_469)
        #expect(m.delivered == 65)
        #expect(m.acknowledgements == 65)
        #expect(m.disconnects == 88)
        #expect(m.edges == 326)
        #expect(m.peakNodeState == 560)
        #expect(m.hopsMax == 8)
        #expect(m.virtualSeconds == 2.641128285)
    }
}
