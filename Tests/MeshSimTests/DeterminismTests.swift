import MeshNode
import Testing
@testable import MeshSim

@Suite struct DeterminismTests {
    static func probeConfig(seed: UInt64) -> SimConfig {
        let mesh = Topology.geometric(80, radius: Topology.radius(forAverageDegree: 6, nodes: 80), seed: seed,
                                      profile: LinkProfile(loss: 0.15, latency: .milliseconds(8), jitter: .milliseconds(8)))
        return SimConfig(topology: mesh, workload: .random(count: 12, nodes: 80, mode: .broadcast, seed: seed),
                         churn: [ChurnEvent(at: .seconds(1.3), .fail(3)), ChurnEvent(at: .seconds(1.6), .join(3))],
                         seed: seed, settle: .seconds(3))
    }

    static func probeJSON(seed: UInt64) -> String {
        Simulator(config: probeConfig(seed: seed)) { FloodProbe(spec: $0, relayDelay: .milliseconds(Int64($0.index % 7) * 4)) }
            .run().json(includeTiming: false)
    }

    @Test func sameSeedSameMetrics() {
        let first = Self.probeJSON(seed: 42)
        #expect(first == Self.probeJSON(seed: 42))
        #expect(first != Self.probeJSON(seed: 43))
        #expect(!first.contains("wallSeconds"))
    }

    @Test(arguments: DialectName.allCases)
    func sameSeedSameMetricsWithReferenceNodes(dialect: DialectName) {
        func json() -> String {
            Simulator(config: Self.probeConfig(seed: 7), dialect: dialect, policy: .probabilistic).run().json(includeTiming: false)
        }
        #expect(json() == json())
    }

    @Test func eventsAtTheSameInstantRunInSchedulingOrder() {
        var queue = EventQueue()
        for index in 0..<50 { queue.schedule(.inject(message: Int32(index)), at: index % 2 == 0 ? 5 : 3) }
        var order: [Int32] = []
        while let entry = queue.popFirst() {
            if case .inject(let index) = entry.event { order.append(index) }
        }
        #expect(order == (0..<50).filter { $0 % 2 == 1 }.map(Int32.init) + (0..<50).filter { $0 % 2 == 0 }.map(Int32.init))
    }

    @Test func nodeSeedsAreDerivedPerNode() {
        #expect(SimRandom.derive(1, 0) != SimRandom.derive(1, 1))
        #expect(SimRandom.derive(1, 0) != SimRandom.derive(2, 0))
        #expect(SimRandom.derive(1, 5) == SimRandom.derive(1, 5))
        #expect(Set((0..<1000).map { NodeSpec.address(of: $0) }).count == 1000)
    }
}
