import MeshNode
import Testing
@testable import MeshSim

/// The simulator running the dialect engines, through the `Node` API only. The relay dialect
/// has no broadcast address (relay.md 2.2), so its messages are unicasts that flood the mesh;
/// blemesh broadcasts. Lines are 4 nodes long: 3 hops fit blemesh's user TTL of 3.
@Suite struct ReferenceNodeTests {
    static func messages(_ dialect: DialectName, count: Int = 5) -> [Workload.Message] {
        (0..<count).map { index in
            let origin = index % 2 == 0 ? 0 : 3
            return Workload.Message(time: .seconds(1 + Double(index) * 0.5), origin: origin,
                                    destination: dialect == .relay ? 3 - origin : nil)
        }
    }

    static func run(_ dialect: DialectName, policy: RelayPolicyKind, profile: LinkProfile, nodes: Int = 4) -> SimMetrics {
        let config = SimConfig(topology: .line(nodes, profile: profile), workload: Workload(messages: messages(dialect)),
                               seed: 3, settle: .seconds(5))
        return Simulator(config: config, dialect: dialect, policy: policy).run()
    }

    @Test(arguments: DialectName.allCases, [RelayPolicyKind.flood, .dialect])
    func losslessLineDeliversEverything(dialect: DialectName, policy: RelayPolicyKind) {
        let m = Self.run(dialect, policy: policy, profile: .default)
        #expect(m.expectedDeliveries == (dialect == .relay ? 5 : 15))
        #expect(m.deliveryRatio == 1, "\(m.summary)")
        #expect(m.appDuplicates == 0)
        #expect(m.messageTransmissions > 0)
    }

    @Test(arguments: DialectName.allCases)
    func totalLossDeliversNothing(dialect: DialectName) {
        let m = Self.run(dialect, policy: .flood, profile: LinkProfile(loss: 1))
        #expect(m.delivered == 0)
        #expect(m.receptions == 0)
        #expect(m.lost == m.transmissions)
    }

    @Test(arguments: DialectName.allCases)
    func oversizedTransmissionsAreCounted(dialect: DialectName) {
        // No dialect packet carrying a message fits in 8 bytes.
        let m = Self.run(dialect, policy: .flood, profile: LinkProfile(mtu: 8))
        #expect(m.delivered == 0)
        #expect(m.mtuDrops > 0)
    }
}
