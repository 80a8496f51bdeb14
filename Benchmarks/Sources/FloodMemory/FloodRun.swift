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
        /// Largest total up to the 20 % mark, and after it: a leak shows as growth between them.
        var peakBeforeMark = 0, peakAfterMark = 0
        let mark = messages / 5
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
            if i < mark { peakBeforeMark = max(peakBeforeMark, state.total) } else { peakAfterMark = max(peakAfterMark, state.total) }
            if (i + 1) % step == 0 || i + 1 == messages {
                let elapsed = clock.now - started
                checkpoints.append(Checkpoint(messages: i + 1, state: state, residentBytes: ResidentMemory.bytes(),
                                              seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18))
            }
        }
        return report(checkpoints, peak: peak, peakTotal: peakTotal, before: peakBeforeMark, after: peakAfterMark)
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

    private func report(_ checkpoints: [Checkpoint], peak: NodeStateSize, peakTotal: Int, before: Int, after: Int) -> Report {
        var failures: [String] = []
        // Caps: the engines' own bounds (docs/dialects, timing and size sections, and the
        // reference node's choices). Dedup is two tables of 4096 (relay: seen + lastSeq;
        // blemesh: seen + seenRequests); relays wait at most 1024 (20 under seed 000's policy),
        // replies another 1024; 64 reassemblies, 64 stored messages. Other: relay ack routes
        // (4096) + acks forwarded in the last second (1024) + links + session keys (256); blemesh routes (1024) + reverse routes (4096)
        // + links + discoveries (64).
        // bitchat and simple: links only (their caches are counted as dedup entries, bitchat's
        // fragment assemblies, at most 128, as reassemblies). peat: links + the document's counter
        // and ack entries, each at least 5 of the 512 bytes the document must fit in, and one
        // timer for the document period.
        let otherCap = switch dialect {
        case .relay: 4096 + 1024 + 8 + 256
        case .blemesh: 1024 + 4096 + 8 + 64
        case .peat: 8 + 512 / 5
        default: 8
        }
        let timerCap = 2 * 1024 + (dialect == .relay || dialect == .peat ? 1 : 64 + 64)
        let caps: [(String, Int, Int)] = [
            ("dedup entries", peak.dedupEntries, 2 * 4096),
            ("scheduled relays", peak.scheduledRelays, 1024),
            ("reassemblies", peak.reassemblies, dialect == .bitchat ? 128 : 64),
            ("stored messages", peak.storedMessages, 64),
            ("timers", peak.timers, timerCap),
            ("other", peak.other, otherCap),
        ]
        for (name, value, cap) in caps where value > cap { failures.append("\(name) peaked at \(value), cap \(cap)") }
        // Every table is full well before 20 % of a million (the largest holds 4096 entries),
        // so after that the total may move within what it already reached, plus 5 % for the
        // ones that refill in bursts (session keys, retries), and no more.
        if after > before + before / 20 { failures.append("state grew after 20 %: peak \(before) before, \(after) after") }
        let markRSS = checkpoints[min(1, checkpoints.count - 1)].residentBytes
        let laterRSS = checkpoints.dropFirst(2).map(\.residentBytes).max() ?? 0
        if laterRSS > markRSS + rssSlack {
            failures.append("resident memory grew after 20 %: \(markRSS >> 10) KiB -> \(laterRSS >> 10) KiB")
        }
        let last = checkpoints[checkpoints.count - 1]

        var lines = ["\(dialect): \(messages) distinct messages, 1 ms apart, one node with 3 links"]
        lines.append("  messages   state  dedup relays reasm stored timers  other   RSS KiB   wall s")
        for c in checkpoints {
            lines.append(String(format: "  %8d  %6d %6d %6d %5d %6d %6d %6d  %8d  %7.2f", c.messages, c.state.total, c.state.dedupEntries,
                                c.state.scheduledRelays, c.state.reassemblies, c.state.storedMessages, c.state.timers, c.state.other,
                                c.residentBytes >> 10, c.seconds))
        }
        lines.append(String(format: "  peak state %d entries (%d before the 20 %% mark, %d after); %.0f messages/s",
                            peakTotal, before, after, Double(messages) / max(last.seconds, 1e-9)))
        return Report(table: lines.joined(separator: "\n"), failures: failures)
    }
}
