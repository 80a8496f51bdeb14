/// How one node is set up: identity, relay policy, and (for mutants) a deliberate fault.
public struct NodeConfig: Sendable {
    public var address: NodeAddress
    /// The relay decision: the dialect's own rule, or another policy (the simulator compares them).
    public var relayPolicy: RelayPolicyKind
    /// Deliberate deviations from the dialect page, each one named mutant of the reference node.
    public var faults: Set<Fault>
    /// Dialect-specific settings (keys, contacts, timing overrides), as the dialect defines them.
    public var dialectSettings: [String: String]
    /// Announces itself as the apps do where its page says a node does but the engine leaves it
    /// out (bitchat's announce, BITCHAT-R13; camp's announcement, CAMP-R8): on each new link and
    /// at the page's period, so a peer learns its identity. `meshconform node` turns it on; off in
    /// the unit tests and the simulator, whose traffic counts leave announces out.
    public var announces: Bool

    public init(address: NodeAddress, relayPolicy: RelayPolicyKind = .dialect, faults: Set<Fault> = [], dialectSettings: [String: String] = [:],
                announces: Bool = false) {
        self.address = address
        self.relayPolicy = relayPolicy
        self.faults = faults
        self.dialectSettings = dialectSettings
        self.announces = announces
    }
}

/// Which relay decision a node uses. The dialect's message rules (TTL, de-duplication, split
/// horizon, directed routing) hold under every policy; the policy decides whether, when and
/// (for blemesh broadcasts) to how many candidate links a relay goes.
public enum RelayPolicyKind: Hashable, Sendable {
    /// The dialect page's own rule (relay: every candidate after 0-100 ms; blemesh: the
    /// BLEMESH-R8 fan-out after the BLEMESH-R10 jitter).
    case dialect
    /// Seed 000's policy: relay probability by degree (0-2 links 100 %, 3-4 90 %, 5-6 70 %,
    /// 7+ 45 %), jitter, cancellation when the message is heard again before the relay fires,
    /// at most 20 scheduled relays. Relays go to every candidate link.
    case probabilistic
    /// Plain flooding: every new message relayed at once to every candidate link (the
    /// simulator's reference point).
    case flood
}

/// A named mutant: one small, visible deviation from the reference node, used to prove that a
/// conformance check can fail. `--mutant NAME` on the command line.
public enum Fault: String, CaseIterable, Hashable, Sendable {
    case noDedup = "no-dedup"
    case noTTLDecrement = "no-ttl-decrement"
    case relayTTLOne = "relay-ttl-one"
    case relayToSender = "relay-to-sender"
    case ignoreHopPath = "ignore-hop-path"
    case noAck = "no-ack"
    case ackBroadcast = "ack-broadcast"
    case ackWrongID = "ack-wrong-id"
    case doubleDeliver = "double-deliver"
    case noJitter = "no-jitter"
    /// Stops answering altogether after the first truncated input.
    case crashOnTruncated = "crash-on-truncated"
    case lateRelay = "late-relay"
    case clampTTL = "clamp-ttl"
    case dedupByOrigin = "dedup-by-origin"
    case relayOwn = "relay-own"
    case relayForMe = "relay-for-me"
    case smallDedupCache = "small-dedup-cache"
    case shortRetention = "short-retention"
    case evictArbitrary = "evict-arbitrary"
    case noReack = "no-reack"
    case dropForeignAcks = "drop-foreign-acks"
    case floodAcks = "flood-acks"
    case ignoreOwnAcks = "ignore-own-acks"
    case laxAck = "lax-ack"
    case seqViaDouble = "seq-via-double"
    case canonicalOnly = "canonical-only"
    case acceptForged = "accept-forged"
    case noBeacon = "no-beacon"
    case beaconType46 = "beacon-type-46"
    case noBeaconRelay = "no-beacon-relay"
    case relayHop255 = "relay-hop-255"
    case ackBeacons = "ack-beacons"
    case retryTTLDecrement = "retry-ttl-decrement"
    case noRetryExpiry = "no-retry-expiry"
    case noLinkLimit = "no-link-limit"
    case deliverAsDest = "deliver-as-dest"
    /// Stops answering altogether after the first input it refuses or drops as nonsense.
    case crashOnRefused = "crash-on-refused"
    // blemesh only: chunking, reassembly (BLEMESH-R3, R4) and routing (R14 to R17).
    case reassembleByMessageID = "reassemble-by-message-id"
    case inOrderChunksOnly = "in-order-chunks-only"
    case overwriteChunks = "overwrite-chunks"
    case trustChunkTotal = "trust-chunk-total"
    case noReassemblyExpiry = "no-reassembly-expiry"
    case badChunkFlags = "bad-chunk-flags"
    case rawControl = "raw-control"
    case noRREP = "no-rrep"
    case noRREQForward = "no-rreq-forward"
    case noAnnounce = "no-announce"
    case noRERR = "no-rerr"
    case ackNoDestination = "ack-no-destination"
    case noHopPathAppend = "no-hop-path-append"
    case fanOutSqrt = "fanout-sqrt"
    case directedAsBroadcast = "directed-as-broadcast"
    case holdUnrouted = "hold-unrouted"
    case lateFailure = "late-failure"
    case retryForever = "retry-forever"
    case deliverOwnOrigin = "deliver-own-origin"
    case refuseSigned = "refuse-signed"
    case flushRequestIDs = "flush-request-ids"
    case readAsUser = "read-as-user"
    case chunksIgnoreMTU = "chunks-ignore-mtu"
    // bitchat only: TTL cap (BITCHAT-R5), padding (BITCHAT-W7), fragments (BITCHAT-R8).
    case noTTLCap = "no-ttl-cap"
    case unpadFirst = "unpad-first"
    case fragmentKeyByID = "fragment-key-by-id"
    case trustFragmentType = "trust-fragment-type"
    case noFragmentDedup = "no-fragment-dedup"
    case randomPadding = "random-padding"
    case lastPieceWins = "last-piece-wins"
    case rescueLateFragments = "rescue-late-fragments"
    case acceptStale = "accept-stale"
    case shortDeliveryDedup = "short-delivery-dedup"
    case ignoreFragmentClaim = "ignore-fragment-claim"
    // bitchat policies of the real apps (bitchat.md section 7): inside the page's envelope.
    case jitterByDegree = "jitter-by-degree"
    case ttlClampByDegree = "ttl-clamp-by-degree"
    case reencodeRelays = "reencode-relays"
    case fanOutSubset = "fanout-subset"
    case ingressGate = "ingress-gate"
    case dedupTrim = "dedup-trim"
    /// bitchat Android: at most 64 assemblies, a new one beyond refused (not the oldest evicted).
    case refuseNewAssembly = "refuse-new-assembly"
    /// bitchat Android: a fragment whose total or type disagrees with its set drops the set.
    case dropSetOnConflict = "drop-set-on-conflict"
    /// bitchat Android: drops at TTL 0 only, so a TTL-1 packet goes on with TTL 0.
    case relayLastHop = "relay-last-hop"
    // simple only: seed 000's relay controller (SIMPLE-R5 to R8).
    case noCancel = "no-cancel"
    case flatProbability = "flat-probability"
    case noRelayFields = "no-relay-fields"
    case noDenseCap = "no-dense-cap"
    // camp only: relay byte for byte (CAMP-R4), confirmation (CAMP-R5) and retry (CAMP-R6).
    case rewriteRelay = "rewrite-relay"
    case confirmConfirmations = "confirm-confirmations"
    case noRetry = "no-retry"
    case retryEmptyContent = "retry-empty-content"
    case fixedRetryInterval = "fixed-retry-interval"
    case anyMessageID = "any-message-id"
    case noDelivery = "no-delivery"
    // peat only: hop budget (PEAT-R3), document period and merge (R2, R5), emergency acks (R6).
    case ownHopBudget = "own-hop-budget"
    case noDocumentPeriod = "no-document-period"
    case noMergeResend = "no-merge-resend"
    case emergencyOverwrite = "emergency-overwrite"
    case olderEmergencyReplaces = "older-emergency-replaces"
    case noEmergencyAck = "no-emergency-ack"
    case laxEnvelopeLength = "lax-envelope-length"
    case laxCounters = "lax-counters"
    case laxSections = "lax-sections"
    case markerVersion = "marker-version"
    // Every dialect: a positive control, not a deviation. It must PASS every check the
    // reference node passes (issue 13: a DUT's own traffic is never a relay or an ack).
    case chatty = "chatty"

    /// The dialects whose reference node carries this deviation. Elsewhere the mutant is the
    /// reference node itself, so mutant tables and mutant tests skip it there. A positive
    /// control deviates from nothing: it has none.
    public var dialects: Set<DialectName> {
        guard !isPositiveControl else { return [] }
        var dialects = listedDialects
        if Self.carriedByCamp.contains(self) { dialects.insert(.camp) }
        if Self.carriedByPeat.contains(self) { dialects.insert(.peat) }
        return dialects
    }

    /// A mutant that conforms (only louder): every check must PASS against it.
    public var isPositiveControl: Bool { self == .chatty }

    /// The dialects where this is a real implementation's policy inside the page's envelope
    /// (a `policy` row of the page's differences table): the node carries it, and no check may
    /// FAIL it.
    public var policyDialects: Set<DialectName> {
        switch self {
        case .jitterByDegree, .ttlClampByDegree, .reencodeRelays, .fanOutSubset, .ingressGate, .dedupTrim, .noJitter: [.bitchat]
        default: []
        }
    }

    /// The dialects besides camp and peat, whose engines list what they carry themselves.
    private var listedDialects: Set<DialectName> {
        switch self {
        case .laxAck, .seqViaDouble, .acceptForged, .noBeacon, .beaconType46, .noBeaconRelay, .relayHop255, .ackBeacons,
             .retryTTLDecrement, .noRetryExpiry, .noLinkLimit, .deliverAsDest:
            [.relay]
        case .ignoreHopPath, .reassembleByMessageID, .inOrderChunksOnly, .overwriteChunks, .trustChunkTotal,
             .badChunkFlags, .rawControl, .noRREP, .noRREQForward, .noAnnounce, .noRERR,
             .ackNoDestination, .noHopPathAppend, .fanOutSqrt, .directedAsBroadcast, .holdUnrouted, .lateFailure, .retryForever, .deliverOwnOrigin, .refuseSigned,
             .flushRequestIDs, .readAsUser, .chunksIgnoreMTU:
            [.blemesh]
        // relay: relaying at once lies inside RELAY-R6's 0-100 ms window (the app does it), so
        // there no-jitter is the reference node's behaviour, not a deviation a check can fail.
        // In bitchat it is bitchat Android's policy, inside BITCHAT-R6.4's 0-220 ms.
        case .noJitter:
            [.blemesh, .bitchat, .simple]
        case .noReassemblyExpiry:
            [.blemesh, .bitchat]
        case .noTTLCap, .unpadFirst, .fragmentKeyByID, .trustFragmentType, .noFragmentDedup,
             .randomPadding, .lastPieceWins, .rescueLateFragments, .acceptStale, .shortDeliveryDedup, .ignoreFragmentClaim,
             .jitterByDegree, .ttlClampByDegree, .reencodeRelays, .fanOutSubset, .ingressGate, .dedupTrim, .relayLastHop,
             .refuseNewAssembly, .dropSetOnConflict:
            [.bitchat]
        case .noCancel, .flatProbability, .noRelayFields, .noDenseCap:
            [.simple]
        case .rewriteRelay, .confirmConfirmations, .noRetry, .retryEmptyContent, .fixedRetryInterval, .anyMessageID, .noDelivery,
             .laxEnvelopeLength, .laxCounters, .laxSections, .markerVersion, .ownHopBudget, .noDocumentPeriod, .noMergeResend, .emergencyOverwrite, .olderEmergencyReplaces, .noEmergencyAck, .chatty:
            []
        // Shared deviations, carried by every engine that has the rule they break: bitchat
        // has no acks (BITCHAT-R10), simple no acks and no destination (SIMPLE-R2, R9).
        case .noDedup, .noTTLDecrement, .relayTTLOne, .relayToSender, .doubleDeliver, .crashOnTruncated, .lateRelay,
             .relayOwn, .smallDedupCache, .shortRetention, .evictArbitrary, .crashOnRefused:
            [.relay, .blemesh, .bitchat, .simple]
        case .dedupByOrigin, .relayForMe:
            [.relay, .blemesh, .bitchat]
        default:
            [.relay, .blemesh]
        }
    }

    public var summary: String {
        switch self {
        case .noDedup: "keeps no de-duplication cache: every copy is delivered and relayed"
        case .noTTLDecrement: "relays with the TTL unchanged"
        case .relayTTLOne: "relays even when the TTL budget is spent (ttl <= 1)"
        case .relayToSender: "relays back on the link the message came in on"
        case .ignoreHopPath: "relays to nodes already on the hop path"
        case .noAck: "never acks"
        case .ackBroadcast: "acks broadcasts too"
        case .ackWrongID: "acks with a wrong identifier"
        case .doubleDeliver: "delivers a duplicate to the app again"
        case .noJitter: "relays at once, with no jitter"
        case .crashOnTruncated: "stops answering after a truncated input"
        case .lateRelay: "relays three times the jitter window's end late"
        case .clampTTL: "clamps a received TTL to the default before relaying"
        case .dedupByOrigin: "de-duplicates by origin alone: a new message from a known origin is a false duplicate"
        case .relayOwn: "relays its own messages and beacons when they come back (relay app bug 5)"
        case .relayForMe: "relays messages addressed to itself too"
        case .smallDedupCache: "keeps only 16 de-duplication entries"
        case .shortRetention: "forgets de-duplication entries after 10 s"
        case .evictArbitrary: "evicts an arbitrary id, not the oldest, when its de-duplication cache is full (camp app row 2)"
        case .noReack: "does not ack a duplicate again"
        case .dropForeignAcks: "drops acks for messages it relayed instead of passing them back (relay app bug 7)"
        case .floodAcks: "forwards an ack it cannot match on every other link"
        case .ignoreOwnAcks: "ignores acks for its own messages: keeps retransmitting, never tells the app (relay app bug 7)"
        case .laxAck: "accepts an ack with bytes after its 8-byte header (relay app bug 8)"
        case .seqViaDouble: "reads seq through a Double, losing the low bits above 2^53 (relay app bug 12)"
        case .canonicalOnly: "refuses headers not in canonical encoding (key order, spacing, 8.0, lowercase UUIDs)"
        case .acceptForged: "records a message whose body does not open, so a forged copy pre-empts the genuine one"
        case .noBeacon: "sends no beacons"
        case .beaconType46: "sends beacons with packet type 0x46 (relay app bug 1)"
        case .noBeaconRelay: "never rebroadcasts beacons (relay app bug 2)"
        case .relayHop255: "rebroadcasts beacons at hop 255 (the hop count wraps to 0)"
        case .ackBeacons: "acks beacons as if they were frames"
        case .retryTTLDecrement: "lowers its unacked frame's ttl by one each time it resends it (relay app bug 9)"
        case .noRetryExpiry: "resends its unacked frames to new neighbours forever, past 300 s (relay app bug 9)"
        case .noLinkLimit: "accepts links beyond seven (relay app bug 10)"
        case .deliverAsDest: "tells the app the message came from its destination, itself, not its origin (SwiftMeshRelay before its pin, relay.md row 11)"
        case .crashOnRefused: "stops answering after any input it refuses or drops as nonsense"
        case .reassembleByMessageID: "reassembles chunks by messageID alone, mixing copies from two links (blemesh app bug 7)"
        case .inOrderChunksOnly: "drops a chunk that is not the next index expected"
        case .overwriteChunks: "lets a repeated chunk index replace the piece already held (blemesh app bug 7)"
        case .trustChunkTotal: "takes each chunk's totalChunks as the truth and completes on it (blemesh app bug 7)"
        case .noReassemblyExpiry: "never discards an incomplete reassembly"
        case .badChunkFlags: "writes flags 0 on every chunk (no first / last bits)"
        case .rawControl: "writes ANNOUNCE, RREQ, RREP and RERR envelopes raw, unchunked (blemesh app bug 1)"
        case .noRREP: "sends no RREP: neither answers an RREQ for itself nor forwards one"
        case .noRREQForward: "never forwards an RREQ for another node"
        case .noAnnounce: "has no ANNOUNCE: sends, forwards and learns routes from none"
        case .noRERR: "has no RERR: sends none when a link with routes goes down, ignores those it receives"
        case .ackNoDestination: "blemesh app bug 2: ACK envelopes carry no destinationID, and control envelopes are never relayed"
        case .noHopPathAppend: "relays with the hop path unchanged"
        case .fanOutSqrt: "fans a broadcast out to ceil(sqrt(N)) candidates, without the + 1"
        case .directedAsBroadcast: "relays a directed envelope like a broadcast, ignoring neighbours and routes"
        case .lateFailure: "gives up an unacked message only at the next backoff step (40-45 s) after the third retry, not 10 s after it (DeliveryService read alone, blemesh.md row 14)"
        case .deliverOwnOrigin: "delivers an envelope bearing its own origin id that it never sent, relaying none, as it drops only what its cache holds (blemesh app bug 20)"
        case .noDelivery: "delivers nothing to its app, while it still confirms and relays (camp app row 10: nothing sets the app's message handler)"
        case .retryForever: "resends an unacked message every 5-10 s until it is acked, never failing it, as each of the app's retries tracks the message anew (blemesh app bug 14)"
        case .refuseSigned: "drops every envelope that carries a signature, as one whose signature fails to verify (blemesh app bug 10, 471fcaea)"
        case .flushRequestIDs: "empties its memory of RREQ ids at once when it passes 1000 entries, so older requests are taken as new again (blemesh app bug 8)"
        case .readAsUser: "reads every message addressed to it at once and sends the READ receipt in a user envelope (isControlMessage false), as the app's sendControlMessage builds it (blemesh app bug 3)"
        case .chunksIgnoreMTU: "sends its chunks in 162-byte pieces (~330 bytes) whatever the link carries, where a notification must fit ATT_MTU - 3 (blemesh app bug 6: the app's updateValue at any MTU)"
        case .holdUnrouted: "holds a directed envelope with neither neighbour nor route for its destination, then loses it, instead of relaying it to every candidate (blemesh app bug 13)"
        case .noTTLCap: "relays a TTL above 7 as TTL - 1 instead of capping it at 7 first (BITCHAT-R5)"
        case .unpadFirst: "strips anything that looks like PKCS#7 padding before parsing (BITCHAT-W7 says raw first)"
        case .fragmentKeyByID: "reassembles fragments by fragmentID alone, mixing two senders' fragments (BITCHAT-R8.1)"
        case .trustFragmentType: "dispatches a reassembled packet on the fragment header's unauthenticated originalType"
        case .noFragmentDedup: "exempts fragments from de-duplication: every copy is relayed again (bitchat app bug 5)"
        case .randomPadding: "re-pads every relay with random bytes after the frame, not one PKCS#7 pad (BITCHAT-W7): no relay of it decodes"
        case .lastPieceWins: "lets a repeated fragment index with other bytes replace the piece already held (BITCHAT-R8.5; bitchat iOS, BLEFragmentAssemblyBuffer.swift:114-115@9b84b361)"
        case .ignoreFragmentClaim: "handles a completed assembly by its inner packet's own type without comparing the fragments' originalType, so a message claimed as an announce is delivered (BITCHAT-R8.4; bitchat iOS, BLEFragmentHandler.swift:59-72@9b84b361)"
        case .rescueLateFragments: "keeps an incomplete assembly that is at least 75 % complete past the 30 s lifetime, so a late last fragment completes it (BITCHAT-R8.2)"
        case .acceptStale: "takes packets of any age: no 120 s freshness window, so a packet 10 minutes old is delivered and relayed (BITCHAT-R4)"
        case .shortDeliveryDedup: "remembers what it delivered for 10 s only: the same broadcast again after that reaches the app a second time (its relay de-duplication is intact; BITCHAT-R3, R9)"
        case .jitterByDegree: "delays a relay by the degree as bitchat iOS does: broadcasts 10-40 ms at 0-2 links, 60-150 ms at 3-5, 80-180 ms at 6-9, 100-220 ms at 10 or more; fragments 8-25 ms (a policy inside BITCHAT-R6.4; RelayController.swift:88-94@9b84b361)"
        case .ttlClampByDegree: "clamps a relay's TTL by the degree as bitchat iOS does: at 3-5 links min(capped, 6) - 1 (7 for announces), at 6 or more min(capped, 5) - 1, never below 1; fragments 7, or 5 at 6 or more (a policy inside BITCHAT-R5; RelayController.swift:54-84@9b84b361)"
        case .reencodeRelays: "relays its own encoding of the packet, as bitchat iOS does: reserved flags dropped, padding as BITCHAT-W7 says, payload and signature kept (a policy inside BITCHAT-R6.4; BLEService.swift:6093-6094@9b84b361)"
        case .fanOutSubset: "sends a broadcast (not a fragment, announce or requestSync) to a subset of min(n, b + 1) of its n other links, b the bit length of n - 1, chosen by the message id, as bitchat iOS does (a policy inside BITCHAT-R6.4; BLEFanoutSelector.swift:71-89@9b84b361)"
        case .ingressGate: "drops every packet, fragments included, whose de-duplication key came in during the last 3 s, before anything else, as bitchat iOS does (BLEService.swift:5874@9b84b361)"
        case .relayLastHop: "relays a TTL-1 packet with TTL 0, dropping only TTL 0, as bitchat Android does (BITCHAT-R5; PacketRelayManager.kt:59-62@09b481f1)"
        case .refuseNewAssembly: "holds at most 64 assemblies and refuses a new one beyond, instead of evicting the oldest of 128, as bitchat Android does (BITCHAT-R8.3; FragmentManager.kt:206-212@09b481f1)"
        case .dropSetOnConflict: "drops the whole assembly when a fragment's total or originalType differs from its set's, instead of ignoring that fragment, as bitchat Android does (BITCHAT-R8.5; FragmentManager.kt:198-203@09b481f1)"
        case .dedupTrim: "past 1000 de-duplication entries removes the oldest down to 750, as bitchat iOS does (a policy inside BITCHAT-R3; MessageDeduplicator.swift:74-89@9b84b361)"
        case .noCancel: "never cancels a scheduled relay when the message is heard again (SIMPLE-R8)"
        case .flatProbability: "relays with probability 1 whatever its degree (SIMPLE-R6)"
        case .noRelayFields: "relays with relayCount, isRelayed and lastRelay unchanged (SIMPLE-R4.3)"
        case .noDenseCap: "keeps TTL 5 on nodes with more than 4 links (SIMPLE-R5 caps it at 3)"
        case .rewriteRelay: "relays its own re-encoding of a message instead of the bytes it received (CAMP-R4)"
        case .confirmConfirmations: "answers a delivery confirmation with a confirmation of its own (CAMP-R5)"
        case .noRetry: "never resends an unconfirmed directed message (CAMP-R6)"
        case .retryEmptyContent: "resends with empty content, as the app's retry path does (CAMP-R6; Robot Heart before its pin, camp.md row 9)"
        case .fixedRetryInterval: "resends every 30 s instead of backing off by 1.5 (CAMP-R6)"
        case .anyMessageID: "takes any string as a message id, not only a UUID, and relays such a message (CAMP-W1, camp app row 6)"
        case .ownHopBudget: "judges an envelope's hop budget by its own default of 7 instead of the envelope's max_hops (PEAT-R3)"
        case .noDocumentPeriod: "writes its document only when it changes, never every 2 s (PEAT-R2)"
        case .noMergeResend: "does not send its document again after a merge changed it (PEAT-R5, R6.4)"
        case .emergencyOverwrite: "takes a received copy of the held emergency as it is, so an ack can go from true to false (PEAT-R6.1)"
        case .olderEmergencyReplaces: "lets a different emergency replace the held one even when it is older (PEAT-R6.2)"
        case .noEmergencyAck: "never acknowledges the emergency it holds (PEAT-R6.3)"
        case .laxEnvelopeLength: "ignores bytes after a relay envelope's payload instead of refusing it (PEAT-W5, peat app row 5)"
        case .laxCounters: "merges a document whose counter has a node 0 entry (skipped), entries out of order or a node twice (the later wins) instead of refusing it (PEAT-W2, peat app row 3)"
        case .laxSections: "merges a document whose section runs past its end, as far as it could read it, instead of refusing it (PEAT-W2, peat app row 2)"
        case .markerVersion: "lets its document version take every value, so a version whose low byte is a frame marker (0xAE to 0xB2) goes out (PEAT-R2, peat app row 9)"
        case .chatty: "positive control, every dialect: conforms, but sends its background traffic (announces, beacons, documents, own messages) on every link-up and every 500 ms; must pass every check"
        }
    }
}
