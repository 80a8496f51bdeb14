import MeshNode
import Testing
@testable import MeshSim

/// A node whose timer ids are fresh (`SimNode.timerIDsAreFresh`) has no record in the
/// simulator's table of timers: each of its timer events is its own record. Every count must
/// come out as with the table. The same reference nodes run twice, as they are and behind a
/// wrapper that makes no such promise, through everything that ends a timer other than its
/// firing: relays cancelled (the probabilistic policy), nodes failing with relays waiting and
/// joining again, and the run's end with relays still waiting.
@Suite struct FreshTimerTests {
    /// The reference node without the promise: the simulator keeps its timers in the table.
    struct TabledNode: SimNode {
        var node: Node
        mutating func handle(_ event: NodeEvent, at now: Instant) -> [NodeAction] { node.handle(event, at: now) }
        var stateSize: NodeStateSize { node.stateSize }
        var counters: NodeCounters { node.counters }
    }

    static func config(seed: UInt64) -> SimConfig {
        let nodes = 60
        let profile = LinkProfile(loss: 0.05, latency: .milliseconds(10), jitter: .milliseconds(5), mtu: 512)
        let mesh = Topology.geometric(nodes, radius: Topology.radius(forAverageDegree: 6, nodes: nodes), seed: seed, profile: profile)
        // 40 messages from 1 s to 1.78 s; eight nodes fail while relays wait and join 50 ms
        // later; the run ends 30 ms after the last message, relays still waiting.
        let workload = Workload.random(count: 40, nodes: nodes, mode: .unicast, interval: .milliseconds(20), payloadSize: 32, seed: seed)
        let churn = (0..<8).flatMap { k in
            [ChurnEvent(at: .seconds(1.01 + 0.1 * Double(k)), .fail(7 * k)), ChurnEvent(at: .seconds(1.06 + 0.1 * Double(k)), .join(7 * k))]
        }
        return SimConfig(topology: mesh, workload: workload, churn: churn, seed: seed, settle: .milliseconds(30))
    }

    @Test(arguments: [RelayPolicyKind.dialect, .probabilistic], [UInt64(1), 2])
    func countsAreThoseOfTheTable(policy: RelayPolicyKind, seed: UInt64) {
        let config = Self.config(seed: seed)
        let makeNode = { (spec: NodeSpec) in
            Node(dialect: .relay, config: NodeConfig(address: spec.address, relayPolicy: policy), seed: spec.seed)
        }
        let fresh = Simulator(config: config, makeNode: makeNode).run()
        let tabled = Simulator(config: config) { TabledNode(node: makeNode($0)) }.run()
        #expect(fresh.json(includeTiming: false) == tabled.json(includeTiming: false))
        // What the comparison is about happened.
        #expect(fresh.relaysDroppedByFailure > 0)
        #expect(fresh.relaysPending > 0)
        if policy == .probabilistic { #expect(fresh.relaysCancelled > 0) }
    }

    @Test func aTimersOwnRecordFitsTheQueuesEntry() {
        // The queue holds hundreds of thousands of entries in a large mesh (`SimEvent`).
        #expect(MemoryLayout<EventQueue.Key>.stride == 48)
    }

    @Test func onlyARelayNodeWithoutBackgroundTrafficPromisesFreshIDs() {
        let address = NodeSpec.address(of: 0)
        #expect(Node(dialect: .relay, config: NodeConfig(address: address), seed: 1).timerIDsAreFresh)
        // The background traffic's timer has one fixed id, set again and again.
        #expect(!Node(dialect: .relay, config: NodeConfig(address: address, faults: [.chatty]), seed: 1).timerIDsAreFresh)
        #expect(!Node(dialect: .blemesh, config: NodeConfig(address: address), seed: 1).timerIDsAreFresh)
    }
}
