import Foundation

/// Who can hear whom: an undirected graph of nodes `0..<nodeCount`, each edge with its own
/// link profile. Geometric topologies also keep positions and radius, so a node can move.
public struct Topology: Sendable {
    public struct Edge: Hashable, Sendable {
        public var a: Int
        public var b: Int
        public var profile: LinkProfile
        public init(_ a: Int, _ b: Int, profile: LinkProfile = .default) {
            self.a = a
            self.b = b
            self.profile = profile
        }
    }

    public struct Point: Hashable, Sendable {
        public var x: Double
        public var y: Double
        public init(x: Double, y: Double) { self.x = x; self.y = y }
        func distanceSquared(to other: Point) -> Double { (x - other.x) * (x - other.x) + (y - other.y) * (y - other.y) }
    }

    public var name: String
    public var nodeCount: Int
    public var edges: [Edge]
    /// Positions in the unit square, for geometric topologies (nil otherwise).
    public var positions: [Point]?
    /// Radio range of a geometric topology: two nodes are neighbours iff their distance is at most this.
    public var radius: Double?

    public init(name: String, nodeCount: Int, edges: [Edge], positions: [Point]? = nil, radius: Double? = nil) {
        self.name = name
        self.nodeCount = nodeCount
        self.edges = edges
        self.positions = positions
        self.radius = radius
    }

    /// Number of edges at each node.
    public var degrees: [Int] {
        var result = [Int](repeating: 0, count: nodeCount)
        for edge in edges {
            result[edge.a] += 1
            result[edge.b] += 1
        }
        return result
    }

    public var averageDegree: Double { nodeCount == 0 ? 0 : Double(2 * edges.count) / Double(nodeCount) }

    /// Whether every node can reach every other one.
    public var isConnected: Bool {
        guard nodeCount > 1 else { return true }
        var adjacency = [[Int]](repeating: [], count: nodeCount)
        for edge in edges {
            adjacency[edge.a].append(edge.b)
            adjacency[edge.b].append(edge.a)
        }
        var seen = [Bool](repeating: false, count: nodeCount)
        var stack = [0]
        seen[0] = true
        var reached = 1
        while let node = stack.popLast() {
            for next in adjacency[node] where !seen[next] {
                seen[next] = true
                reached += 1
                stack.append(next)
            }
        }
        return reached == nodeCount
    }

    /// Copy with every edge given `profile` (the CLI's --loss and friends).
    public func withProfile(_ profile: LinkProfile) -> Topology {
        var copy = self
        copy.edges = edges.map { Edge($0.a, $0.b, profile: profile) }
        return copy
    }
}

// MARK: - Shapes

extension Topology {
    /// 0 - 1 - 2 - ... - (n-1).
    public static func line(_ n: Int, profile: LinkProfile = .default) -> Topology {
        Topology(name: "line", nodeCount: n, edges: n < 2 ? [] : (0..<(n - 1)).map { Edge($0, $0 + 1, profile: profile) })
    }

    /// A line closed into a cycle (n >= 3; fewer nodes give the line).
    public static func ring(_ n: Int, profile: LinkProfile = .default) -> Topology {
        var topology = line(n, profile: profile)
        topology.name = "ring"
        if n >= 3 { topology.edges.append(Edge(n - 1, 0, profile: profile)) }
        return topology
    }

    /// Row-major grid, `columns` wide (default: ceil(sqrt(n))), 4-neighbour; the last row may be short.
    public static func grid(_ n: Int, columns: Int? = nil, profile: LinkProfile = .default) -> Topology {
        let width = max(1, columns ?? Int(Double(n).squareRoot().rounded(.up)))
        var edges: [Edge] = []
        for node in 0..<n {
            if (node % width) + 1 < width, node + 1 < n { edges.append(Edge(node, node + 1, profile: profile)) }
            if node + width < n { edges.append(Edge(node, node + width, profile: profile)) }
        }
        return Topology(name: "grid", nodeCount: n, edges: edges)
    }

    /// The radius that gives an expected average degree `k` to `n` nodes placed uniformly in
    /// the unit square, ignoring the border: k = (n - 1) * pi * r^2. Nodes near the border
    /// have fewer neighbours, so the measured average comes out somewhat below `k`.
    public static func radius(forAverageDegree k: Double, nodes n: Int) -> Double {
        guard n > 1, k > 0 else { return 0 }
        return (k / (Double(n - 1) * Double.pi)).squareRoot()
    }

    /// `n` nodes uniform in the unit square; an edge between every pair at distance <= `radius`.
    /// Positions come from `seed`, so the same seed gives the same mesh.
    public static func geometric(_ n: Int, radius: Double, seed: UInt64, profile: LinkProfile = .default) -> Topology {
        var random = SimRandom(seed: SimRandom.derive(seed, 0, salt: 0x6E0))
        let positions = (0..<n).map { _ in Point(x: random.unit(), y: random.unit()) }
        return Topology(name: "geometric", nodeCount: n, edges: geometricEdges(positions, radius: radius, profile: profile),
                        positions: positions, radius: radius)
    }

    /// Edges of a unit-disk graph, with a cell grid of side `radius` so only the 9 cells
    /// around a node are compared (linear in n for a fixed degree, not quadratic).
    static func geometricEdges(_ positions: [Point], radius: Double, profile: LinkProfile) -> [Edge] {
        guard radius > 0, positions.count > 1 else { return [] }
        let cellsPerSide = max(1, min(Int(1 / radius), 4096))
        func cell(_ v: Double) -> Int { min(cellsPerSide - 1, max(0, Int(v * Double(cellsPerSide)))) }
        var cells = [[Int]](repeating: [], count: cellsPerSide * cellsPerSide)
        for (index, point) in positions.enumerated() {
            cells[cell(point.y) * cellsPerSide + cell(point.x)].append(index)
        }
        let r2 = radius * radius
        var edges: [Edge] = []
        for (index, point) in positions.enumerated() {
            let cx = cell(point.x), cy = cell(point.y)
            for dy in -1...1 {
                for dx in -1...1 {
                    let x = cx + dx, y = cy + dy
                    guard x >= 0, y >= 0, x < cellsPerSide, y < cellsPerSide else { continue }
                    for other in cells[y * cellsPerSide + x] where other > index && point.distanceSquared(to: positions[other]) <= r2 {
                        edges.append(Edge(index, other, profile: profile))
                    }
                }
            }
        }
        edges.sort { ($0.a, $0.b) < ($1.a, $1.b) }
        return edges
    }
}
