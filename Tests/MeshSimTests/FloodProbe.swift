import MeshNode
@testable import MeshSim

/// A node small enough to predict by hand, for testing the simulator itself: it forwards each
/// new payload on every link but the one it came in on (at once, or after a fixed relay delay
/// that a duplicate cancels), delivers each new payload once, and records what it is told.
struct FloodProbe: SimNode {
    let index: Int
    let address: NodeAddress
    /// nil: relay at once; otherwise relay this long after first hearing, cancelled if heard again.
    let relayDelay: Duration?
    let log: ProbeLog?
    var links: Set<LinkID> = []
    var seen: Set<[UInt8]> = []
    var pending: [UInt64: (payload: [UInt8], ingress: LinkID)] = [:]
    var timerByPayload: [[UInt8]: UInt64] = [:]
    var nextTimer: UInt64 = 1

    init(spec: NodeSpec, relayDelay: Duration? = nil, log: ProbeLog? = nil) {
        index = spec.index
        address = spec.address
        self.relayDelay = relayDelay
        self.log = log
    }

    mutating func handle(_ event: NodeEvent, at now: Instant) -> [NodeAction] {
        log?.record(index, event, now)
        switch event {
        case .linkUp(let link, _, _):
            links.insert(link)
            return []
        case .linkDown(let link):
            links.remove(link)
            return []
        case .command(.send(let payload, _)):
            seen.insert(payload)
            return links.sorted().map { .send(payload, on: $0) }
        case .received(let bytes, let ingress):
            guard seen.insert(bytes).inserted else {
                if let timer = timerByPayload.removeValue(forKey: bytes) {
                    pending[timer] = nil
                    return [.cancelTimer(TimerID(timer))]
                }
                return []
            }
            let deliver = NodeAction.deliver(AppMessage(origin: address, destination: nil, payload: bytes, messageID: "\(bytes.hashValue)"))
            guard let relayDelay else {
                return [deliver] + links.sorted().filter { $0 != ingress }.map { .send(bytes, on: $0) }
            }
            let timer = nextTimer
            nextTimer += 1
            pending[timer] = (bytes, ingress)
            timerByPayload[bytes] = timer
            return [deliver, .setTimer(TimerID(timer), at: now + relayDelay)]
        case .timer(let id):
            guard let relay = pending.removeValue(forKey: id.raw) else { return [] }
            timerByPayload[relay.payload] = nil
            return links.sorted().filter { $0 != relay.ingress }.map { .send(relay.payload, on: $0) }
        case .command:
            return []
        }
    }

    var stateSize: NodeStateSize {
        var size = NodeStateSize()
        size.dedupEntries = seen.count
        size.scheduledRelays = pending.count
        return size
    }
}

/// Every event each probe handled, with its time.
final class ProbeLog {
    struct Entry {
        var node: Int
        var event: NodeEvent
        var time: Instant
    }
    var entries: [Entry] = []
    func record(_ node: Int, _ event: NodeEvent, _ time: Instant) { entries.append(Entry(node: node, event: event, time: time)) }
    func events(of node: Int) -> [Entry] { entries.filter { $0.node == node } }
}

/// A scenario with `FloodProbe` nodes.
func probeRun(_ topology: Topology, messages: [Workload.Message], payloadSize: Int = 32, churn: [ChurnEvent] = [],
              seed: UInt64 = 1, relayDelay: @escaping (Int) -> Duration? = { _ in nil }, log: ProbeLog? = nil) -> SimMetrics {
    let config = SimConfig(topology: topology, workload: Workload(messages: messages, payloadSize: payloadSize),
                           churn: churn, seed: seed, settle: .seconds(2))
    return Simulator(config: config) { FloodProbe(spec: $0, relayDelay: relayDelay($0.index), log: log) }.run()
}

/// Fixed 10 ms links with no jitter, so times can be checked by hand.
let exactLink = LinkProfile(loss: 0, latency: .milliseconds(10), jitter: .zero, mtu: 512)

func broadcast(from origin: Int, at seconds: Double = 1) -> Workload.Message {
    Workload.Message(time: .seconds(seconds), origin: origin, destination: nil)
}
