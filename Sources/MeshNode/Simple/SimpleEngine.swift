import Foundation
import MeshWire

/// The `simple` dialect's node rules (docs/dialects/simple.md section 3): seed 000's
/// RelayController, MessageDeduplicator and RelayScheduler, sans-IO.
struct SimpleEngine: DialectEngine {
    // simple.md section 6.
    static let defaultTTL: UInt8 = 5
    /// SIMPLE-R5: a node with more than `highDegreeThreshold` links caps TTLs at this.
    static let denseTTLCap: UInt8 = 3
    static let highDegreeThreshold = 4
    static let jitter = JitterWindow.milliseconds(10, 100)
    static let retention: Duration = .seconds(300)
    static let dedupCapacity = 1000
    static let maxScheduledRelays = 20
    /// Seconds from 1970 to 2001-01-01, Foundation's reference date.
    static let referenceDate = 978_307_200.0

    let config: NodeConfig
    /// The node's name on the wire (`sender`, `originalSender`, `lastRelay`).
    let name: String
    private var rng: SeededRandom
    private var timers = TimerClock()
    private var scheduler: RelayScheduler<String, [NodeAction]>
    private var seen: DedupCache<String, Void>
    private var links: EngineLinks
    private let epoch: Double
    private(set) var counters = NodeCounters()

    init(config: NodeConfig, seed: UInt64) {
        self.config = config
        name = config.dialectSettings["name"] ?? config.address.description
        rng = SeededRandom(seed: seed)
        // The dialect's own relay rule is seed 000's probabilistic policy (SIMPLE-R6 to R8).
        var policy = config.relayPolicy == .dialect ? RelayPolicyKind.probabilistic : config.relayPolicy
        if config.faults.contains(.noCancel) { policy = .dialect }   // mutant: jitter, but never cancels
        scheduler = RelayScheduler(policy: policy, noJitter: config.faults.contains(.noJitter))
        seen = DedupCache(seenBy: config.faults, capacity: Self.dedupCapacity, retention: Self.retention)
        links = EngineLinks(faults: config.faults)
        epoch = config.dialectSettings["epoch"].flatMap(Double.init) ?? 1_746_230_400
    }

    var stateSize: NodeStateSize {
        var size = NodeStateSize()
        size.dedupEntries = seen.footprint
        size.scheduledRelays = scheduler.relays
        size.timers = scheduler.count
        size.other = links.count
        return size
    }

    mutating func handle(_ event: NodeEvent, at now: Instant) -> [NodeAction] {
        guard !links.crashed else { return [] }
        switch event {
        case .received(let bytes, let link): return receive(bytes, on: link, at: now)
        case .linkUp(let link, _, _):
            links.insert(link)
            return []
        case .linkDown(let link):
            links.remove(link)
            return []
        case .timer(let id): return (scheduler.fire(id) ?? []).filter(links.isLive)
        case .command(.send(let payload, let destination)): return originate(payload, to: destination, at: now)
        }
    }

    /// SIMPLE-R5: a node with more than 4 links caps what it originates or relays at 3.
    private var isDense: Bool { links.count > Self.highDegreeThreshold && !config.faults.contains(.noDenseCap) }

    /// SIMPLE-R2 / R5: 5 hops, 3 where this node is dense.
    private var originTTL: UInt8 { isDense ? Self.denseTTLCap : Self.defaultTTL }

    /// chatty (a positive control): simple has no announce or beacon (SIMPLE-R2): a node
    /// talks by its own messages, so chatty broadcasts one of its own on every occasion.
    mutating func chatter(_ occasion: ChatterOccasion, at now: Instant) -> [NodeAction] {
        originate(Array("meshconform chatty".utf8), to: nil, at: now)
    }

    private mutating func originate(_ payload: [UInt8], to destination: NodeAddress?, at now: Instant) -> [NodeAction] {
        // SIMPLE-R2: broadcast only; the content is text, so the payload must be UTF-8.
        guard destination == nil, let content = String(validating: payload, as: UTF8.self) else {
            links.decline()
            return []
        }
        let message = SimpleMessage(id: rng.uuid().uuidString, sender: name, content: content,
                                    timestamp: epoch - Self.referenceDate + now.seconds, ttl: originTTL, originalSender: name)
        let bytes = message.encoded()
        guard bytes.count <= SimpleMessage.maxSize else {
            links.decline()
            return []
        }
        // SIMPLE-R3: marked seen first, so its own message coming back is a duplicate.
        seen.insert(message.dedupKey, at: now)
        return links.sendAll([bytes], except: nil)
    }

    private mutating func receive(_ bytes: [UInt8], on link: LinkID, at now: Instant) -> [NodeAction] {
        guard links.contains(link) else { return [] }
        let message: SimpleMessage
        do {
            message = try SimpleMessage(decoding: bytes)
        } catch {
            links.refuse(error)
            return []
        }
        counters.copiesReceived += 1
        let key = message.dedupKey
        // SIMPLE-R3 / R8: a duplicate is dropped and cancels this node's scheduled relay of it.
        if seen.contains(key, at: now) {
            counters.duplicateCopies += 1
            if !config.faults.contains(.noDedup) {
                let cancel = scheduler.heardAgain(key)
                return config.faults.contains(.doubleDeliver) ? [.deliver(appMessage(message))] + cancel : cancel
            }
        }
        // SIMPLE-R4.1: never relay its own.
        if message.originalSender == name, !config.faults.contains(.relayOwn) { return [] }
        seen.insert(key, at: now)
        return [.deliver(appMessage(message))] + relay(message, on: link, at: now)
    }

    private func appMessage(_ m: SimpleMessage) -> AppMessage {
        let origin = UUID(uuidString: m.originalSender).map { NodeAddress($0) } ?? NodeAddress(bytes: Array(m.originalSender.utf8))
        return AppMessage(origin: origin, destination: nil, payload: Array(m.content.utf8), messageID: m.id)
    }

    /// SIMPLE-R4 to R8: a relay copy (ttl - 1 under the cap, relayCount + 1, isRelayed,
    /// lastRelay = us) to every other link, with the degree's probability, after the jitter.
    private mutating func relay(_ message: SimpleMessage, on link: LinkID, at now: Instant) -> [NodeAction] {
        guard message.ttl > 1 || config.faults.contains(.relayTTLOne) else { return [] }
        var copy = message
        // SIMPLE-R4.3 then R5: one less, capped only on a dense node (a sparse one carries a
        // TTL above the default as received).
        if !config.faults.contains(.noTTLDecrement) { copy.ttl = message.ttl == 0 ? 0 : message.ttl - 1 }
        if isDense { copy.ttl = min(copy.ttl, Self.denseTTLCap) }
        if !config.faults.contains(.noRelayFields) {
            copy.relayCount = message.relayCount == Int.max ? Int.max : message.relayCount + 1
            copy.isRelayed = true
            copy.lastRelay = name
        }
        let bytes = copy.encoded()
        guard bytes.count <= SimpleMessage.maxSize else {   // SIMPLE-G3: one write, never more
            links.refuse()
            return []
        }
        let sends = links.sendAll([bytes], except: config.faults.contains(.relayToSender) ? nil : link)
        let degree = config.faults.contains(.flatProbability) ? 0 : links.count
        return scheduler.relay(sends, key: message.dedupKey, degree: degree, window: Self.jitter.relays(under: config.faults), now: now, rng: &rng, timers: &timers)
    }
}
