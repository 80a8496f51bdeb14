import CMemoryHints
import Foundation
import MeshWire

/// The `relay` dialect's node rules (docs/dialects/relay.md section 3), sans-IO.
struct RelayEngine: DialectEngine {
    // relay.md section 6.
    static let defaultTTL: UInt8 = 8
    static let jitter = JitterWindow.milliseconds(0, 100)
    static let beaconPeriod: Duration = .seconds(2)
    static let retention: Duration = .seconds(300)
    /// RELAY-R7.2: how long a forwarded ack is not forwarded again on the same link.
    static let ackForwardHold: Duration = .seconds(1)
    /// Forwarded acks remembered for the hold; under a flood the oldest go first (the hold
    /// then ends early for them, which costs at most a duplicate ack).
    static let forwardedAckCapacity = 1024
    static let dedupCapacity = 4096
    static let maxNeighbours = 7
    static let maxPacket = 512
    /// Frames this node originated and keeps for retransmission (RELAY-R8), at most.
    static let maxOutstanding = 64

    enum SeenKey: DedupKey {
        case frame(origin: UUID, seq: UInt64)
        case beacon(origin: UUID, seqNo: UInt32)

        /// Looked up on every reception: the origin's bytes and the number, mixed once.
        func tableHash(_ seeds: TableHash.Seeds) -> Int {
            switch self {
            case .frame(let origin, let seq):
                let (a, b) = TableHash.words(origin)
                return TableHash.mix(a, b ^ seq, seeds)
            case .beacon(let origin, let seqNo):
                return Self.beaconHash(origin: TableHash.words(origin), seqNo: seqNo, seeds)
            }
        }

        /// A beacon key's `tableHash` from the origin's two words (what the loads ahead have).
        static func beaconHash(origin: (UInt64, UInt64), seqNo: UInt32, _ seeds: TableHash.Seeds) -> Int {
            TableHash.mix(origin.0 ^ 1, origin.1 ^ UInt64(seqNo), seeds)
        }
    }

    /// What every relay and reply of this dialect sends: one packet on several links (a relay,
    /// on the links up when it was scheduled but its ingress; an ack, on one). Kept so while it
    /// waits for its jitter rather than as its send actions: 57 bytes instead of an array of
    /// seven actions (200), and a 10,000-node beacon round holds tens of thousands waiting.
    /// `links` is the engine's array of links at the time, shared, not copied. A class: a
    /// scheduled entry holding more than one reference is copied and destroyed through generic
    /// value witnesses (measured: 10 % more instructions).
    final class Fanout: ScheduledSends {
        /// A relayed beacon waits as the beacon and is encoded when it goes out: its packet is
        /// then new memory, still in the cache when each send retains it, where a packet made
        /// when the relay was queued (up to 100 ms before, in a large mesh thousands of events)
        /// was a miss to retain; and a waiting relay holds 24 bytes, not a 128-byte packet.
        enum Payload {
            case packet([UInt8])
            case beacon(Beacon)
        }

        let payload: Payload
        let links: [LinkID]
        let except: LinkID?

        init(_ payload: Payload, links: [LinkID], except: LinkID? = nil) {
            self.payload = payload
            self.links = links
            self.except = except
        }

        convenience init(packet: [UInt8], links: [LinkID], except: LinkID? = nil) {
            self.init(.packet(packet), links: links, except: except)
        }

        var isEmpty: Bool { !links.contains { $0 != except } }

        /// The packet to send (a beacon's encoded at each call).
        var packet: [UInt8] {
            switch payload {
            case .packet(let packet): packet
            case .beacon(let beacon): RelayPacket.beacon(beacon).encoded()
            }
        }

        func append(to actions: inout [NodeAction]) { RelayEngine.sendAll(packet, on: links, except: except, appendingTo: &actions) }
    }

    /// A frame this node originated, kept until acked or 300 s old (RELAY-R8).
    struct Outstanding {
        var packet: [UInt8]
        var created: Instant
    }

    // What a received packet reads first, together at the start of the engine: in a simulated
    // mesh of thousands of nodes each handled event touches a different node, and every cache
    // line of the engine it reads is a miss. A duplicate beacon, most of what a node hears,
    // reads the fields up to `seen` and its `seen` entry, nothing else; a new one those up to
    // `counters` (about 480 bytes, what the simulator loads ahead).
    /// What the node holds, counted after every event that may change it (`countState()`).
    private(set) var stateSize = NodeStateSize()
    /// Set by a path that returns having changed nothing (a duplicate, a packet on a link not
    /// ours), so `handle` need not count the state again.
    private var stateUnchanged = false
    /// Set by a path that changes only the de-dup caches and the scheduler (a beacon heard, a
    /// relay gone out), so `handle` counts only those again: `countState()` reads fields past
    /// the lines the simulator loads ahead (the beacon timer, the ack tables, two dictionaries'
    /// storage), a wait of its own on most events of a large mesh.
    private var onlyQueuesChanged = false
    private var crashed = false
    /// The links up, ascending (at most 7, RELAY-R11): a sorted array, so relaying to all of
    /// them needs no sort and no hashing.
    private var links: [LinkID] = []
    let nodeID: UUID
    private let faults: Faults
    /// RELAY-R3's message cache. Keys alone: acks find their way back through `ackRoutes`, so
    /// nothing read later is recorded with a key (an ingress link kept here was never read).
    private var seen: DedupCache<SeenKey, Void>
    /// RELAY-R10.2: the last seqNo of each beacon origin (a new beacon reads it).
    private var lastSeq: DedupCache<UUID, UInt32>
    private var scheduler: RelayScheduler<SeenKey, Fanout>
    private var rng: SeededRandom
    private var timers = TimerClock()
    private(set) var counters = NodeCounters()

    let config: NodeConfig
    private var keyring: RelayKeyring
    /// seq -> ingress links of the frames with that seq this node relayed (RELAY-R7.2).
    private var ackRoutes: DedupCache<UInt64, [LinkID]>
    /// (seq, link) of acks forwarded in the last second: an ack is forwarded once per link, so
    /// it cannot circle when frames of different origins share a seq (RELAY-R7.2).
    private var forwardedAcks: DedupCache<ForwardedAck, Void>
    private var outstanding: [UInt64: Outstanding] = [:]
    private var beaconTimer: TimerID?
    private var beaconSeqNo: UInt32 = 0
    private var lastOwnSeq: UInt64 = 0
    /// Wall-clock seconds since 1970 at `Instant.zero`, for `seq` (setting `epoch`).
    private let epoch: Double
    /// Inputs refused by a decoder or dropped as nonsense (RELAY-R12).
    private(set) var dropped = 0

    init(config: NodeConfig, seed: UInt64) {
        self.config = config
        keyring = RelayKeyring(config: config)
        nodeID = keyring.nodeID
        faults = Faults(config.faults)
        rng = SeededRandom(seed: seed)
        scheduler = RelayScheduler(policy: config.relayPolicy, noJitter: faults.contains(.noJitter))
        // Mutants: a cache smaller, or a memory shorter, than RELAY-R3's minimum.
        seen = DedupCache(seenBy: config.faults, capacity: Self.dedupCapacity, retention: Self.retention)
        ackRoutes = DedupCache(capacity: Self.dedupCapacity, retention: Self.retention)
        forwardedAcks = DedupCache(capacity: Self.forwardedAckCapacity, retention: Self.ackForwardHold)
        lastSeq = DedupCache(capacity: Self.dedupCapacity, retention: Self.retention)
        epoch = config.dialectSettings["epoch"].flatMap(Double.init) ?? 1_746_230_400
        stateSize = countState()
    }

    private func countState() -> NodeStateSize {
        var size = NodeStateSize()
        size.dedupEntries = seen.footprint + lastSeq.footprint
        size.scheduledRelays = scheduler.relays
        size.storedMessages = outstanding.count
        size.timers = scheduler.count + (beaconTimer == nil ? 0 : 1)
        size.other = ackRoutes.footprint + forwardedAcks.footprint + links.count + keyring.sessionCount
        return size
    }

    mutating func handle(_ event: NodeEvent, at now: Instant) -> [NodeAction] {
        var actions: [NodeAction] = []
        handle(event, at: now, appendingTo: &actions)
        return actions
    }

    /// `handle(_:at:)` appending to the caller's array (`Node.handle(_:at:appendingTo:)`): the
    /// paths most events of a mesh take (a beacon heard, a relay's timer) append in place.
    mutating func handle(_ event: NodeEvent, at now: Instant, appendingTo actions: inout [NodeAction]) {
        guard !crashed else { return }
        let waiting = scheduler.count
        switch event {
        case .received(let bytes, let link): receive(bytes, on: link, at: now, appendingTo: &actions)
        case .linkUp(let link, _, _): actions.appendAll(linkUp(link, at: now))
        case .linkDown(let link): links.removeAll { $0 == link }
        case .timer(let id): timer(id, at: now, appendingTo: &actions)
        case .command(.send(let payload, let destination)): actions.appendAll(originate(payload, to: destination, at: now))
        }
        if stateUnchanged {
            // Nothing to count.
        } else if onlyQueuesChanged {
            stateSize.dedupEntries = seen.footprint + lastSeq.footprint
            stateSize.scheduledRelays = scheduler.relays
            stateSize.timers += scheduler.count - waiting   // the beacon timer as it was
            assert(stateSize == countState(), "a path marked onlyQueuesChanged changed more")
        } else {
            stateSize = countState()
        }
        stateUnchanged = false
        onlyQueuesChanged = false
    }

    /// `Node.prefetch(for:)`: for a packet, the links (read first) and, for a beacon in its
    /// canonical form (most of what a node hears), the slots of its `seen` and `lastSeq`
    /// entries; for a timer, its pending relay and the links. Mutating as `Node.prefetch(for:)`
    /// is (no copy).
    /// A packet may set a timer (a relay's jitter, an ack's): the id it would take.
    mutating func prefetch(for upcoming: UpcomingInput) -> TimerID? {
        switch upcoming {
        case .packet(let bytes):
            links.withUnsafeBufferPointer { meshconform_prefetch($0.baseAddress) }
            // Where the beacon's key would be, not the beacon read and checked (the reception
            // does that): half the instructions, and no `UUID` built.
            if let (origin, seqNo) = RelayPacket.beaconKeyHint(bytes) {
                seen.prefetch(hash: SeenKey.beaconHash(origin: origin, seqNo: seqNo, seen.seeds))
                lastSeq.prefetch(hash: TableHash.mix(origin.0, origin.1, lastSeq.seeds))
            }
            return timers.upcoming
        case .timer(let id):
            scheduler.prefetch(id)
            // A relay going out sends on the links it was queued with, most often this array
            // (`Fanout.append`), whose count it reads first.
            withUnsafeMutablePointer(to: &links) { meshconform_prefetch(UnsafeRawPointer($0).load(as: UnsafeRawPointer.self)) }
            return nil   // a relay firing sets none; a beacon's next timer is one in 2 s per node
        }
    }

    // MARK: chatty (a positive control)

    /// A contact never in reach, for chatty's own frames: they are flooded, never acked, and
    /// kept for retransmission like every unacked frame (RELAY-R8).
    static let absentContact = RelaySimulationKeys.identity(for: NodeAddress(bytes: Array("meshconform chatty contact".utf8)))

    /// A beacon of its own on a new link (the next seqNo, RELAY-R9), and on every tick a frame
    /// of its own to a contact out of reach.
    mutating func chatter(_ occasion: ChatterOccasion, at now: Instant) -> [NodeAction] {
        defer { stateSize = countState() }
        switch occasion {
        case .linkUp(let link):
            beaconSeqNo &+= 1
            seen.insert(.beacon(origin: nodeID, seqNo: beaconSeqNo), at: now)
            return [.send(RelayPacket.beacon(Beacon(origin: nodeID, seqNo: beaconSeqNo, ttl: Self.defaultTTL, hop: 0)).encoded(), on: link)]
        case .tick:
            keyring.add(contact: Self.absentContact.nodeID, publicKey: Self.absentContact.publicKey)
            return originate(Array("meshconform chatty".utf8), to: NodeAddress(Self.absentContact.nodeID), at: now)
        }
    }

    // MARK: links and beacons

    private mutating func linkUp(_ link: LinkID, at now: Instant) -> [NodeAction] {
        // RELAY-R11: at most 7 links; one beyond is disconnected (and never used meanwhile).
        // Mutant no-link-limit (app bug 10): takes every link it is offered.
        guard links.count < Self.maxNeighbours || links.contains(link) || faults.contains(.noLinkLimit) else { return [.disconnect(link)] }
        if !links.contains(link) { links.insert(link, at: links.firstIndex { $0 > link } ?? links.endIndex) }
        var actions: [NodeAction] = []
        // RELAY-R9: beacons run while at least one link is up.
        if beaconTimer == nil, !faults.contains(.noBeacon) {
            let id = timers.make()
            beaconTimer = id
            actions.append(.setTimer(id, at: now + Self.beaconPeriod))
        }
        // RELAY-R8 (MAY): frames not yet acked go to the new neighbour, byte for byte, ttl 8,
        // and none more than 300 s after it was made. Mutants (app bug 9): no-retry-expiry
        // resends forever; retry-ttl-decrement lowers the stored frame's ttl by one per resend.
        for (seq, frame) in outstanding.sorted(by: { $0.key < $1.key })
        where now - frame.created < Self.retention || faults.contains(.noRetryExpiry) {
            var packet = frame.packet
            if faults.contains(.retryTTLDecrement), case .frame(var header, let body)? = try? RelayPacket(decoding: packet[...]), header.ttl > 1 {
                header.ttl -= 1
                packet = RelayPacket.frame(header, body: body).encoded()
                outstanding[seq]?.packet = packet
            }
            actions.append(.send(packet, on: link))
        }
        return actions
    }

    private mutating func timer(_ id: TimerID, at now: Instant, appendingTo actions: inout [NodeAction]) {
        if let relay = scheduler.fire(id) {
            onlyQueuesChanged = true
            // Its sends on those of its links still up: all of them while the links are the
            // array they were (no link came or went since; the usual case), else each looked up.
            if relay.links.withUnsafeBufferPointer({ $0.baseAddress }) == links.withUnsafeBufferPointer({ $0.baseAddress }) {
                relay.append(to: &actions)
            } else {
                let packet = relay.packet
                for link in relay.links where link != relay.except && links.contains(link) {
                    actions.append(.send(packet, on: link))
                }
            }
            return
        }
        guard id == beaconTimer else { return }
        guard !links.isEmpty else {
            beaconTimer = nil   // RELAY-R9: no link, no beacon; the next link up restarts them
            return
        }
        // RELAY-R9: type 'B', own id, seqNo 1, 2, ..., ttl 8, hop 0, on every link, every 2 s.
        beaconSeqNo &+= 1
        var beacon = RelayPacket.beacon(Beacon(origin: nodeID, seqNo: beaconSeqNo, ttl: Self.defaultTTL, hop: 0)).encoded()
        if faults.contains(.beaconType46) { beacon[0] = 0x46 }   // mutant: the app's type byte
        seen.insert(.beacon(origin: nodeID, seqNo: beaconSeqNo), at: now)
        let next = timers.make()
        beaconTimer = next
        Self.sendAll(beacon, on: links, except: nil, appendingTo: &actions)
        actions.append(.setTimer(next, at: now + Self.beaconPeriod))
    }

    // MARK: originating

    private mutating func originate(_ payload: [UInt8], to destination: NodeAddress?, at now: Instant) -> [NodeAction] {
        // relay.md 2.2: "there is no broadcast address"; a send without destination is refused.
        guard let dest = destination?.uuid, let key = keyring.session(with: dest) else {
            dropped += 1
            return []
        }
        // RELAY-R2: seq = bit pattern of the creation time; a clash takes the next integer.
        let seq = max(FrameHeader.seq(createdAt: epoch + now.seconds), lastOwnSeq &+ 1)
        lastOwnSeq = seq
        guard let body = try? SealedBody.seal(payload, key: key, nonce: rng.bytes(SealedBody.nonceSize)) else { return [] }
        let header = FrameHeader(origin: nodeID, dest: dest, ttl: Self.defaultTTL, seq: seq)
        let packet = RelayPacket.frame(header, body: body.encoded()).encoded()
        // RELAY-G3: never send a packet over 512 bytes.
        guard packet.count <= Self.maxPacket else {
            dropped += 1
            return []
        }
        seen.insert(.frame(origin: nodeID, seq: seq), at: now)
        if outstanding.count >= Self.maxOutstanding, let oldest = outstanding.min(by: { $0.value.created < $1.value.created })?.key {
            outstanding[oldest] = nil
        }
        outstanding[seq] = Outstanding(packet: packet, created: now)
        var sends: [NodeAction] = []
        Self.sendAll(packet, on: links, except: nil, appendingTo: &sends)
        return sends
    }

    // MARK: receiving

    private mutating func receive(_ bytes: [UInt8], on link: LinkID, at now: Instant, appendingTo actions: inout [NodeAction]) {
        guard links.contains(link) else {   // RELAY-R11: not one of our 7 links
            stateUnchanged = true
            return
        }
        let packet: RelayPacket
        do {
            packet = try Self.decode(bytes, faults: faults)
        } catch {
            // RELAY-R12: a refused packet is dropped and changes no state.
            refuse()
            if faults.contains(.crashOnTruncated), error.code == .truncated { crashed = true }
            return
        }
        // Mutant canonical-only: refuses any encoding but its own (RELAY-W6 says accept them).
        if faults.contains(.canonicalOnly), packet.encoded() != bytes {
            refuse()
            return
        }
        switch packet {
        case .frame(let header, let body):
            counters.copiesReceived += 1
            if seen.contains(.frame(origin: header.origin, seq: header.seq), at: now) { counters.duplicateCopies += 1 }
            actions.appendAll(frame(header, body: body, on: link, at: now))
        case .ack(let ack):
            let seq = faults.contains(.seqViaDouble) ? Self.throughDouble(ack.seq) : ack.seq   // mutant
            actions.appendAll(ackReceived(seq, on: link, at: now))
        case .beacon(let beacon): beaconReceived(beacon, on: link, at: now, appendingTo: &actions)
        }
    }

    // Static, as `sendAll`: a non-mutating method of the engine called from a mutating one was
    // passed a copy of the whole engine (776 bytes copied on every reception).
    private static func decode(_ bytes: [UInt8], faults: Faults) throws(WireError) -> RelayPacket {
        // Most of what a node hears: read in place, not through `WireFormat`'s generic entry
        // (a slice made and checked, a tenth of a reception's instructions).
        if let beacon = bytes.withUnsafeBufferPointer(RelayPacket.canonicalBeacon) { return .beacon(beacon) }
        do {
            return try RelayPacket(decoding: bytes)
        } catch {
            // Mutant lax-ack (app bug 8): an ack is read from its first 11 bytes, whatever follows.
            if faults.contains(.laxAck), bytes.first == 0x61, bytes.count > 11,
               let ack = try? RelayPacket(decoding: Array(bytes.prefix(11))) { return ack }
            throw error
        }
    }

    private mutating func frame(_ header: FrameHeader, body: [UInt8], on link: LinkID, at now: Instant) -> [NodeAction] {
        var header = header
        if faults.contains(.seqViaDouble) { header.seq = Self.throughDouble(header.seq) }   // mutant
        // Mutant dedup-by-origin: one key per origin, so every later message is a false duplicate.
        let key = SeenKey.frame(origin: header.origin, seq: faults.contains(.dedupByOrigin) ? 0 : header.seq)
        let noDedup = faults.contains(.noDedup)
        if header.dest == nodeID {
            let actions = frameForMe(header, body: body, key: key, on: link, at: now)
            // Mutant relay-for-me: relays it onward as well (RELAY-R4.3 says never).
            return faults.contains(.relayForMe) ? actions + forward(header, body: body, key: key, on: link, at: now) : actions
        }

        // RELAY-R5.1: its own frame echoed back.
        if header.origin == nodeID {
            let relaysOwn = faults.contains(.noDedup) || faults.contains(.relayOwn)
            return relaysOwn ? forward(header, body: body, key: key, on: link, at: now) : []
        }
        // RELAY-R5.2: a duplicate is dropped (and may cancel a probabilistic relay).
        if !noDedup, seen.contains(key, at: now) { return scheduler.heardAgain(key) }
        // RELAY-R5.3: record the key with the ingress link even when the frame is not relayed.
        seen.insert(key, at: now)
        var actions = forward(header, body: body, key: key, on: link, at: now)
        if faults.contains(.ackBroadcast) {
            // Mutant: acks frames that are not addressed to it (relay has no broadcast).
            actions += sendAck(header.seq, on: link, at: now)
        }
        return actions
    }

    private mutating func forward(_ header: FrameHeader, body: [UInt8], key: SeenKey, on link: LinkID, at now: Instant) -> [NodeAction] {
        // RELAY-R5.3: ttl <= 1 is the end of the budget.
        guard header.ttl > 1 || faults.contains(.relayTTLOne) else { return [] }
        var relayed = header
        // RELAY-R5.3 / R5.5: ttl - 1, no clamp.
        if faults.contains(.clampTTL) { relayed.ttl = min(relayed.ttl, Self.defaultTTL) }   // mutant
        if !faults.contains(.noTTLDecrement) { relayed.ttl = relayed.ttl == 0 ? 0 : relayed.ttl - 1 }
        // RELAY-R5.4: body byte for byte, header re-encoded (canonical), headerLen recomputed.
        let packet = RelayPacket.frame(relayed, body: body).encoded()
        guard packet.count <= Self.maxPacket else {   // RELAY-G3: never sent, so refused
            refuse()
            return []
        }
        // RELAY-R5.3: every link except the ingress.
        let sends = Fanout(packet: packet, links: links, except: faults.contains(.relayToSender) ? nil : link)
        guard !sends.isEmpty else { return [] }
        // RELAY-R3 / R7.2: remember that it was relayed and where it came from, for the ack.
        seen.update(key, value: (), at: now)
        var back = ackRoutes.value(for: header.seq, at: now) ?? []
        if !back.contains(link), back.count < Self.maxNeighbours + 1 { back.append(link) }
        ackRoutes.update(header.seq, value: back, at: now)
        // RELAY-R6: leaves within the jitter window.
        return scheduler.relay(sends, key: key, degree: links.count, window: Self.jitter.relays(under: faults.set), now: now, rng: &rng, timers: &timers)
    }

    private mutating func frameForMe(_ header: FrameHeader, body: [UInt8], key: SeenKey, on link: LinkID, at now: Instant) -> [NodeAction] {
        // RELAY-R4.2: a duplicate is not delivered again, but re-acked on this copy's ingress.
        if !faults.contains(.noDedup), seen.contains(key, at: now) {
            var actions = faults.contains(.noReack) ? [] : sendAck(header.seq, on: link, at: now)
            if faults.contains(.doubleDeliver), let message = open(header, body: body) {
                actions.insert(.deliver(message), at: 0)   // mutant: delivers the duplicate
            }
            return actions
        }
        // RELAY-R4.1: only a frame that opens is recorded, delivered and acked; no cache entry
        // otherwise, so a forged copy cannot suppress the genuine one.
        guard let message = open(header, body: body) else {
            // Mutant accept-forged: records the key anyway, so the genuine frame becomes a duplicate.
            if faults.contains(.acceptForged) { seen.insert(key, at: now) }
            refuse()
            return []
        }
        seen.insert(key, at: now)
        // RELAY-R4.3: never relayed.
        return [.deliver(message)] + sendAck(header.seq, on: link, at: now)
    }

    private mutating func open(_ header: FrameHeader, body: [UInt8]) -> AppMessage? {
        guard let key = keyring.session(with: header.origin),
              let sealed = try? SealedBody(decoding: body),
              let plaintext = try? sealed.open(key: key)
        else { return nil }
        // RELAY-R4.1: the sender named is `origin`.
        // Mutant deliver-as-dest (relay.md row 11): SwiftMeshRelay before its pin named `dest`, itself, as the sender.
        let sender = faults.contains(.deliverAsDest) ? header.dest : header.origin
        return AppMessage(origin: NodeAddress(sender), destination: NodeAddress(header.dest), payload: plaintext, messageID: String(header.seq))
    }

    /// RELAY-R7.1: the ack, `61 00 08 <seq>`, on the ingress link, within the jitter window.
    private mutating func sendAck(_ seq: UInt64, on link: LinkID, at now: Instant) -> [NodeAction] {
        guard !faults.contains(.noAck) else { return [] }
        let id = faults.contains(.ackWrongID) ? seq ^ 1 : seq   // mutant: wrong identifier
        let ack = RelayPacket.ack(RelayAck(seq: id)).encoded()
        return scheduler.reply(Fanout(packet: ack, links: [link]), window: Self.jitter, now: now, rng: &rng, timers: &timers)
    }

    private mutating func ackReceived(_ seq: UInt64, on link: LinkID, at now: Instant) -> [NodeAction] {
        // RELAY-R7.3: our own frame is delivered; stop retransmitting, tell the app (the id is
        // the seq as text, as AppMessage.messageID spells it), do not forward.
        if !faults.contains(.ignoreOwnAcks), outstanding.removeValue(forKey: seq) != nil {
            return [.acknowledged(messageID: String(seq))]
        }
        // RELAY-R7.2: back along the ingress links of the frames we relayed with that seq;
        // no match: drop (RELAY-R12).
        guard !faults.contains(.dropForeignAcks), let back = ackRoutes.value(for: seq, at: now) else {
            if faults.contains(.floodAcks) {   // mutant: floods what it cannot route
                let ack = RelayPacket.ack(RelayAck(seq: seq)).encoded()
                return scheduler.reply(Fanout(packet: ack, links: links, except: link), window: Self.jitter, now: now, rng: &rng, timers: &timers)
            }
            refuse()
            return []
        }
        let ack = RelayPacket.ack(RelayAck(seq: seq)).encoded()
        let targets = back.filter { $0 != link && links.contains($0) }
            .filter { forwardedAcks.insert(ForwardedAck(seq: seq, link: $0), at: now) }
        return scheduler.reply(Fanout(packet: ack, links: targets), window: Self.jitter, now: now, rng: &rng, timers: &timers)
    }

    private mutating func beaconReceived(_ beacon: Beacon, on link: LinkID, at now: Instant, appendingTo actions: inout [NodeAction]) {
        // RELAY-R10.1: its own beacon.
        guard beacon.origin != nodeID || faults.contains(.relayOwn) else {
            stateUnchanged = true
            return
        }
        onlyQueuesChanged = true
        let key = SeenKey.beacon(origin: beacon.origin, seqNo: beacon.seqNo)
        // RELAY-R10.2: duplicate by cache or by lastSeq (forgotten 300 s after its last update).
        if !faults.contains(.noDedup) {
            if seen.contains(key, at: now) {
                let cancel = scheduler.heardAgain(key)
                stateUnchanged = cancel.isEmpty   // else a relay was cancelled
                actions.appendAll(cancel)
                return
            }
            // Most likely new: about to be recorded in both caches and its relay queued. In a
            // large mesh what those writes read first are misses; started together, they overlap.
            seen.prefetchInsert()
            lastSeq.prefetchInsert()
            scheduler.prefetch(timers.upcoming)
            if let last = lastSeq.value(for: beacon.origin, at: now), last >= beacon.seqNo {
                stateUnchanged = true
                return
            }
        }
        // RELAY-R10.3: record it.
        seen.insert(key, at: now)
        lastSeq.update(beacon.origin, value: beacon.seqNo, at: now)
        // Mutant ack-beacons: acks it as if it were a frame (RELAY-R10.5 says never).
        if faults.contains(.ackBeacons) { actions.appendAll(sendAck(UInt64(beacon.seqNo), on: link, at: now)) }
        // RELAY-R10.4: rebroadcast while ttl > 1 and hop < 255, with ttl - 1 and hop + 1.
        guard !faults.contains(.noBeaconRelay),
              beacon.ttl > 1 || faults.contains(.relayTTLOne),
              beacon.hop < 255 || faults.contains(.relayHop255) else { return }
        var relayed = beacon
        if !faults.contains(.noTTLDecrement) { relayed.ttl = beacon.ttl == 0 ? 0 : beacon.ttl - 1 }
        relayed.hop = beacon.hop &+ 1
        let sends = Fanout(.beacon(relayed), links: links, except: faults.contains(.relayToSender) ? nil : link)
        // RELAY-R10.5: never delivered, never acked.
        scheduler.relay(sends, key: key, degree: links.count, window: Self.jitter.relays(under: faults.set), now: now, rng: &rng, timers: &timers,
                        appendingTo: &actions)
    }


    /// RELAY-R12: an input refused by a decoder or dropped as nonsense changes no state; the
    /// crash-on-refused mutant stops answering instead.
    private mutating func refuse() {
        dropped += 1
        if faults.contains(.crashOnRefused) { crashed = true }
    }

    /// The seq-via-double mutant (relay app bug 12): a reader that goes through a Double.
    static func throughDouble(_ seq: UInt64) -> UInt64 {
        let rounded = Double(seq)
        return rounded >= 18_446_744_073_709_551_616.0 ? .max : UInt64(rounded)
    }

    private static func sendAll(_ packet: [UInt8], on links: [LinkID], except ingress: LinkID?, appendingTo sends: inout [NodeAction]) {
        for link in links where link != ingress { sends.append(.send(packet, on: link)) }
    }
}

/// The mutants a node runs with (none for a plain node): a reception asks two to four times
/// whether one is set, and `Set.contains` is a call even on an empty set, so a plain node
/// answers from a flag kept beside it.
private struct Faults {
    let set: Set<Fault>
    private let any: Bool

    init(_ set: Set<Fault>) {
        self.set = set
        any = !set.isEmpty
    }

    @inline(__always)
    func contains(_ fault: Fault) -> Bool { any && set.contains(fault) }
}

/// An ack forwarded on a link (RELAY-R7.2).
private struct ForwardedAck: DedupKey {
    var seq: UInt64
    var link: LinkID
}
