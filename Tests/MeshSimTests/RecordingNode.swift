import MeshNode
@testable import MeshSim

/// A reference node that also writes down, for the property tests, what the simulator's
/// metrics only count: every packet it sent and received with its link, each link's peer,
/// the links it dropped, what it delivered, and the largest state it ever held. The tests
/// decode the packets themselves; the simulator never does.
struct RecordingNode: SimNode {
    var node: Node
    let index: Int
    let transcript: Transcript

    mutating func handle(_ event: NodeEvent, at now: Instant) -> [NodeAction] {
        let actions = node.handle(event, at: now)
        transcript.record(index, event, actions, node.stateSize)
        return actions
    }

    var stateSize: NodeStateSize { node.stateSize }
    var counters: NodeCounters { node.counters }
}

/// Everything the `RecordingNode`s of one run wrote down.
final class Transcript {
    struct Packet {
        var node: Int
        var link: LinkID
        var bytes: [UInt8]
    }

    let nodeCount: Int
    private let indexOf: [NodeAddress: Int]
    private(set) var sent: [Packet] = []
    private(set) var received: [Packet] = []
    /// (message index, node) for every `.deliver`, in order.
    private(set) var deliveries: [(message: Int, node: Int)] = []
    /// Per node: link -> peer node, from `.linkUp`.
    private(set) var peers: [[LinkID: Int]]
    /// Per node: links that went down or that the node dropped itself.
    private(set) var lost: [Set<LinkID>]
    /// The largest value of each `NodeStateSize` field at any node after any event.
    private(set) var peak = NodeStateSize()
    private(set) var peakTotal = 0

    init(nodeCount: Int) {
        self.nodeCount = nodeCount
        indexOf = Dictionary(uniqueKeysWithValues: (0..<nodeCount).map { (NodeSpec.address(of: $0), $0) })
        peers = Array(repeating: [:], count: nodeCount)
        lost = Array(repeating: [], count: nodeCount)
    }

    func record(_ v: Int, _ event: NodeEvent, _ actions: [NodeAction], _ state: NodeStateSize) {
        switch event {
        case .linkUp(let link, let peer, _):
            if let peer, let u = indexOf[peer] { peers[v][link] = u }
            lost[v].remove(link)
        case .linkDown(let link): lost[v].insert(link)
        case .received(let bytes, let link): received.append(Packet(node: v, link: link, bytes: bytes))
        case .timer, .command: break
        }
        for action in actions {
            switch action {
            case .send(let bytes, let link): sent.append(Packet(node: v, link: link, bytes: bytes))
            case .deliver(let message):
                if let index = WorkloadPayload.index(of: message.payload) { deliveries.append((index, v)) }
            case .disconnect(let link): lost[v].insert(link)
            case .setTimer, .cancelTimer, .acknowledged: break
            }
        }
        peak.dedupEntries = max(peak.dedupEntries, state.dedupEntries)
        peak.scheduledRelays = max(peak.scheduledRelays, state.scheduledRelays)
        peak.reassemblies = max(peak.reassemblies, state.reassemblies)
        peak.storedMessages = max(peak.storedMessages, state.storedMessages)
        peak.timers = max(peak.timers, state.timers)
        peak.other = max(peak.other, state.other)
        peakTotal = max(peakTotal, state.total)
    }

    /// The links both ends kept: each end saw the link come up and neither dropped it.
    /// (RELAY-R11 thins the topology's edges; the simulator's graph does not show that.)
    var usableAdjacency: [[Int]] {
        var adjacency = [[Int]](repeating: [], count: nodeCount)
        for v in 0..<nodeCount {
            for (link, u) in peers[v] where !lost[v].contains(link) {
                let back = peers[u].contains { $0.value == v && !lost[u].contains($0.key) }
                if back { adjacency[v].append(u) }
            }
        }
        return adjacency
    }

    /// Hop distances from `origin` over `adjacency` (-1: unreachable).
    static func distances(from origin: Int, _ adjacency: [[Int]]) -> [Int] {
        var distance = [Int](repeating: -1, count: adjacency.count)
        distance[origin] = 0
        var queue = [origin], head = 0
        while head < queue.count {
            let v = queue[head]
            head += 1
            for u in adjacency[v] where distance[u] < 0 {
                distance[u] = distance[v] + 1
                queue.append(u)
            }
        }
        return distance
    }
}
