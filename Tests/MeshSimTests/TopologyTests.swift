import Testing
@testable import MeshSim

@Suite struct TopologyTests {
    @Test func lineDegrees() {
        let line = Topology.line(5)
        #expect(line.degrees == [1, 2, 2, 2, 1])
        #expect(line.edges.count == 4)
        #expect(line.isConnected)
        #expect(Topology.line(1).edges.isEmpty)
    }

    @Test func ringDegrees() {
        let ring = Topology.ring(6)
        #expect(ring.degrees == Array(repeating: 2, count: 6))
        #expect(ring.edges.count == 6)
        #expect(ring.isConnected)
    }

    @Test func gridDegrees() {
        // 3 x 3: corners 2, border middles 3, centre 4.
        let grid = Topology.grid(9)
        #expect(grid.degrees == [2, 3, 2, 3, 4, 3, 2, 3, 2])
        #expect(grid.edges.count == 12)
        // 10 nodes: 4 wide, the last row holds 2.
        let ragged = Topology.grid(10)
        #expect(ragged.degrees == [2, 3, 3, 2, 3, 4, 3, 2, 2, 2])
        #expect(ragged.isConnected)
    }

    @Test func geometricFollowsTheRadiusRule() {
        let radius = 0.15
        let mesh = Topology.geometric(300, radius: radius, seed: 7)
        let positions = try! #require(mesh.positions)
        var expected = Set<[Int]>()
        for a in 0..<300 {
            for b in (a + 1)..<300 where positions[a].distanceSquared(to: positions[b]) <= radius * radius {
                expected.insert([a, b])
            }
        }
        #expect(Set(mesh.edges.map { [$0.a, $0.b] }) == expected)
        #expect(mesh.radius == radius)
        // Same seed, same mesh; another seed, another one.
        #expect(Topology.geometric(300, radius: radius, seed: 7).edges == mesh.edges)
        #expect(Topology.geometric(300, radius: radius, seed: 8).edges != mesh.edges)
    }

    @Test func radiusFromTargetDegree() {
        let k = 8.0, n = 4000
        let r = Topology.radius(forAverageDegree: k, nodes: n)
        #expect(abs(Double(n - 1) * Double.pi * r * r - k) < 1e-9)
        // Border nodes have fewer neighbours: the measured average is a little below k.
        let measured = Topology.geometric(n, radius: r, seed: 3).averageDegree
        #expect(measured > 0.85 * k && measured <= k * 1.02, "average degree \(measured)")
    }

    @Test func edgeListParsing() throws {
        let text = """
            # a triangle with a tail
            0 1
            1 2   loss=0.25 latency=20 jitter=0 mtu=100
            2 0   # closes it

            2 3
            nodes 6
            """
        let mesh = try Topology.edgeList(text)
        #expect(mesh.nodeCount == 6)
        #expect(mesh.edges.map { [$0.a, $0.b] } == [[0, 1], [1, 2], [2, 0], [2, 3]])
        #expect(mesh.degrees == [2, 2, 3, 1, 0, 0])
        let special = mesh.edges[1].profile
        #expect(special.loss == 0.25 && special.latency == .milliseconds(20) && special.jitter == .zero && special.mtu == 100)
        #expect(mesh.edges[0].profile == .default)
    }

    @Test(arguments: [
        ("0 1\n7\n", 2, "expected `a b`"),
        ("0 1\n1 1\n", 2, "self-loop"),
        ("0 1\n1 0\n", 2, "listed twice"),
        ("# x\n0 1 speed=3\n", 2, "unknown key"),
        ("0 1 loss=2\n", 1, "probability"),
        ("-1 2\n", 1, "start at 0"),
        ("a b\n", 1, "expected `a b`"),
    ])
    func edgeListErrors(text: String, line: Int, reason: String) {
        #expect {
            _ = try Topology.edgeList(text)
        } throws: { error in
            guard let error = error as? EdgeListError else { return false }
            return error.line == line && error.reason.contains(reason)
        }
    }

    @Test func declaredNodeCountTooSmall() {
        #expect(throws: EdgeListError.self) { _ = try Topology.edgeList("nodes 2\n0 5\n") }
    }
}
