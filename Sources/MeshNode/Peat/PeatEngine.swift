import MeshWire

/// The `peat` dialect's node rules (docs/dialects/peat.md section 3), sans-IO: one document
/// merged from every neighbour's (R2, R5, R6) and relay envelopes flooded within their hop
/// budget (R3) under a de-duplication cache (R4).
struct PeatEngine: DialectEngine {
    // peat.md section 6.
    static let defaultMaxHops = PeatRelayEnvelope.defaultMaxHops
    static let jitter = JitterWindow.milliseconds(0, 100)
    static let retention: Duration = .seconds(300)
    static let dedupCapacity = 1000
    static let documentPeriod: Duration = .seconds(2)
    /// Bytes the encrypted form adds to a document (marker, reserved, nonce, tag: PEAT-W6).
    static let encryptionOverhead = PeatEncrypted.minimumSize
    /// Offsets in an envelope a relay rewrites (PEAT-W5): everything else goes on byte for byte.
    static let hopOffset = 18
    static let maxHopsOffset = 19

    let config: NodeConfig
    let nodeID: UInt32
    private let meshKey: PeatMeshKey?
    private var document: PeatDocument
    private let merge: DocumentMerge
    private let appReading: AppDocumentReading
    private var rng: SeededRandom
    private var timers = TimerClock()
    private var scheduler: RelayScheduler<[UInt8], [NodeAction]>
    private var seen: DedupCache<[UInt8], Void>
    private var links: EngineLinks
    private var documentTimer: TimerID?
    /// Milliseconds since 1970 at `Instant.zero` (setting `epoch`, seconds), for message ids.
    private let epochMs: UInt64
    private var lastTimestamp: UInt64 = 0
    private(set) var counters = NodeCounters()

    /// Settings: `nodeId` (decimal u32; default derived from the address), `meshId` (default
    /// `DEMO`), `secret` (64 hex digits: documents go out encrypted, PEAT-W6), `epoch`.
    init(config: NodeConfig, seed: UInt64) {
        self.config = config
        nodeID = config.dialectSettings["nodeId"].flatMap(UInt32.init).flatMap { $0 == 0 ? nil : $0 } ?? config.address.peatNode
        let meshID = config.dialectSettings["meshId"] ?? "DEMO"
        meshKey = config.dialectSettings["secret"].flatMap(Hex.decode).flatMap { try? PeatMeshKey(meshID: meshID, secret: $0) }
        document = PeatDocument(version: 1, nodeID: nodeID)
        merge = DocumentMerge(faults: config.faults)
        appReading = AppDocumentReading(faults: config.faults)
        rng = SeededRandom(seed: seed)
        links = EngineLinks(faults: config.faults)
        scheduler = RelayScheduler(policy: config.relayPolicy, noJitter: config.faults.contains(.noJitter))
        seen = DedupCache(seenBy: config.faults, capacity: Self.dedupCapacity, retention: Self.retention)
        epochMs = UInt64((config.dialectSettings["epoch"].flatMap(Double.init) ?? 1_746_230_400) * 1000)
    }

    var stateSize: NodeStateSize {
        var size = NodeStateSize()
        size.dedupEntries = seen.footprint
        size.scheduledRelays = scheduler.relays
        size.timers = scheduler.count + (documentTimer == nil ? 0 : 1)
        // The document's tables are bounded by the 512-byte value it must fit in.
        size.other = links.count + document.counterCount + (document.emergency?.ackCount ?? 0)
        return size
    }

    /// The node's current document (a GATT read returns it, PEAT-G1).
    var currentDocument: PeatDocument { document }

    mutating func handle(_ event: NodeEvent, at now: Instant) -> [NodeAction] {
        guard !links.crashed else { return [] }
        switch event {
        case .received(let bytes, let link):
            guard links.contains(link) else { return [] }
            return receive(bytes, on: link, at: now)
        case .linkUp(let link, _, _): return linkUp(link, at: now)
        case .linkDown(let link):
            links.remove(link)
            return []
        case .timer(let id): return timer(id, at: now)
        case .command(.send(let payload, let destination)): return originate(payload, to: destination, at: now)
        }
    }

    // MARK: chatty (a positive control)

    /// Its document on the links, unchanged, more often than PEAT-R2's period.
    mutating func chatter(_ occasion: ChatterOccasion, at now: Instant) -> [NodeAction] {
        occasion.links.filter(links.contains).compactMap { link in documentValue().map { .send($0, on: link) } }
    }

    // MARK: the document (PEAT-R2)

    /// A new neighbour gets the document at once; the period starts with the first link.
    private mutating func linkUp(_ link: LinkID, at now: Instant) -> [NodeAction] {
        links.insert(link)
        var actions = documentValue().map { [NodeAction.send($0, on: link)] } ?? []
        if documentTimer == nil, !config.faults.contains(.noDocumentPeriod) {
            let id = timers.make()
            documentTimer = id
            actions.append(.setTimer(id, at: now + Self.documentPeriod))
        }
        return actions
    }

    private mutating func timer(_ id: TimerID, at now: Instant) -> [NodeAction] {
        if let relay = scheduler.fire(id) { return relay.filter(links.isLive) }
        guard id == documentTimer else { return [] }
        guard !links.isEmpty else {
            documentTimer = nil   // no link, no writes; the next link up restarts the period
            return []
        }
        let next = timers.make()
        documentTimer = next
        return broadcastDocument() + [.setTimer(next, at: now + Self.documentPeriod)]
    }

    /// The document as it goes on a link: plain, or sealed under the mesh key (PEAT-W6).
    private mutating func documentValue() -> [UInt8]? {
        let plain = document.encoded()
        guard let meshKey else { return plain }
        return try? PeatEncrypted.seal(plain, key: meshKey, nonce: rng.bytes(12)).encoded()
    }

    private mutating func broadcastDocument() -> [NodeAction] {
        guard let value = documentValue() else { return [] }
        return links.sendAll([value], except: nil)
    }

    /// PEAT-R2: the version grows by one per change, skipping the values a receiver would
    /// take for a frame marker (PEAT-W1).
    private mutating func changed() {
        // Mutant marker-version (app row 9): every value, frame markers included.
        repeat { document.version &+= 1 } while !config.faults.contains(.markerVersion) && PeatWire.frameMarkers.contains(UInt8(truncatingIfNeeded: document.version))
    }

    /// PEAT-R5, R6: merge, acknowledge the held emergency, and on any change send the document
    /// again. A merge whose result would not fit one value (PEAT-W2's 512 bytes, less the
    /// encryption's overhead) is refused whole: the document stays what it was.
    private mutating func merge(_ received: PeatDocument) -> [NodeAction] {
        var next = document
        var changedAny = merge.merge(received, into: &next)
        if !config.faults.contains(.noEmergencyAck), DocumentMerge.acknowledge(nodeID, in: &next) {
            bumpOwnCounter(&next)
            changedAny = true
        }
        guard changedAny else { return [] }
        let limit = PeatWire.maxValueSize - (meshKey == nil ? 0 : Self.encryptionOverhead)
        guard next.encoded().count <= limit else {
            links.refuse()
            return []
        }
        document = next
        changed()
        return config.faults.contains(.noMergeResend) ? [] : broadcastDocument()
    }

    /// PEAT-R2: the node's own counter entry counts the changes of its own state.
    private func bumpOwnCounter(_ doc: inout PeatDocument) {
        // One copy out and one back in (the document keeps its counter as bytes).
        var counters = doc.counters
        if let i = counters.firstIndex(where: { $0.node == nodeID }) {
            counters[i].count &+= 1
        } else {
            counters.append(PeatDocument.Counter(node: nodeID, count: 1))
            counters.sort { $0.node < $1.node }
        }
        doc.counters = counters
    }

    // MARK: receiving (PEAT-W1)

    private mutating func receive(_ bytes: [UInt8], on link: LinkID, at now: Instant) -> [NodeAction] {
        let value: PeatValue
        do {
            value = try PeatValue(decoding: bytes)
        } catch {
            // The mutant lax-envelope-length (peat app row 5): the envelope up to its payload_len
            // is taken, whatever follows it.
            if config.faults.contains(.laxEnvelopeLength), error.code == .trailingBytes, let envelope = Self.envelopeIgnoringTail(bytes) {
                return handle(.relayEnvelope(envelope), on: link, at: now)
            }
            // The mutants lax-counters and lax-sections (peat app rows 3, 2): read as the app reads.
            if appReading.isLax, let document = appReading.read(bytes) { return merge(document) }
            // PEAT-R7: a refused value changes nothing.
            links.refuse(error)
            return []
        }
        return handle(value, on: link, at: now)
    }

    /// An envelope read only as far as its payload_len says (the app's reading).
    private static func envelopeIgnoringTail(_ bytes: [UInt8]) -> PeatRelayEnvelope? {
        guard bytes.count >= PeatRelayEnvelope.headerSize, bytes[0] == PeatWire.relayEnvelopeMarker else { return nil }
        let at = PeatRelayEnvelope.headerSize - 4
        let length = (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
        guard length <= bytes.count - PeatRelayEnvelope.headerSize else { return nil }
        return try? PeatRelayEnvelope(decoding: bytes[..<(PeatRelayEnvelope.headerSize + length)])
    }

    private mutating func handle(_ value: PeatValue, on link: LinkID, at now: Instant) -> [NodeAction] {
        switch value {
        case .document(let received): return merge(received)
        case .encrypted(let sealed):
            guard let meshKey, let plain = try? sealed.open(key: meshKey), let received = try? PeatDocument(decoding: plain) else {
                links.refuse()   // not of this mesh, forged, or not a document inside
                return []
            }
            return merge(received)
        case .relayEnvelope(let envelope): return receive(envelope, on: link, at: now)
        case .peerE2EE, .keyExchange, .deltaDocument:
            // Valid, but nothing the reference node keeps: it holds no peer sessions (PEAT-R8
            // is not implemented) and meshconform does not define delta documents.
            return []
        }
    }

    /// PEAT-R3, R4.
    private mutating func receive(_ envelope: PeatRelayEnvelope, on link: LinkID, at now: Instant) -> [NodeAction] {
        counters.copiesReceived += 1
        let key = config.faults.contains(.dedupByOrigin) ? NodeAddress(peatNode: envelope.origin).bytes : envelope.messageID
        // R3.2: a message id already held is a duplicate (and cancels a probabilistic relay).
        if seen.contains(key, at: now) {
            counters.duplicateCopies += 1
            if !config.faults.contains(.noDedup) {
                if config.faults.contains(.doubleDeliver) { return [.deliver(appMessage(envelope))] }
                return scheduler.heardAgain(key)
            }
        }
        // R3.1: its own message coming back.
        if envelope.origin == nodeID, !config.faults.contains(.relayOwn) { return [] }
        // R3.3: recorded, then the payload is handled as a value of its own. The app gets it
        // whatever it is: the envelope is the message, the payload what it carries.
        seen.insert(key, at: now)
        var actions: [NodeAction] = [.deliver(appMessage(envelope))]
        if let inner = try? PeatValue(decoding: envelope.payload) { actions += handle(inner, on: link, at: now) }
        return actions + relay(envelope, key: key, on: link, at: now)
    }

    /// R3.4: `hop + 1` while `hop < max_hops`, to every link but the ingress, every other byte
    /// as received; `max_hops` never raised.
    private mutating func relay(_ envelope: PeatRelayEnvelope, key: [UInt8], on link: LinkID, at now: Instant) -> [NodeAction] {
        let budget = config.faults.contains(.ownHopBudget) ? Self.defaultMaxHops : envelope.maxHops
        guard envelope.hop < budget || config.faults.contains(.relayTTLOne) else { return [] }
        var bytes = envelope.encoded()
        if !config.faults.contains(.noTTLDecrement) { bytes[Self.hopOffset] = envelope.hop &+ 1 }
        if config.faults.contains(.clampTTL) { bytes[Self.maxHopsOffset] = min(envelope.maxHops, Self.defaultMaxHops) }
        // Mutant relay-ttl-one on a spent budget: raises max_hops to keep the envelope valid.
        if envelope.hop >= budget { bytes[Self.maxHopsOffset] = envelope.hop &+ 1 }
        let sends = links.sendAll([bytes], except: config.faults.contains(.relayToSender) ? nil : link)
        return scheduler.relay(sends, key: key, degree: links.count, window: Self.jitter.relays(under: config.faults),
                               now: now, rng: &rng, timers: &timers)
    }

    private func appMessage(_ envelope: PeatRelayEnvelope) -> AppMessage {
        AppMessage(origin: NodeAddress(peatNode: envelope.origin), destination: nil, payload: envelope.payload,
                   messageID: Hex.encode(envelope.messageID))
    }

    // MARK: originating

    /// PEAT-R3: the app's bytes go out in a fresh envelope, hop 0 of 7. Envelopes name no
    /// destination, so a message for one node is not something this node can originate.
    private mutating func originate(_ payload: [UInt8], to destination: NodeAddress?, at now: Instant) -> [NodeAction] {
        guard destination == nil, PeatRelayEnvelope.headerSize + payload.count <= PeatWire.maxValueSize else {
            links.decline()
            return []
        }
        // A fresh millisecond per message, so two messages with the same payload never share an id.
        let timestamp = max(epochMs &+ UInt64(max(0, now.nanoseconds / 1_000_000)), lastTimestamp &+ 1)
        lastTimestamp = timestamp
        let envelope = PeatRelayEnvelope(broadcast: true, messageID: PeatRelayEnvelope.messageID(origin: nodeID, timestampMs: timestamp, payloadHash: PeatWire.digest32(payload)),
                                         maxHops: Self.defaultMaxHops, origin: nodeID, payload: payload)
        seen.insert(envelope.messageID, at: now)
        return links.sendAll([envelope.encoded()], except: nil)
    }
}

extension Fault {
    /// The generic mutants the peat reference node carries (its own are listed in `dialects`).
    static let carriedByPeat: Set<Fault> = [.noDedup, .noTTLDecrement, .relayTTLOne, .relayToSender, .crashOnTruncated,
                                             .crashOnRefused, .lateRelay, .clampTTL, .dedupByOrigin, .relayOwn,
                                             .smallDedupCache, .shortRetention, .evictArbitrary, .doubleDeliver,
                                             .ownHopBudget, .noDocumentPeriod, .noMergeResend, .emergencyOverwrite,
                                             .olderEmergencyReplaces, .noEmergencyAck, .laxEnvelopeLength,
                                             .laxCounters, .laxSections, .markerVersion]
}
