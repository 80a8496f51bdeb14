import MeshWire

/// The `bitchat` dialect's node rules (docs/dialects/bitchat.md section 3), sans-IO.
struct BitchatEngine: DialectEngine {
    // bitchat.md section 6.
    static let defaultTTL: UInt8 = 7
    /// A received TTL above this is treated as this (BITCHAT-R5).
    static let ttlCap: UInt8 = 7
    static let jitter = JitterWindow.milliseconds(10, 60)
    static let retention: Duration = .seconds(300)
    static let dedupCapacity = 1000
    /// BITCHAT-R4: packets whose timestamp is further than this from the node's clock are dropped.
    static let maxClockSkewMs: UInt64 = 120_000
    /// BITCHAT-G3: the largest value written to the characteristic; larger frames are fragmented.
    static let maxUnit = 512
    /// BITCHAT-R7: data bytes per fragment (the app's default).
    static let fragmentChunk = 469
    /// BITCHAT-R12: a node announces on each new link and every 15 s while it has links.
    static let announceEvery: Duration = .seconds(15)

    let config: NodeConfig
    private let peerID: [UInt8]
    /// BITCHAT-R12: the announce's payload, TLVs (type, length, value): nickname 0x01 (setting
    /// `name`), Noise static key 0x02 and signing key 0x03, 32 bytes each. meshconform's node
    /// has neither key (Noise is above this layer): it announces 32 bytes drawn from its seed
    /// apart from `rng`, so announcing leaves its other random choices as they were.
    private let announcePayload: [UInt8]
    private var rng: SeededRandom
    private var timers = TimerClock()
    private var scheduler: RelayScheduler<String, [NodeAction]>
    private var seen: DedupCache<String, Void>
    private var reassembly: FragmentReassembly
    private var links: EngineLinks
    /// Milliseconds since 1970 at `Instant.zero` (setting `epoch`, seconds).
    private let epochMs: UInt64
    private var lastTimestamp: UInt64 = 0
    private(set) var counters = NodeCounters()
    /// Mutant short-delivery-dedup: when each key was last delivered; past
    /// `shortDeliveryMemory` a duplicate reaches the app again.
    private var deliveredAt: [String: Instant] = [:]
    static let shortDeliveryMemory: Duration = .seconds(10)
    /// Mutant ingress-gate (bitchat iOS): when each key last came in, for 3 s.
    private var ingress: [String: Instant] = [:]
    static let ingressLifetime: Duration = .seconds(3)

    init(config: NodeConfig, seed: UInt64) {
        self.config = config
        peerID = Self.peerID(config.address)
        rng = SeededRandom(seed: seed)
        scheduler = RelayScheduler(policy: config.relayPolicy, noJitter: config.faults.contains(.noJitter))
        seen = DedupCache(seenBy: config.faults, capacity: Self.dedupCapacity, retention: Self.retention)
        links = EngineLinks(faults: config.faults)
        reassembly = FragmentReassembly(lifetime: config.faults.contains(.noReassemblyExpiry) ? .seconds(1 << 40) : FragmentReassembly.lifetime,
                                        capacity: config.faults.contains(.refuseNewAssembly) ? FragmentReassembly.androidCapacity : FragmentReassembly.capacity,
                                        keyByIDOnly: config.faults.contains(.fragmentKeyByID),
                                        lastPieceWins: config.faults.contains(.lastPieceWins),
                                        rescueLate: config.faults.contains(.rescueLateFragments),
                                        refuseWhenFull: config.faults.contains(.refuseNewAssembly),
                                        dropOnConflict: config.faults.contains(.dropSetOnConflict))
        epochMs = UInt64((config.dialectSettings["epoch"].flatMap(Double.init) ?? 1_746_230_400) * 1000)
        var keys = SeededRandom(seed: seed ^ 0xB17C_4A7A_77E0_0001)
        let nickname = Array((config.dialectSettings["name"] ?? "meshconform").utf8.prefix(255))
        announcePayload = [0x01, UInt8(nickname.count)] + nickname + [0x02, 32] + keys.bytes(32) + [0x03, 32] + keys.bytes(32)
    }

    var announcePeriod: Duration? { Self.announceEvery }

    /// bitchat peer ids are 8 bytes: the first 8 of a longer address (BITCHAT-R1).
    static func peerID(_ address: NodeAddress) -> [UInt8] {
        let b = Array(address.bytes.prefix(BitchatPacket.idSize))
        return b + [UInt8](repeating: 0, count: BitchatPacket.idSize - b.count)
    }

    var stateSize: NodeStateSize {
        var size = NodeStateSize()
        size.dedupEntries = seen.footprint
        size.scheduledRelays = scheduler.relays
        size.reassemblies = reassembly.count
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

    private func nowMs(_ now: Instant) -> UInt64 { epochMs &+ UInt64(max(0, now.nanoseconds / 1_000_000)) }

    // MARK: announce (BITCHAT-R12; the chatty mutant's background traffic too)

    /// An announce of its own (type 0x01, broadcast, TTL 7, a fresh timestamp) on the links, as
    /// every bitchat app sends on each new link and every 15 s.
    mutating func chatter(_ occasion: ChatterOccasion, at now: Instant) -> [NodeAction] {
        let timestamp = max(nowMs(now), lastTimestamp &+ 1)
        lastTimestamp = timestamp
        let announce = BitchatPacket(type: BitchatMessageType.announce.rawValue, ttl: Self.defaultTTL, timestamp: timestamp,
                                     senderID: peerID, recipientID: nil, payload: announcePayload)
        seen.insert(announce.dedupKey, at: now)
        return occasion.links.filter(links.contains).map { .send(announce.encoded(), on: $0) }
    }

    // MARK: originating

    private mutating func originate(_ payload: [UInt8], to destination: NodeAddress?, at now: Instant) -> [NodeAction] {
        // BITCHAT-R2: a fresh millisecond timestamp per message, so two messages never share a key.
        let timestamp = max(nowMs(now), lastTimestamp &+ 1)
        lastTimestamp = timestamp
        let packet = BitchatPacket(type: BitchatMessageType.message.rawValue, ttl: Self.defaultTTL, timestamp: timestamp,
                                   senderID: peerID, recipientID: destination.map(Self.peerID), payload: payload)
        guard packet.encodingProblem == nil else {
            links.decline()
            return []
        }
        seen.insert(packet.dedupKey, at: now)
        return links.sendAll(frames(packet), except: nil)
    }

    /// The frames that carry `packet` on a link: itself, or its fragments when it is larger
    /// than one characteristic value (BITCHAT-R7, BITCHAT-G3).
    private mutating func frames(_ packet: BitchatPacket) -> [[UInt8]] {
        let whole = packet.encoded()
        guard whole.count > Self.maxUnit else { return [whole] }
        let id = rng.bytes(8)
        guard let pieces = BitchatFragment.split(whole, fragmentID: id, originalType: packet.type, chunkSize: Self.fragmentChunk) else {
            return []
        }
        return pieces.map { piece in
            BitchatPacket(version: packet.route == nil ? 1 : 2, type: BitchatMessageType.fragment.rawValue, ttl: packet.ttl,
                          timestamp: packet.timestamp, senderID: packet.senderID, recipientID: packet.recipientID,
                          route: packet.route, payload: piece.encoded()).encoded()
        }
    }

    // MARK: receiving

    private mutating func receive(_ bytes: [UInt8], on link: LinkID, at now: Instant) -> [NodeAction] {
        guard links.contains(link) else { return [] }
        let packet: BitchatPacket
        do {
            packet = try decode(bytes)
        } catch {
            // BITCHAT-R11: a refused packet is dropped and changes no state.
            links.refuse(error)
            return []
        }
        // BITCHAT-R4: more than 2 minutes from our clock (either way) is dropped unseen.
        let local = nowMs(now)
        guard (packet.timestamp > local ? packet.timestamp - local : local - packet.timestamp) <= Self.maxClockSkewMs
                || config.faults.contains(.acceptStale) else {
            links.refuse()
            return []
        }
        let isOwn = packet.senderID == peerID
        let key = config.faults.contains(.dedupByOrigin) ? Hex.encode(packet.senderID) : packet.dedupKey
        // Mutant ingress-gate (bitchat iOS, BLEService.swift:5874, BLEIngressLinkRegistry.swift:48-63):
        // a key that came in during the last 3 s is dropped before anything, fragments included.
        if config.faults.contains(.ingressGate) {
            if ingress.count >= Self.dedupCapacity { ingress = ingress.filter { now - $0.value < Self.ingressLifetime } }
            if let at = ingress[key], now - at < Self.ingressLifetime { return [] }
            ingress[key] = now
        }
        let isCopy = packet.type != BitchatMessageType.fragment.rawValue
        if isCopy { counters.copiesReceived += 1 }
        // BITCHAT-R3: a key already held is a duplicate (and cancels a probabilistic relay).
        // Mutant no-fragment-dedup (app bug 5): fragments are never duplicates.
        let exempt = !isCopy && config.faults.contains(.noFragmentDedup)
        if !exempt, seen.contains(key, at: now) {
            if isCopy { counters.duplicateCopies += 1 }
            if !config.faults.contains(.noDedup) {
                if config.faults.contains(.doubleDeliver), let message = deliverable(packet) { return [.deliver(message)] }
                if config.faults.contains(.shortDeliveryDedup), let message = deliverable(packet),
                   let at = deliveredAt[key], now - at > Self.shortDeliveryMemory {
                    deliveredAt[key] = now
                    return [.deliver(message)]
                }
                return scheduler.heardAgain(key)
            }
        }
        // BITCHAT-R6.1: its own packet coming back.
        if isOwn, !config.faults.contains(.relayOwn) { return [] }
        seen.insert(key, at: now)
        var actions: [NodeAction] = []
        let forMe = packet.recipientID == peerID
        if packet.type == BitchatMessageType.fragment.rawValue {
            guard let outcome = fragment(packet, at: now) else { return [] }   // conflicting: not relayed
            actions += outcome
        } else if let message = deliverable(packet) {
            actions.append(.deliver(message))
            if config.faults.contains(.shortDeliveryDedup) {
                if deliveredAt.count >= Self.dedupCapacity { deliveredAt = deliveredAt.filter { now - $0.value <= Self.shortDeliveryMemory } }
                deliveredAt[key] = now
            }
        }
        // BITCHAT-R6.3: addressed to us: delivered, never relayed.
        if forMe, !config.faults.contains(.relayForMe) { return actions }
        return actions + relay(packet, original: bytes, key: key, on: link, at: now)
    }

    private func decode(_ bytes: [UInt8]) throws(WireError) -> BitchatPacket {
        // Mutant unpad-first: strips anything that looks like a pad before parsing, so a frame
        // whose own last bytes look like padding loses them (BITCHAT-W7 says raw first).
        if config.faults.contains(.unpadFirst), let last = bytes.last, last > 0, Int(last) <= bytes.count,
           bytes.suffix(Int(last)).allSatisfy({ $0 == last }) {
            return try BitchatPacket(decoding: Array(bytes.dropLast(Int(last))))
        }
        return try BitchatPacket(decoding: bytes)
    }

    /// BITCHAT-R9: what reaches the app: `message` packets that are broadcast or for us.
    private func deliverable(_ packet: BitchatPacket) -> AppMessage? {
        guard packet.type == BitchatMessageType.message.rawValue else { return nil }
        if let recipient = packet.recipientID, recipient != peerID, !Self.isBroadcast(recipient) { return nil }
        return AppMessage(origin: NodeAddress(bytes: packet.senderID), destination: packet.recipientID.map { NodeAddress(bytes: $0) },
                          payload: packet.payload, messageID: packet.dedupKey)
    }

    /// Eight 0xFF bytes are the broadcast recipient of directed-fragment senders (bitchat spec 02 section 4).
    static func isBroadcast(_ id: [UInt8]) -> Bool { id.allSatisfy { $0 == 0xFF } }

    /// BITCHAT-R8: a fragment for everyone or for us goes to reassembly; the completed frame is
    /// decoded and handled as if received with TTL 0 (delivered, not relayed: its fragments
    /// were). nil: a conflicting fragment, neither stored nor relayed.
    private mutating func fragment(_ packet: BitchatPacket, at now: Instant) -> [NodeAction]? {
        if let r = packet.recipientID, r != peerID, !Self.isBroadcast(r) { return [] }   // relayed only
        guard let fragment = try? BitchatFragment(decoding: packet.payload) else {
            links.refuse()
            return nil
        }
        switch reassembly.add(fragment, from: packet.senderID, at: now) {
        case .stored, .duplicate: return []
        case .conflicting:
            links.refuse()
            return nil
        case .complete(let frame):
            guard let inner = try? decode(frame), inner.type != BitchatMessageType.fragment.rawValue else {
                links.refuse()
                return []
            }
            // The header's originalType is not authenticated: dispatch on the inner packet's
            // own type, and drop an assembly whose claim disagrees.
            // Mutant ignore-fragment-claim (bitchat iOS): no comparison at all.
            guard config.faults.contains(.trustFragmentType) || config.faults.contains(.ignoreFragmentClaim)
                    || inner.type == fragment.originalType else {
                links.refuse()
                return []
            }
            var claimed = inner
            if config.faults.contains(.trustFragmentType) { claimed.type = fragment.originalType }   // mutant
            guard seen.insert(inner.dedupKey, at: now) || config.faults.contains(.noDedup) else { return [] }
            return deliverable(claimed).map { [.deliver($0)] } ?? []
        }
    }

    /// BITCHAT-R5 / R6: relay with the capped TTL - 1, byte for byte otherwise, to every other
    /// link after 10-60 ms; never when the capped TTL is <= 1, never requestSync. The iOS
    /// policy mutants (bitchat.md section 7) clamp the TTL, pick the delay and the links by the
    /// degree, and re-encode.
    private mutating func relay(_ packet: BitchatPacket, original: [UInt8], key: String, on link: LinkID, at now: Instant) -> [NodeAction] {
        guard packet.type != BitchatMessageType.requestSync.rawValue else { return [] }
        let capped = config.faults.contains(.noTTLCap) ? packet.ttl : min(packet.ttl, Self.ttlCap)
        guard capped > 1 || config.faults.contains(.relayTTLOne) || capped == 1 && config.faults.contains(.relayLastHop) else { return [] }
        var newTTL = config.faults.contains(.noTTLDecrement) ? capped : (capped == 0 ? 0 : capped - 1)
        let degree = links.count
        if config.faults.contains(.ttlClampByDegree) { newTTL = min(newTTL, Self.iosTTLClamp(packet.type, degree: degree)) }
        // The TTL byte is outside the signature (bitchat spec 01 section 9): everything else,
        // padding and compressed bytes included, goes on unchanged.
        var bytes = original
        bytes[2] = newTTL
        if config.faults.contains(.reencodeRelays) {
            // bitchat iOS re-encodes: known flags only, the W7 bucket pad.
            var copy = packet
            copy.ttl = newTTL
            copy.flags = copy.flags.intersection(copy.version == 2 ? [.hasRecipient, .hasSignature, .isCompressed, .isRSR, .hasRoute]
                                                                   : [.hasRecipient, .hasSignature, .isCompressed, .isRSR])
            bytes = copy.paddedToBucket().encoded()
        }
        // Mutant random-padding: random bytes after the frame, ending in 0 so they are never
        // one PKCS#7 pad, within the 512-byte unit (BITCHAT-G3).
        if config.faults.contains(.randomPadding) {
            let room = min(16, 512 - bytes.count)
            if room > 0 { bytes += rng.bytes(room - 1) + [0] }
        }
        var sends = links.sendAll([bytes], except: config.faults.contains(.relayToSender) ? nil : link)
        if config.faults.contains(.fanOutSubset), ![BitchatMessageType.fragment, .announce, .requestSync].map(\.rawValue).contains(packet.type) {
            sends = Self.iosFanOut(sends, key: key)
        }
        let window = config.faults.contains(.jitterByDegree) ? Self.iosJitter(packet.type, degree: degree) : Self.jitter
        return scheduler.relay(sends, key: key, degree: degree, window: window.relays(under: config.faults, latest: Self.latestRelay),
                               now: now, rng: &rng, timers: &timers)
    }

    /// BITCHAT-R6.4: the latest any app relays (bitchat iOS at 10 links or more).
    static let latestRelay = JitterWindow.milliseconds(100, 220)

    /// bitchat iOS's relay delay (RelayController.swift:54-94@9b84b361): fragments 8-25 ms;
    /// broadcasts by degree.
    static func iosJitter(_ type: UInt8, degree: Int) -> JitterWindow {
        if type == BitchatMessageType.fragment.rawValue { return .milliseconds(8, 25) }
        switch degree {
        case ...2: return .milliseconds(10, 40)
        case 3...5: return .milliseconds(60, 150)
        case 6...9: return .milliseconds(80, 180)
        default: return latestRelay
        }
    }

    /// bitchat iOS's relay TTL ceiling by degree (RelayController.swift:54-84@9b84b361):
    /// fragments 7, or 5 at 6 links or more; others 6 - 1 (announces 7 - 1) at 3-5 links,
    /// 5 - 1 at 6 or more; never below 1.
    static func iosTTLClamp(_ type: UInt8, degree: Int) -> UInt8 {
        if type == BitchatMessageType.fragment.rawValue { return degree >= 6 ? 5 : 7 }
        switch degree {
        case ...2: return .max
        case 3...5: return type == BitchatMessageType.announce.rawValue ? 6 : 5
        default: return 4
        }
    }

    /// bitchat iOS's fan-out (BLEFanoutSelector.swift:71-89, 205-223@9b84b361): of n links,
    /// min(n, b + 1), b the bit length of n - 1, picked by the message id.
    static func iosFanOut(_ sends: [NodeAction], key: String) -> [NodeAction] {
        let n = sends.count
        guard n >= 4 else { return sends }
        let keep = min(n, (Int.bitWidth - (n - 1).leadingZeroBitCount) + 1)
        var order = SeededRandom(seed: key.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 })
        var picked = Array(sends.indices)
        for i in stride(from: n - 1, to: 0, by: -1) { picked.swapAt(i, Int(order.next() % UInt64(i + 1))) }
        return picked.prefix(keep).sorted().map { sends[$0] }
    }
}
