import Foundation
import MeshWire

/// The `camp` dialect's node rules (docs/dialects/camp.md section 3): Robot Heart's BLEMessage
/// flooding with de-duplication by id, delivery confirmation and byte-for-byte retry, sans-IO.
struct CampEngine: DialectEngine {
    // camp.md section 5.
    static let jitter = JitterWindow.milliseconds(0, 100)
    static let retention: Duration = .seconds(300)
    static let dedupCapacity = 1000
    /// CAMP-R8: a node announces its camp every 300 s while it has links.
    static let announceEvery: Duration = .seconds(300)

    let config: NodeConfig
    /// CAMP-R1: the node's user id, the same on every link.
    let userID: String
    let userName: String
    private var rng: SeededRandom
    private var timers = TimerClock()
    private var scheduler: RelayScheduler<String, [NodeAction]>
    private var seen: DedupCache<String, Void>
    private var retries = CampRetryQueue()
    private var links: EngineLinks
    /// Seconds since 1970 at `Instant.zero` (setting `epoch`).
    private let epoch: Double
    private(set) var counters = NodeCounters()

    init(config: NodeConfig, seed: UInt64) {
        self.config = config
        userID = config.dialectSettings["userID"] ?? config.address.campUserID
        userName = config.dialectSettings["name"] ?? "meshconform"
        rng = SeededRandom(seed: seed)
        scheduler = RelayScheduler(policy: config.relayPolicy, noJitter: config.faults.contains(.noJitter))
        seen = DedupCache(seenBy: config.faults, capacity: Self.dedupCapacity, retention: Self.retention)
        epoch = config.dialectSettings["epoch"].flatMap(Double.init) ?? 1_746_230_400
        links = EngineLinks(faults: config.faults)
    }

    var stateSize: NodeStateSize {
        var size = NodeStateSize()
        size.dedupEntries = seen.footprint
        size.scheduledRelays = scheduler.relays
        size.storedMessages = retries.count
        size.timers = scheduler.count + retries.count
        size.other = links.count
        return size
    }

    mutating func handle(_ event: NodeEvent, at now: Instant) -> [NodeAction] {
        // Link events only update the link table.
        guard !links.crashed, !links.track(event) else { return [] }
        switch event {
        case .received(let bytes, let link): return receive(bytes, on: link, at: now)
        case .timer(let id):
            if let due = retries.due(id) { return resend(due, at: now) }
            return (scheduler.fire(id) ?? []).filter(links.isLive)
        case .command(.send(let payload, let destination)): return originate(payload, to: destination, at: now)
        case .linkUp, .linkDown: return []
        }
    }

    /// Seconds since 2001-01-01, the app's `Date` encoding.
    private func timestamp(_ now: Instant) -> Double { epoch - SimpleEngine.referenceDate + now.seconds }

    // MARK: announcement (CAMP-R8; the chatty mutant's background traffic too)

    /// The camp this node announces, fixed.
    static let camp = "C4A77E00-0000-4000-8000-000000000001"

    var announcePeriod: Duration? { Self.announceEvery }

    /// A `campAnnouncement` broadcast of its own on the links (CAMP-R8): a ping of its camp, for
    /// an `announce` with its CampAnnouncement payload would not fit one value (CAMP-W1).
    mutating func chatter(_ occasion: ChatterOccasion, at now: Instant) -> [NodeAction] {
        let ping = CampProtocolMessage(kind: .ping, campID: Self.camp, senderID: userID, timestamp: timestamp(now))
        let message = CampMessage(id: rng.uuid().uuidString, senderID: userID, senderName: userName, recipientID: CampMessage.broadcast,
                                  kind: .campAnnouncement, content: String(decoding: ping.encoded(), as: UTF8.self), timestamp: timestamp(now))
        seen.insert(message.id, at: now)
        return occasion.links.filter(links.contains).map { .send(message.encoded(), on: $0) }
    }

    // MARK: originating

    private mutating func originate(_ payload: [UInt8], to destination: NodeAddress?, at now: Instant) -> [NodeAction] {
        // BLEMessage content is text: a payload that is not UTF-8 cannot be sent.
        guard let content = String(validating: payload, as: UTF8.self) else { return [] }
        let message = CampMessage(id: rng.uuid().uuidString, senderID: userID, senderName: userName,
                                  recipientID: destination?.campUserID ?? CampMessage.broadcast, kind: .text,
                                  content: content, timestamp: timestamp(now))
        let bytes = message.encoded()
        guard bytes.count <= CampMessage.maxSize else { return [] }   // CAMP-W1: one value, no chunking
        seen.insert(message.id, at: now)
        var actions = links.sendAll([bytes], except: nil)
        // CAMP-R6: a directed message waits for its confirmation, resent until it comes.
        if !message.isBroadcast, !config.faults.contains(.noRetry) {
            let timer = timers.make()
            actions += retries.add(message.id, bytes: bytes, timer: timer).map(NodeAction.cancelTimer)
            actions.append(.setTimer(timer, at: now + CampRetryQueue.delay(afterResends: 0, fixed: false)))
        }
        return actions
    }

    /// CAMP-R6: the same bytes again on every link, then the next wait, longer by 1.5 each time.
    private mutating func resend(_ due: (messageID: String, bytes: [UInt8], resends: Int), at now: Instant) -> [NodeAction] {
        var bytes = due.bytes
        if config.faults.contains(.retryEmptyContent), var message = try? CampMessage(decoding: bytes[...]) {
            message.content = ""   // the app's retry path (camp.md section 6, difference 4)
            bytes = message.encoded()
        }
        var actions = links.sendAll([bytes], except: nil)
        let done = due.resends + 1
        if done < CampRetryQueue.maxResends {
            let timer = timers.make()
            retries.resent(due.messageID, next: timer)
            let wait = CampRetryQueue.delay(afterResends: done, fixed: config.faults.contains(.fixedRetryInterval))
            actions.append(.setTimer(timer, at: now + wait))
        } else {
            retries.resent(due.messageID, next: nil)
        }
        return actions
    }

    // MARK: receiving

    private mutating func receive(_ bytes: [UInt8], on link: LinkID, at now: Instant) -> [NodeAction] {
        // CAMP-R7: a refused value changes no state.
        guard links.contains(link), let message = decode(bytes) else { return [] }
        let isConfirmation = message.kind == .deliveryConfirmation
        let forMe = message.recipientID == userID
        let key = config.faults.contains(.dedupByOrigin) ? message.senderID : message.id
        if !isConfirmation { counters.copiesReceived += 1 }
        // CAMP-R2: an id already held is a duplicate.
        if seen.contains(key, at: now) {
            if !isConfirmation { counters.duplicateCopies += 1 }
            if !config.faults.contains(.noDedup) {
                var actions = scheduler.heardAgain(key)
                if config.faults.contains(.doubleDeliver), let delivery = deliverable(message) { actions.append(.deliver(delivery)) }
                // CAMP-R5: every copy of a directed message for us is confirmed, so a lost
                // confirmation is replaced when the sender retries.
                if forMe, !isConfirmation, !config.faults.contains(.noReack) { actions += confirm(message, on: link, at: now) }
                return actions
            }
        }
        // CAMP-R4: never relay its own message coming back.
        if message.senderID == userID, !config.faults.contains(.relayOwn) { return [] }
        seen.insert(key, at: now)
        if isConfirmation, forMe {
            // Confirmations are never confirmed (the confirm-confirmations mutant does).
            return confirmed(message.content) + (config.faults.contains(.confirmConfirmations) ? confirm(message, on: link, at: now) : [])
        }
        var actions: [NodeAction] = []
        if let delivery = deliverable(message) { actions.append(.deliver(delivery)) }
        if (forMe && !isConfirmation) || (message.isBroadcast && config.faults.contains(.ackBroadcast)) {
            actions += confirm(message, on: link, at: now)
        }
        // CAMP-R4: the recipient delivers and does not relay; confirmations are relayed like
        // any directed message (the drop-foreign-acks mutant drops them).
        if forMe, !config.faults.contains(.relayForMe) { return actions }
        if isConfirmation, config.faults.contains(.dropForeignAcks) { return actions }
        return actions + relay(message, original: bytes, key: key, on: link, at: now)
    }

    /// CAMP-W1. Mutant any-message-id (app row 6): an id need not be a UUID, as the app reads it.
    private mutating func decode(_ bytes: [UInt8]) -> CampMessage? {
        if config.faults.contains(.anyMessageID), let lax = try? CampMessage(decoding: bytes[...], anyID: true) { return lax }
        return links.decode(bytes, as: CampMessage.self)
    }

    /// What reaches the app: broadcasts and messages for us, never confirmations.
    private func deliverable(_ message: CampMessage) -> AppMessage? {
        // Mutant no-delivery (app row 10): the app's handler is never set.
        guard !config.faults.contains(.noDelivery), message.kind != .deliveryConfirmation, message.isBroadcast || message.recipientID == userID else { return nil }
        return AppMessage(origin: NodeAddress(campUserID: message.senderID),
                          destination: message.isBroadcast ? nil : NodeAddress(campUserID: message.recipientID),
                          payload: Array(message.content.utf8), messageID: message.id)
    }

    /// CAMP-R5: a confirmation of `message`, a new message with a fresh id addressed to its
    /// sender, on the link the copy came in on (the way back that just worked).
    private mutating func confirm(_ message: CampMessage, on link: LinkID, at now: Instant) -> [NodeAction] {
        guard !config.faults.contains(.noAck) else { return [] }
        let confirmedID = config.faults.contains(.ackWrongID) ? rng.uuid().uuidString : message.id
        let confirmation = CampMessage(id: rng.uuid().uuidString, senderID: userID, senderName: userName,
                                       recipientID: message.senderID, kind: .deliveryConfirmation,
                                       content: confirmedID, timestamp: timestamp(now))
        let bytes = confirmation.encoded()
        guard bytes.count <= CampMessage.maxSize else { return [] }
        seen.insert(confirmation.id, at: now)
        return scheduler.reply([.send(bytes, on: link)], window: Self.jitter, now: now, rng: &rng, timers: &timers)
    }

    /// CAMP-R6: a confirmation of one of our messages stops its retries and tells the app.
    private mutating func confirmed(_ messageID: String) -> [NodeAction] {
        guard !config.faults.contains(.ignoreOwnAcks), let timer = retries.confirm(messageID) else { return [] }
        return [.cancelTimer(timer), .acknowledged(messageID: messageID)]
    }

    /// CAMP-R4: once, byte for byte, to every link but the ingress, after 0-100 ms.
    private mutating func relay(_ message: CampMessage, original: [UInt8], key: String, on link: LinkID, at now: Instant) -> [NodeAction] {
        // Mutant rewrite-relay: relays its own encoding of the message, not the bytes it got.
        let bytes = config.faults.contains(.rewriteRelay) ? message.encoded() : original
        let sends = links.sendAll([bytes], except: config.faults.contains(.relayToSender) ? nil : link)
        return scheduler.relay(sends, key: key, degree: links.count, window: Self.jitter.relays(under: config.faults),
                               now: now, rng: &rng, timers: &timers)
    }
}
