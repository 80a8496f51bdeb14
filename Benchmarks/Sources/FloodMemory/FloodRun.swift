import Foundation
import MeshNode
import MeshWire

/// One node, one dialect, `messages` distinct inputs; checkpoints every 10 %.
struct FloodRun {
    struct Checkpoint {
        var messages: Int
        var state: NodeStateSize
        var residentBytes: Int
        var seconds: Double
    }

    struct Report {
        var table: String
        var failures: [String]
    }

    let dialect: DialectName
    let messages: Int
    private var node: Node
    private var traffic: HostileTraffic
    private var timers = TimerQueue()
    private var now = Instant.zero

    init(dialect: DialectName, messages: Int) {
        self.dialect = dialect
        self.messages = messages
        let me = HostileTraffic.address(0)
        node = Node(dialect: dialect, config: NodeConfig(address: me), seed: 1)
        traffic = HostileTraffic(dialect: dialect, me: me)
    }

    mutating func execute() -> Report {
        for link in 1...3 { apply(node.handle(.linkUp(LinkID(link), peer: HostileTraffic.address(UInt32(link))), at: now)) }
        var checkpoints: [Checkpoint] = []
        var peak = NodeStateSize()
        var peakTotal = 0
        let clock = ContinuousClock()
        let started = clock.now
        let step = max(1, messages / 10)
        for i in 0..<messages {
            now = Instant.milliseconds(Int64(i) + 10)
            while let (id, at) = timers.popDue(before: now) { apply(node.handle(.timer(id), at: at)) }
            for event in traffic.events(i) { apply(node.handle(event, at: now)) }
            let state = node.stateSize
            peak.dedupEntries = max(peak.dedupEntries, state.dedupEntries)
            peak.scheduledRelays = max(peak.scheduledRelays, state.scheduledRelays)
            peak.reassemblies = max(peak.reassemblies, state.reassemblies)
            peak.storedMessages = max(peak.storedMessages, state.storedMessages)
            peak.timers = max(peak.timers, state.timers)
            peak.other = max(peak.other, state.other)
            peakTotal = max(peakTotal, state.total)
            if (i + 1) % step == 0 || i + 1 == messages {
                let elapsed = clock.now - started
                checkpoints.append(Checkpoint(messages: i + 1, state: state, residentBytes: ResidentMemory.bytes(),
                                              seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18))
            }
        }
        return report(checkpoints, peak: peak, peakTotal: peakTotal)
    }

    private mutating func apply(_ actions: [NodeAction]) {
        for action in actions {
            switch action {
            case .setTimer(let id, let at): timers.set(id, at: at)
            case .cancelTimer(let id): timers.cancel(id)
            case .send, .deliver, .disconnect, .acknowledged: break   // the air is not simulated here
            }
        }
    }

    private func report(_ checkpoints: [Checkpoint], peak: NodeStateSize, peakTotal: Int) -> Report {
        var failures: [String] = []
        // Caps: the engines' own bounds (docs/dialects, section 5 / 6, and the reference
        // node's choices). Dedup counts two tables (relay: seen + lastSeq; blemesh: seen +
        // seenRequests), each of 4096 entries; queues hold at most 20 (seed 000) or 1024 relays.
        let caps: [(String, Int, Int)] = [
            ("dedup entries", peak.dedupEntries, 2 * 4096),
            ("scheduled relays", peak.scheduledRelays, 1024),
            ("reassemblies", peak.reassemblies, 64),
            ("stored messages", peak.storedMessages, 64),
        ]
        for (name, value, cap) in caps where value > cap { failures.append("\(name) peaked at \(value), cap \(cap)") }
        let mark = checkpoints[min(1, checkpoints.count - 1)]   // 20 %
        let last = checkpoints[checkpoints.count - 1]
        let laterPeak = checkpoints.dropFirst(2).map(\.state.total).max() ?? 0
        let earlyPeak = checkpoints.prefix(2).map(\.state.total).max() ?? 0
        if laterPeak > max(earlyPeak, peakTotal) { failures.append("state grew after 20 %: \(earlyPeak) -> \(laterPeak) entries") }
        let laterRSS = checkpoints.dropFirst(2).map(\.residentBytes).max() ?? 0
        if laterRSS > mark.residentBytes + rssSlack {
            failures.append("resident memory grew after 20 %: \(mark.residentBytes >> 10) KiB -> \(laterRSS >> 10) KiB")
        }

        var lines = ["\(dialect): \(messages) distinct messages, 1 ms apart, one node with 3 links"]
        lines.append("  messages   state  dedup relays reasm stored timers  other   RSS KiB   wall s")
        for c in checkpoints {
            lines.append(String(format: "  %8d  %6d %6d %6d %5d %6d %6d %6d  %8d  %7.2f", c.messages, c.state.total, c.state.dedupEntries,
                                c.state.scheduledRelays, c.state.reassemblies, c.state.storedMessages, c.state.timers, c.state.other,
                                c.residentBytes >> 10, c.seconds))
        }
        lines.append(String(format: "  peak state %d entries; %.0f messages/s", peakTotal, Double(messages) / max(last.seconds, 1e-9)))
        return Report(table: lines.joined(separator: "\n"), failures: failures)
    }
}
