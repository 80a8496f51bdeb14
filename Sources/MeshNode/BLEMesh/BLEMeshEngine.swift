import Foundation
import MeshWire

/// The `blemesh` dialect's node rules (docs/dialects/blemesh.md section 3), sans-IO.
struct BLEMeshEngine: DialectEngine {
    // blemesh.md section 5.
    static let maxTTL = 3
    static let controlTTL = 2
    static let retention: Duration = .seconds(300)
    static let dedupCapacity = 4096
    static let maxPending = 64
    static let ackTimeout: Duration = .seconds(10)
    static let rreqTimeout: Duration = .seconds(10)
    static let maxDiscoveries = 64
    /// Seconds from 1970-01-01 to 2001-01-01, for the inner control timestamps (BLEMESH-W4).
    static let epoch2001 = 978_307_200.0

    /// BLEMESH-R5: the key "<id>-<originID>-<sequenceNumber>", kept as the triple it spells.
    struct SeenKey: DedupKey {
        var id: UUID
        var origin: UUID
        var sequence: UInt64
    }

    /// A directed user envelope this node sent and waits to see acked (BLEMESH-R13).
    struct Pending {
        var envelope: MessageEnvelope
        var firstSent: Instant
        var retries: Int
        var timer: TimerID
    }

    private enum TimerPurpose {
        case retry(UUID)
        case discovery(UUID)
    }

    let config: NodeConfig
    private let nodeID: UUID
    private let name: String
    private let epoch: Double
    private var rng: SeededRandom
    private var timers = TimerClock()
    private var scheduler: RelayScheduler<SeenKey, [NodeAction]>
    private var seen: DedupCache<SeenKey, Void>
    private var seenRequests: DedupCache<UUID, Void>
    private var reassembly: LinkReassembly
    private var routes = RouteTable()
    /// link -> neighbour device id, when known (BLEMESH-R1).
    private var links: [LinkID: UUID?] = [:]
    /// link -> the largest value it carries from this node, where the transport limits it
    /// (a notification fits ATT_MTU - 3, BLEMESH-G3).
    private var maxUnits: [LinkID: Int] = [:]
    /// RREQ originID -> ingress link, the reverse route (BLEMESH-R15.2).
    private var reverse: DedupCache<UUID, LinkID>
    private var pending: [UUID: Pending] = [:]
    private var discoveries: [UUID: TimerID] = [:]
    private var purposes: [TimerID: TimerPurpose] = [:]
    private var sequence: UInt64
    private var crashed = false
    private(set) var counters = NodeCounters()

    init(config: NodeConfig, seed: UInt64) {
        self.config = config
        var random = SeededRandom(seed: seed)
        let id = config.address.uuid ?? random.uuid()
        rng = random
        nodeID = id
        name = config.dialectSettings["name"] ?? "Node-\(id.uuidString.prefix(8))"
        epoch = config.dialectSettings["epoch"].flatMap(Double.init) ?? 1_746_230_400
        sequence = config.dialectSettings["sequenceNumber"].flatMap(UInt64.init) ?? 0
        scheduler = RelayScheduler(policy: config.relayPolicy, noJitter: config.faults.contains(.noJitter))
        // Mutants: a cache smaller, or a memory shorter, than BLEMESH-R5's minimum.
        seen = DedupCache(seenBy: config.faults, capacity: Self.dedupCapacity, retention: Self.retention)
        seenRequests = DedupCache(capacity: Self.dedupCapacity, retention: Self.retention)
        reassembly = LinkReassembly(faults: config.faults)
        reverse = DedupCache(capacity: Self.dedupCapacity, retention: Self.retention)
    }

    var stateSize: NodeStateSize {
        var size = NodeStateSize()
        size.dedupEntries = seen.footprint + seenRequests.footprint
        size.scheduledRelays = scheduler.relays
        size.reassemblies = reassembly.count
        size.storedMessages = pending.count
        size.timers = scheduler.count + purposes.count
        size.other = routes.count + reverse.footprint + links.count + maxUnits.count + discoveries.count
        return size
    }

    mutating func handle(_ event: NodeEvent, at now: Instant) -> [NodeAction] {
        guard !crashed else { return [] }
        switch event {
        case .received(let bytes, let link): return receive(bytes, on: link, at: now)
        case .linkUp(let link, let peer, let maxUnit):
            maxUnits[link] = maxUnit
            return linkUp(link, peer: peer?.uuid, at: now)
        case .linkDown(let link): return linkDown(link, at: now)
        case .timer(let id): return timer(id, at: now)
        case .command(.send(let payload, let destination)): return originateUser(payload, to: destination?.uuid, at: now)
        }
    }

    // MARK: time

    private var unixSeconds: (Instant) -> Double { { [epoch] in epoch + $0.seconds } }
    private func envelopeTime(_ now: Instant) -> Int64 { Int64(unixSeconds(now).rounded(.down)) }
    private func innerTime(_ now: Instant) -> Double { unixSeconds(now) - Self.epoch2001 }

    /// BLEMESH-R10: the jitter window by degree.
    private var jitter: JitterWindow {
        switch links.count {
        case ..<3: .milliseconds(10, 50)
        case 3..<5: .milliseconds(20, 60)
        default: .milliseconds(30, 80)
        }
    }

    // MARK: chatty (a positive control)

    /// An ANNOUNCE of its own (BLEMESH-R14) on the links, again and again.
    mutating func chatter(_ occasion: ChatterOccasion, at now: Instant) -> [NodeAction] {
        let announce = PeerAnnounce(deviceID: nodeID, deviceName: name, timestamp: innerTime(now), hopCount: 0)
        return send(newControl(.peerAnnounce(announce), to: nil, ttl: Self.controlTTL, at: now), on: occasion.links.filter { links[$0] != nil }, at: now)
    }

    // MARK: links

    private mutating func linkUp(_ link: LinkID, peer: UUID?, at now: Instant) -> [NodeAction] {
        links[link] = .some(peer)
        // BLEMESH-R18: neighbours have routes of hop count 0.
        if let peer { routes.offer(peer, via: peer, hopCount: 0, hopPath: [peer], at: now) }
        // BLEMESH-R14: ANNOUNCE {own id, name, hopCount 0}, envelope ttl 2, on every link.
        var actions: [NodeAction] = []
        if !config.faults.contains(.noAnnounce) {
            let announce = PeerAnnounce(deviceID: nodeID, deviceName: name, timestamp: innerTime(now), hopCount: 0)
            let envelope = newControl(.peerAnnounce(announce), to: nil, ttl: Self.controlTTL, at: now)
            actions = send(envelope, on: allLinks(), at: now)
        }
        // BLEMESH-R13 store-and-forward: unacked directed messages also go to the newcomer.
        for (_, message) in pending.sorted(by: { $0.value.firstSent < $1.value.firstSent }) where message.envelope.destinationID == peer {
            actions += send(message.envelope, on: [link], at: now)
        }
        return actions
    }

    private mutating func linkDown(_ link: LinkID, at now: Instant) -> [NodeAction] {
        guard let neighbour = links.removeValue(forKey: link) else { return [] }
        maxUnits[link] = nil
        reassembly.drop(link: link)
        guard let lost = neighbour else { return [] }
        // BLEMESH-R17: routes through the lost neighbour go; if any did, RERR on every remaining link.
        let affected = routes.remove(via: lost)
        guard !affected.isEmpty, !links.isEmpty, !config.faults.contains(.noRERR) else { return [] }
        let error = RouteError(errorID: rng.uuid(), unreachableID: lost, reporterID: nodeID, affectedDestinations: affected, timestamp: innerTime(now))
        let envelope = newControl(.routeError(error), to: nil, ttl: Self.controlTTL, at: now)
        return send(envelope, on: allLinks(), at: now)
    }

    private func allLinks() -> [LinkID] { links.keys.sorted() }

    // MARK: originating

    private mutating func nextEnvelope(to destination: UUID?, ttl: Int, control: Bool, payload: [UInt8], at now: Instant) -> MessageEnvelope {
        // BLEMESH-R2: new id, own origin, sequence + 1 (shared by user and control), hopPath [own].
        sequence &+= 1
        let envelope = MessageEnvelope(
            id: rng.uuid(), originID: nodeID, originName: name, destinationID: destination,
            timestamp: envelopeTime(now), sequenceNumber: sequence, ttl: ttl, hopPath: [nodeID],
            isControlMessage: control, payload: payload)
        seen.insert(SeenKey(id: envelope.id, origin: nodeID, sequence: sequence), at: now)
        return envelope
    }

    /// BLEMESH-R12: every control message travels in an envelope with isControlMessage true.
    private mutating func newControl(_ message: ControlMessage, to destination: UUID?, ttl: Int, at now: Instant) -> MessageEnvelope {
        nextEnvelope(to: destination, ttl: ttl, control: true, payload: message.encoded(), at: now)
    }

    private mutating func originateUser(_ payload: [UInt8], to destination: UUID?, at now: Instant) -> [NodeAction] {
        // BLEMESH-R2: user envelopes have ttl 3.
        let envelope = nextEnvelope(to: destination, ttl: Self.maxTTL, control: false, payload: payload, at: now)
        guard let destination else { return send(envelope, on: allLinks(), at: now) }
        var actions = send(envelope, on: directedLinks(for: destination, candidates: allLinks(), at: now), at: now)
        // BLEMESH-R13: keep it for retries while unacked (bounded: the oldest gives way).
        if pending.count >= Self.maxPending, let oldest = pending.min(by: { $0.value.firstSent < $1.value.firstSent }) {
            actions += forget(oldest.key)
        }
        let timer = timers.make()
        pending[envelope.id] = Pending(envelope: envelope, firstSent: now, retries: 0, timer: timer)
        purposes[timer] = .retry(envelope.id)
        actions.append(.setTimer(timer, at: now + retryDelay(0)))
        // BLEMESH-R15: no route and not a neighbour: look for one.
        if routes.use(destination, at: now) == nil, !links.values.contains(destination) {
            actions += discover(destination, at: now)
        }
        return actions
    }

    /// BLEMESH-R13: retry n goes out min(5 s x 2^n + U(0, 5 s), 60 s) after the previous send.
    private mutating func retryDelay(_ n: Int) -> Duration {
        let base = Int64(5_000) << n
        let extra = Int64.random(in: 0...5_000, using: &rng)
        return .milliseconds(min(base + extra, 60_000))
    }

    private mutating func forget(_ id: UUID) -> [NodeAction] {
        guard let message = pending.removeValue(forKey: id) else { return [] }
        purposes[message.timer] = nil
        return [.cancelTimer(message.timer)]
    }

    /// BLEMESH-R15: RREQ on every link; give up after 10 s.
    private mutating func discover(_ destination: UUID, at now: Instant) -> [NodeAction] {
        guard discoveries[destination] == nil, discoveries.count < Self.maxDiscoveries, !links.isEmpty else { return [] }
        let request = RouteRequest(
            requestID: rng.uuid(), originID: nodeID, destinationID: destination, originName: name,
            hopCount: 0, hopPath: [nodeID], timestamp: innerTime(now), ttl: Self.maxTTL)
        _ = rememberRequest(request.requestID, at: now)
        let timer = timers.make()
        discoveries[destination] = timer
        purposes[timer] = .discovery(destination)
        let envelope = newControl(.routeRequest(request), to: nil, ttl: Self.maxTTL, at: now)
        return send(envelope, on: allLinks(), at: now) + [.setTimer(timer, at: now + Self.rreqTimeout)]
    }

    private mutating func timer(_ id: TimerID, at now: Instant) -> [NodeAction] {
        if let actions = scheduler.fire(id) {
            return actions.filter { if case .send(_, let link) = $0 { links[link] != nil } else { true } }
        }
        switch purposes.removeValue(forKey: id) {
        case .discovery(let destination):
            discoveries[destination] = nil   // BLEMESH-R15: gave up
            return []
        case .retry(let messageID):
            guard var message = pending[messageID] else { return [] }
            // BLEMESH-R13: after the third retry and 10 s more, or 300 s after the first send, fail.
            // Mutant retry-forever (app bug 14): each retry is tracked as a new message, so the
            // count and the age start again and the first step's delay repeats.
            let forever = config.faults.contains(.retryForever)
            if forever { message.retries = 0 }
            guard forever || (message.retries < 3 && now - message.firstSent < Self.retention) else {
                pending[messageID] = nil
                return []
            }
            if !forever { message.retries += 1 }
            let timer = timers.make()
            message.timer = timer
            pending[messageID] = message
            purposes[timer] = .retry(messageID)
            // Mutant late-failure (DeliveryService read alone, blemesh.md row 14): the ack timeout is unused; failure waits for the next backoff step.
            let next = message.retries < 3 || config.faults.contains(.lateFailure) ? retryDelay(message.retries) : Self.ackTimeout
            // The same envelope: same id and sequenceNumber.
            let destination = message.envelope.destinationID ?? nodeID
            return send(message.envelope, on: directedLinks(for: destination, candidates: allLinks(), at: now), at: now)
                + [.setTimer(timer, at: now + next)]
        case nil:
            return []
        }
    }

    // MARK: receiving

    private mutating func receive(_ bytes: [UInt8], on link: LinkID, at now: Instant) -> [NodeAction] {
        guard links[link] != nil else { return [] }
        let chunk: MessageChunk
        do {
            chunk = try MessageChunk(decoding: bytes)
        } catch {
            // BLEMESH-R19: a refused value is dropped; the node goes on.
            refuse()
            if config.faults.contains(.crashOnTruncated), error.code == .truncated { crashed = true }
            return []
        }
        // Mutant canonical-only: refuses any encoding but its own (BLEMESH-W5 says accept them).
        if config.faults.contains(.canonicalOnly), chunk.encoded() != bytes {
            refuse()
            return []
        }
        // BLEMESH-R4: per (link, messageID).
        guard let bytes = reassembly.add(chunk, on: link, at: now) else { return [] }
        guard let envelope = try? MessageEnvelope(decoding: bytes),
              !config.faults.contains(.canonicalOnly) || envelope.encoded() == bytes else {   // mutant canonical-only
            refuse()
            return []
        }
        // BLEMESH-R6: a signature is never a reason to refuse. Mutant refuse-signed (app bug 10,
        // 471fcaea): its verification fails on every signed envelope, which it then drops.
        if config.faults.contains(.refuseSigned), envelope.signature != nil {
            refuse()
            return []
        }
        return envelopeReceived(envelope, on: link, at: now)
    }

    private mutating func envelopeReceived(_ envelope: MessageEnvelope, on link: LinkID, at now: Instant) -> [NodeAction] {
        // BLEMESH-R1: the neighbour's id is the last hop of a valid envelope.
        if let last = envelope.hopPath.last, links[link] == .some(nil) {
            links[link] = .some(last)
            routes.offer(last, via: last, hopCount: 0, hopPath: [last], at: now)
        }
        // Mutant dedup-by-origin: one key per origin, so every later envelope is a false duplicate.
        let key = config.faults.contains(.dedupByOrigin)
            ? SeenKey(id: envelope.originID, origin: envelope.originID, sequence: 0)
            : SeenKey(id: envelope.id, origin: envelope.originID, sequence: envelope.sequenceNumber)
        let forMe = envelope.destinationID == nodeID
        if !envelope.isControlMessage {
            counters.copiesReceived += 1
            if seen.contains(key, at: now) { counters.duplicateCopies += 1 }
        }
        // BLEMESH-R5: checked first; a duplicate is only re-acked (R11) and may cancel a relay (R10).
        if !config.faults.contains(.noDedup), seen.contains(key, at: now) {
            var actions = scheduler.heardAgain(key)
            if forMe, !envelope.isControlMessage, !envelope.isEncrypted, envelope.originID != nodeID {
                if config.faults.contains(.doubleDeliver) { actions.append(.deliver(appMessage(envelope))) }   // mutant
                if !config.faults.contains(.noReack) { actions += ack(envelope, on: link, at: now) }   // mutant: no re-ack
            }
            // Mutant relay-own: its own envelope coming back is relayed again.
            if config.faults.contains(.relayOwn), envelope.originID == nodeID { actions += relay(envelope, from: link, key: key, at: now) }
            return actions
        }
        seen.insert(key, at: now)
        // BLEMESH-R6.1: own envelope echoed (mutant relay-own: handled like any other).
        if envelope.originID == nodeID, !config.faults.contains(.relayOwn) {
            // Mutant deliver-own-origin (app bug 20): only the relay is suppressed.
            let mine = !envelope.isControlMessage && (envelope.destinationID == nil || envelope.destinationID == nodeID)
            return config.faults.contains(.deliverOwnOrigin) && mine ? [.deliver(appMessage(envelope))] : []
        }
        // BLEMESH-R6.7: encrypted envelopes are neither delivered, relayed nor acked.
        guard !envelope.isEncrypted else { return [] }
        if envelope.isControlMessage {
            // BLEMESH-R6.2: directed elsewhere: relay, do not process.
            if let destination = envelope.destinationID, destination != nodeID {
                // Mutants drop-foreign-acks, ack-no-destination (app bug 2): control envelopes are never relayed.
                if config.faults.contains(.dropForeignAcks) || config.faults.contains(.ackNoDestination) { return [] }
                return relay(envelope, from: link, key: key, at: now)
            }
            // BLEMESH-R6.3: ours (or undirected): handle by type, never relay as an envelope.
            guard let control = try? envelope.controlMessage() else {
                refuse()   // BLEMESH-R19
                return []
            }
            return handle(control, in: envelope, on: link, at: now)
        }
        switch envelope.destinationID {
        case nil:
            // BLEMESH-R6.4: deliver and relay as broadcast; never acked (R11).
            var actions: [NodeAction] = [.deliver(appMessage(envelope))]
            if config.faults.contains(.ackBroadcast) { actions += ack(envelope, on: link, at: now) }   // mutant
            return actions + relay(envelope, from: link, key: key, at: now)
        case nodeID:
            // BLEMESH-R6.5: deliver, ack, do not relay (mutant relay-for-me: relays it too).
            let relayed = config.faults.contains(.relayForMe) ? relay(envelope, from: link, key: key, at: now) : []
            return [.deliver(appMessage(envelope))] + ack(envelope, on: link, at: now) + relayed + readReceiptAsUser(envelope, at: now)
        default:
            // BLEMESH-R6.6: relay as directed, do not deliver.
            return relay(envelope, from: link, key: key, at: now)
        }
    }

    private func appMessage(_ envelope: MessageEnvelope) -> AppMessage {
        AppMessage(
            origin: NodeAddress(envelope.originID), destination: envelope.destinationID.map { NodeAddress($0) },
            payload: envelope.payload, messageID: envelope.id.uuidString)
    }

    /// BLEMESH-R11: ACK {messageID, receiverID, timestamp} to the origin, ttl = hopPath count + 1,
    /// on the ingress link, within 1 s (sent at once).
    private mutating func ack(_ envelope: MessageEnvelope, on link: LinkID, at now: Instant) -> [NodeAction] {
        guard !config.faults.contains(.noAck) else { return [] }
        let messageID = config.faults.contains(.ackWrongID) ? rng.uuid() : envelope.id   // mutant: wrong id
        let ack = DeliveryAck(messageID: messageID, receiverID: nodeID, timestamp: innerTime(now))
        let ttl = min(envelope.hopPath.count + 1, 255)
        let destination = config.faults.contains(.ackNoDestination) ? nil : envelope.originID   // mutant: app bug 2
        // Built first: `send(newControl(...))` makes Swift copy self for the outer call before the
        // inner mutation, and every cache (4096 entries) was then copied on write, once per ack.
        let envelope = newControl(.deliveryAck(ack), to: destination, ttl: ttl, at: now)
        return send(envelope, on: [link], at: now)
    }

    /// Mutant read-as-user (app bug 3): the app's user reads the message and its generic
    /// `sendControlMessage` sends the READ receipt in a user envelope (isControlMessage false)
    /// addressed to the origin. BLEMESH-R12 wants a control envelope; the reference node keeps
    /// no read state and sends no READ at all.
    private mutating func readReceiptAsUser(_ envelope: MessageEnvelope, at now: Instant) -> [NodeAction] {
        guard config.faults.contains(.readAsUser) else { return [] }
        let receipt = ReadReceipt(messageID: envelope.id, readerID: nodeID, originalSenderID: envelope.originID, timestamp: innerTime(now))
        let read = nextEnvelope(to: envelope.originID, ttl: Self.maxTTL, control: false, payload: ControlMessage.readReceipt(receipt).encoded(), at: now)
        return send(read, on: directedLinks(for: envelope.originID, candidates: allLinks(), at: now), at: now)
    }

    /// BLEMESH-R19: a refused input changes no state; the crash-on-refused mutant stops instead.
    private mutating func refuse() {
        if config.faults.contains(.crashOnRefused) { crashed = true }
    }

    // MARK: relaying

    /// BLEMESH-R7 to R10.
    private mutating func relay(_ envelope: MessageEnvelope, from ingress: LinkID, key: SeenKey, at now: Instant) -> [NodeAction] {
        // BLEMESH-R7: relay only if ttl > 1; no clamp.
        guard envelope.ttl > 1 || config.faults.contains(.relayTTLOne) else { return [] }
        var relayed = envelope
        if config.faults.contains(.clampTTL) { relayed.ttl = min(relayed.ttl, Self.maxTTL) }   // mutant
        if !config.faults.contains(.noTTLDecrement) { relayed.ttl = max(relayed.ttl - 1, 0) }
        if !config.faults.contains(.noHopPathAppend) { relayed.hopPath.append(nodeID) }
        // BLEMESH-R7: candidates exclude the ingress and every neighbour already on the hop path.
        let onPath = Set(envelope.hopPath)
        let candidates = allLinks().filter { link in
            if link == ingress { return config.faults.contains(.relayToSender) }   // mutant: back to the sender
            if config.faults.contains(.ignoreHopPath) { return true }
            guard let neighbour = links[link] ?? nil else { return true }
            return !onPath.contains(neighbour)
        }
        let targets: [LinkID]
        if config.faults.contains(.floodAcks), envelope.isControlMessage {
            targets = candidates   // mutant: a directed control envelope goes to every candidate
        } else if let destination = envelope.destinationID, !config.faults.contains(.directedAsBroadcast) {
            targets = directedLinks(for: destination, candidates: candidates, at: now)   // BLEMESH-R9
                // Mutant hold-unrouted (app bug 13): with neither neighbour nor route, it waits
                // for the destination to connect and loses the envelope; it never floods it.
                .filter { _ in !config.faults.contains(.holdUnrouted) || routes.use(destination, at: now) != nil || links.values.contains(destination) }
        } else if config.relayPolicy == .dialect {
            targets = fanOut(candidates)   // BLEMESH-R8
        } else {
            // Fan-out is the dialect's way of thinning a flood, as probability and cancellation
            // are seed 000's and none is plain flooding's: another policy replaces it, so the
            // simulator compares the three on the same split-horizon candidates.
            targets = candidates
        }
        let sends = chunkSends(relayed, on: targets)
        // BLEMESH-R10: jitter by degree (mutant late-relay: three times the window's end).
        return scheduler.relay(sends, key: key, degree: links.count, window: jitter.relays(under: config.faults), now: now, rng: &rng, timers: &timers)
    }

    /// BLEMESH-R8: K = ceil(sqrt(N)) + 1 of N candidates, uniformly at random; all when K >= N.
    private mutating func fanOut(_ candidates: [LinkID]) -> [LinkID] {
        let k = Int(Double(candidates.count).squareRoot().rounded(.up)) + (config.faults.contains(.fanOutSqrt) ? 0 : 1)
        guard k < candidates.count else { return candidates }
        return Array(candidates.shuffled(using: &rng).prefix(k)).sorted()
    }

    /// BLEMESH-R9: the destination if it is a candidate neighbour, else a valid route's next hop
    /// if it is a candidate, else every candidate.
    private mutating func directedLinks(for destination: UUID, candidates: [LinkID], at now: Instant) -> [LinkID] {
        if let direct = candidates.first(where: { links[$0] == .some(destination) }) { return [direct] }
        if let route = routes.use(destination, at: now), let next = candidates.first(where: { links[$0] == .some(route.nextHop) }) {
            return [next]
        }
        return candidates
    }

    private func chunkSends(_ envelope: MessageEnvelope, on targets: [LinkID]) -> [NodeAction] {
        // Mutant raw-control (app bug 1): routing control envelopes written as they are, unchunked.
        if config.faults.contains(.rawControl), let kind = try? envelope.controlMessage()?.kind,
           [.peerAnnounce, .routeRequest, .routeReply, .routeError].contains(kind) {
            return targets.map { .send(envelope.encoded(), on: $0) }
        }
        // Links with the same limit get the same chunks: split once per limit.
        var byLimit: [Int?: [[UInt8]]] = [:]
        return targets.flatMap { link in
            let limit = maxUnits[link]
            if byLimit[limit] == nil { byLimit[limit] = chunkUnits(envelope, maxUnit: limit) }
            return byLimit[limit]!.map { NodeAction.send($0, on: link) }
        }
    }

    /// BLEMESH-R3: every envelope chunked, chunks in index order: 162-byte pieces, smaller ones
    /// where a link carries less (BLEMESH-G3: a notification fits ATT_MTU - 3, and the sender
    /// re-chunks for that link rather than truncate). A link on which no chunk fits gets none.
    private func chunkUnits(_ envelope: MessageEnvelope, maxUnit: Int?) -> [[UInt8]] {
        var chunks: [MessageChunk]
        // Mutant chunks-ignore-mtu (app bug 6): the app notifies its ~330-byte chunks at any MTU.
        if let maxUnit, !config.faults.contains(.chunksIgnoreMTU) {
            chunks = Chunker.chunks(of: envelope, fitting: maxUnit) ?? []
        } else {
            chunks = Chunker.chunks(of: envelope)
        }
        if config.faults.contains(.badChunkFlags) { for i in chunks.indices { chunks[i].flags = [] } }   // mutant
        return chunks.map { $0.encoded() }
    }

    /// Sends an envelope this node originates or answers with, at once.
    private func send(_ envelope: MessageEnvelope, on targets: [LinkID], at now: Instant) -> [NodeAction] {
        chunkSends(envelope, on: targets)
    }

    // MARK: control messages

    private mutating func handle(_ control: ControlMessage, in envelope: MessageEnvelope, on link: LinkID, at now: Instant) -> [NodeAction] {
        let neighbour = (links[link] ?? nil) ?? envelope.hopPath.last
        switch control {
        case .deliveryAck(let ack):
            // BLEMESH-R11: an ACK for one of our pending messages marks it delivered.
            guard pending[ack.messageID] != nil, !config.faults.contains(.ignoreOwnAcks) else { return [] }
            return forget(ack.messageID) + [.acknowledged(messageID: ack.messageID.uuidString)]
        case .readReceipt:
            return []   // no read state is kept
        case .peerAnnounce(let announce):
            return announced(announce, neighbour: neighbour, on: link, at: now)
        case .routeRequest(let request):
            return routeRequest(request, neighbour: neighbour, on: link, at: now)
        case .routeReply(let reply):
            return routeReply(reply, neighbour: neighbour, at: now)
        case .routeError(let error):
            // BLEMESH-R17: drop routes via the unreachable node, and routes to the affected
            // destinations via the reporter; not forwarded.
            guard !config.faults.contains(.noRERR) else { return [] }   // mutant
            routes.remove(via: error.unreachableID)
            routes.remove(via: error.reporterID, only: Set(error.affectedDestinations))
            return []
        }
    }

    /// BLEMESH-R14.
    private mutating func announced(_ announce: PeerAnnounce, neighbour: UUID?, on link: LinkID, at now: Instant) -> [NodeAction] {
        guard announce.deviceID != nodeID, !config.faults.contains(.noAnnounce) else { return [] }
        if let neighbour { routes.offer(announce.deviceID, via: neighbour, hopCount: announce.hopCount + 1, at: now) }
        guard announce.hopCount < 2 else { return [] }
        var next = announce
        next.hopCount += 1
        let toSender = config.faults.contains(.relayToSender)   // mutant: back on the ingress too
        let targets = allLinks().filter { ($0 != link || toSender) && links[$0] != .some(announce.deviceID) }
        guard !targets.isEmpty else { return [] }
        let envelope = newControl(.peerAnnounce(next), to: nil, ttl: Self.controlTTL, at: now)
        return scheduler.reply(send(envelope, on: targets, at: now), window: jitter, now: now, rng: &rng, timers: &timers)
    }

    /// BLEMESH-R15.
    private mutating func routeRequest(_ request: RouteRequest, neighbour: UUID?, on link: LinkID, at now: Instant) -> [NodeAction] {
        // 1. seen before: drop (mutant no-dedup: keeps no request ids either).
        guard rememberRequest(request.requestID, at: now) || config.faults.contains(.noDedup) else { return [] }
        // 2. route to the origin via the ingress neighbour, and the reverse route.
        if let neighbour { routes.offer(request.originID, via: neighbour, hopCount: request.hopCount + 1, hopPath: request.hopPath.reversed(), at: now) }
        reverse.update(request.originID, value: link, at: now)
        // 3. for us: RREP on the ingress link (BLEMESH-R16).
        if request.destinationID == nodeID {
            guard !config.faults.contains(.noRREP) else { return [] }   // mutant
            let reply = RouteReply(
                requestID: request.requestID, originID: request.originID, destinationID: nodeID, destinationName: name,
                hopCount: 0, hopPath: request.hopPath.reversed(), timestamp: innerTime(now))
            let envelope = newControl(.routeReply(reply), to: nil, ttl: Self.maxTTL, at: now)
            return send(envelope, on: [link], at: now)
        }
        // 4. (proxy RREP, MAY) not done. 5. forward while hopCount < ttl.
        guard request.hopCount < request.ttl, !config.faults.contains(.noRREQForward) else { return [] }
        var forwarded = request
        forwarded.hopCount += 1
        forwarded.hopPath.append(nodeID)
        let onPath = Set(request.hopPath)
        let toSender = config.faults.contains(.relayToSender)   // mutant: back on the ingress too
        let targets = allLinks().filter { ($0 != link || toSender) && !(links[$0].flatMap { $0 }.map(onPath.contains) ?? false) }
        guard !targets.isEmpty else { return [] }
        let envelope = newControl(.routeRequest(forwarded), to: nil, ttl: max(0, request.ttl - forwarded.hopCount), at: now)
        return scheduler.reply(send(envelope, on: targets, at: now), window: jitter, now: now, rng: &rng, timers: &timers)
    }

    /// BLEMESH-R15.1: records a request id; false when it was seen. Mutant flush-request-ids
    /// (app bug 8): the app's `seenRequestIDs` is emptied at once when it passes 1000 entries.
    private mutating func rememberRequest(_ id: UUID, at now: Instant) -> Bool {
        let new = seenRequests.insert(id, at: now)
        if config.faults.contains(.flushRequestIDs), seenRequests.count > 1000 {
            seenRequests = DedupCache(capacity: Self.dedupCapacity, retention: Self.retention)
        }
        return new
    }

    /// BLEMESH-R16.
    private mutating func routeReply(_ reply: RouteReply, neighbour: UUID?, at now: Instant) -> [NodeAction] {
        if let neighbour { routes.offer(reply.destinationID, via: neighbour, hopCount: reply.hopCount + 1, hopPath: reply.hopPath, at: now) }
        if reply.originID == nodeID {
            // Discovery complete.
            guard let timer = discoveries.removeValue(forKey: reply.destinationID) else { return [] }
            purposes[timer] = nil
            return [.cancelTimer(timer)]
        }
        guard let back = reverse.value(for: reply.originID, at: now), links[back] != nil, !config.faults.contains(.noRREP) else { return [] }
        var forwarded = reply
        forwarded.hopCount += 1
        let envelope = newControl(.routeReply(forwarded), to: nil, ttl: Self.maxTTL, at: now)
        return send(envelope, on: [back], at: now)
    }
}
