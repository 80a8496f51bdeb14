import MeshNode
import Testing
@testable import MeshSim

@Suite struct LinkModelTests {
    @Test func noLossOnAConnectedLineDeliversEverything() {
        let messages = (0..<5).map { broadcast(from: $0 * 2, at: 1 + Double($0)) }
        let m = probeRun(.line(10), messages: messages)
        #expect(m.expectedDeliveries == 45)
        #expect(m.deliveryRatio == 1)
        #expect(m.lost == 0)
    }

    @Test func totalLossDeliversNothing() {
        let m = probeRun(.line(10, profile: LinkProfile(loss: 1)), messages: [broadcast(from: 4)])
        #expect(m.deliveryRatio == 0)
        #expect(m.delivered == 0)
        #expect(m.transmissions == 2)   // the origin's two sends, both lost
        #expect(m.lost == 2)
        #expect(m.receptions == 0)
    }

    @Test func partialLossIsRoughlyTheProbability() {
        // A star of 1 origin and 2000 leaves: each leaf hears the one copy with probability 0.7.
        let edges = (1...2000).map { Topology.Edge(0, $0, profile: LinkProfile(loss: 0.3)) }
        let star = Topology(name: "star", nodeCount: 2001, edges: edges)
        let m = probeRun(star, messages: [broadcast(from: 0)], seed: 11)
        #expect(abs(m.deliveryRatio - 0.7) < 0.04, "delivery \(m.deliveryRatio)")
        #expect(m.lost + m.receptions == 2000)
    }

    @Test func packetsAboveTheMTUAreDroppedAndCounted() {
        let m = probeRun(.line(4, profile: LinkProfile(mtu: 64)), messages: [broadcast(from: 0)], payloadSize: 100)
        #expect(m.mtuDrops == 1)
        #expect(m.transmissions == 1)
        #expect(m.delivered == 0)
        let fits = probeRun(.line(4, profile: LinkProfile(mtu: 100)), messages: [broadcast(from: 0)], payloadSize: 100)
        #expect(fits.mtuDrops == 0 && fits.deliveryRatio == 1)
    }

    @Test func perEdgeMTUFromAnEdgeList() throws {
        // The 1-2 edge carries at most 50 bytes: node 2 and 3 are cut off for 64-byte payloads.
        let mesh = try Topology.edgeList("0 1\n1 2 mtu=50\n2 3\n", profile: exactLink)
        let m = probeRun(mesh, messages: [broadcast(from: 0)], payloadSize: 64)
        #expect(m.mtuDrops == 1)
        #expect(m.delivered == 1)
        #expect(m.expectedDeliveries == 3)
    }

    @Test func aLinkDeliversInOrderWhateverTheJitter() {
        // 40 payloads sent 1 ms apart with 0-50 ms of jitter each: without ordering most
        // would overtake one another; a link (a BLE connection) keeps them in sending order.
        let log = ProbeLog()
        let profile = LinkProfile(latency: .milliseconds(10), jitter: .milliseconds(50))
        let messages = (0..<40).map { broadcast(from: 0, at: 1 + Double($0) / 1000) }
        let m = probeRun(.line(2, profile: profile), messages: messages, log: log)
        let order = log.events(of: 1).compactMap { entry -> Int? in
            guard case .received(let bytes, _) = entry.event else { return nil }
            return WorkloadPayload.index(of: bytes)
        }
        #expect(order == Array(0..<40))
        #expect(m.latencyP99Ms! > m.latencyP50Ms!)   // the jitter is still there
    }

    @Test func latencyAddsUpAlongTheLine() {
        let profile = LinkProfile(latency: .milliseconds(7), jitter: .milliseconds(3))
        let m = probeRun(.line(6, profile: profile), messages: [broadcast(from: 0)])
        let p99 = try! #require(m.latencyP99Ms)
        #expect(p99 >= 35 && p99 <= 50, "5 hops of 7-10 ms: \(p99)")
        #expect(m.hopsMax == 5)
    }
}
