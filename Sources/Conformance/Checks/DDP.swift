import MeshNode
import MeshWire

/// DDP: de-duplication (RELAY-R3, R5, R10; BLEMESH-R5). Every assertion that depends on the
/// DUT's de-duplication lives in this group, so a DUT without a cache fails exactly DDP.
enum DDP {
    static let checks = [bv01, bv02, bv03, bv04, bv05, bv06, bv14, bv07, bv15, bv08, bv09, bv10]

    static let bv01 = Check("DDP/BV-01", "the same message twice on one link is relayed once",
                            needs: [.relay, .links(2)], rules: ["RELAY-R3", "BLEMESH-R5", "PEAT-R4", "BITCHAT-R3", "SIMPLE-R3"]) { t in
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends a message for another node, then the same bytes again after the relay window.
        let sent = try t.message(MessageSpec(from: .stranger(1), to: t.probe.relayedDestination))
        try t.send(sent, from: 1)
        let first = try t.observe(for: t.parameters.quietPeriod) { !t.sightings(of: sent, in: $0).isEmpty }
        try t.send(sent, from: 1)
        let second = try t.observe(for: t.parameters.quietPeriod)
        // 3. The first copy is relayed to T2; the second is not relayed at all.
        try t.require(!t.sightings(of: sent, in: first).isEmpty, "the first copy was not relayed, so de-duplication cannot be seen",
                      judgedBy: "RLY/BV-01", seen: t.summary(first))
        try t.expect(t.sightings(of: sent, in: second).isEmpty, "the duplicate was relayed again",
                     expected: "nothing after the second copy", seen: t.summary(second))
    }

    static let bv02 = Check("DDP/BV-02", "the same message arriving on two links is relayed once",
                            needs: [.relay, .links(3)], rules: ["RELAY-R3", "RELAY-R5.2", "BLEMESH-R5", "PEAT-R4", "BITCHAT-R3", "SIMPLE-R3", "SIMPLE-R8"]) { t in
        // 1. Three testers link to the DUT.
        try t.connect(3)
        // 2. T1 sends a message for another node; the DUT relays it (to T2 and T3).
        let (sent, first) = try t.sendRelayable(MessageSpec(from: .stranger(1), to: t.probe.relayedDestination), from: 1, fanOut: 2)
        try t.require(!t.sightings(of: sent, in: first).isEmpty, "the first copy was not relayed, so de-duplication cannot be seen",
                      judgedBy: "RLY/BV-01", seen: t.summary(first))
        // 3. After the relay window, T2 sends the same message, as if it had come a longer way.
        //    (Waiting first keeps clear of blemesh's MAY-cancel of a relay still scheduled.)
        try t.send(sent, from: 2)
        // 4. The DUT relays nothing more.
        let second = try t.observe(for: t.parameters.quietPeriod)
        try t.expect(t.sightings(of: sent, in: second).isEmpty, "the copy from the second link was relayed again",
                     expected: "nothing after T2's copy", seen: t.summary(second))
    }

    static let bv03 = Check("DDP/BV-03", "a new message from a known origin is not a duplicate",
                            needs: [.relay, .links(2)], rules: ["RELAY-R3", "BLEMESH-R5", "PEAT-R4", "BITCHAT-R3", "SIMPLE-R3"]) { t in
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends two messages from the same origin with the same payload, one after the
        //    other; only the sequence (and the dialect's message id) differ.
        for n in 1...2 {
            let sent = try t.message(MessageSpec(from: .stranger(1), to: t.probe.relayedDestination))
            try t.send(sent, from: 1)
            // 3. Each is relayed on L2.
            let seen = try t.observe(for: t.parameters.quietPeriod) { t.sightings(of: sent, in: $0).contains { $0.link == LinkID(2) } }
            try t.expect(t.sightings(of: sent, in: seen).contains { $0.link == LinkID(2) },
                         n == 1 ? "the first message was not relayed" : "a new message from a known origin was taken for a duplicate",
                         expected: "message \(n) relayed on L2", seen: t.summary(seen))
        }
    }

    static let bv04 = Check("DDP/BV-04", "its own message echoed back is not relayed",
                            needs: [.relay, .links(2)], rules: ["RELAY-R5.1", "BLEMESH-R6.1", "PEAT-R3", "BITCHAT-R6.1", "SIMPLE-R4.1"]) { t in
        // 1. Two testers link to the DUT.
        try t.connect(2)
        //    Baseline: a fresh message from T1 is relayed and recognised before any stimulus,
        //    so the liveness probe at the end can tell "stopped" from "never seen".
        try t.establishBaseline()
        // 2. T1 sends a message whose origin is the DUT, as a neighbour would relay it back.
        //    The DUT never sent it, so only its origin id, not its cache, marks it as its own.
        let echo = try t.message(MessageSpec(from: .dut, to: t.probe.relayedDestination))
        try t.send(echo, from: 1)
        // 3. The DUT relays no copy of it.
        let seen = try t.observe(for: t.parameters.quietPeriod)
        try t.expect(t.sightings(of: echo, in: seen).isEmpty, "relayed its own message",
                     expected: "no relay", seen: t.summary(seen))
        // 4. It still relays others' messages.
        try t.expectStillRelaying(after: "its own message echoed back")
    }

    static let bv05 = Check("DDP/BV-05", "a message addressed to it is delivered to the app once, however often it arrives",
                            dialects: [.relay, .blemesh, .bitchat, .camp], needs: [.upperTester, .links(2)], rules: ["RELAY-R4.2", "BLEMESH-R5", "BLEMESH-R11", "BITCHAT-R3", "BITCHAT-R9", "CAMP-R5"]) { t in
        try expectDeliveredOnce(t, to: .dut)
    }

    /// DDP/BV-05 and BV-13: a message to `destination` (nil: everyone) is delivered once.
    static func expectDeliveredOnce(_ t: CheckContext, to destination: Party?) throws {
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends the message from S1; then T1 and T2 each send it again.
        let sent = try t.message(MessageSpec(from: .stranger(1), to: destination))
        var seen: [Observation] = []
        for tester in [1, 1, 2] {
            try t.send(sent, from: tester)
            seen += try t.observe(for: t.parameters.answerPeriod)
        }
        // 3. The app got it exactly once.
        let deliveries = try t.deliveries(of: sent, in: seen)
        // A delivery of the payload naming someone else than the origin as the sender.
        let misnamed = seen.compactMap { o -> NodeAddress? in
            guard case .delivered(let m) = o.kind, m.payload == sent.payload, m.origin != sent.origin else { return nil }
            return m.origin
        }
        if deliveries.isEmpty, let other = misnamed.first {
            throw CheckFailed(reason: "delivered naming \(other) as the sender, not the origin", expected: "one delivery from \(sent.origin)",
                              seen: t.summary(seen))
        }
        try t.expect(deliveries.count == 1, deliveries.isEmpty ? "the message was never delivered" : "delivered more than once",
                     expected: "one delivery", seen: "\(deliveries.count) deliveries: \(t.summary(seen))")
    }

    static let bv15 = Check("DDP/BV-15", "a message delivered once is not delivered again when it comes back 11 s, 60 s and shortly before the retention minimum later",
                            dialects: [.relay, .blemesh, .bitchat, .camp], needs: [.upperTester, .links(2)], rules: ["RELAY-R3", "RELAY-R4.2", "BLEMESH-R5", "BLEMESH-R11", "BITCHAT-R3", "BITCHAT-R9"]) { t in
        // As DDP/BV-07: 10 s short of the retention minimum, and of the freshness limit where a
        // copy older than that is dropped unseen anyway (bitchat).
        let last = min(t.parameters.dedupRetention, t.parameters.freshness ?? t.parameters.dedupRetention) - .seconds(10)
        let repeats = [Duration.seconds(11), .seconds(60), last].filter { $0 <= last }
        try t.requireTime(last + t.parameters.answerPeriod * 2, for: "repeating a delivered message up to \(last) after its first copy")
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends a message for the DUT from S1; the app gets it.
        let sent = try t.message(MessageSpec(from: .stranger(1), to: .dut))
        let start = t.elapsed
        try t.send(sent, from: 1)
        var seen = try t.observe(for: t.parameters.answerPeriod)
        try t.require(try t.deliveries(of: sent, in: seen).count == 1, "the message was not delivered once, so a repeat cannot be judged",
                      judgedBy: "DDP/BV-05", seen: t.summary(seen))
        // 3. T1 sends the same bytes again 11 s, 60 s and 10 s short of the retention minimum
        //    after the first copy (a DUT that forgets deliveries sooner than its relays shows).
        for at in repeats {
            seen += try t.observe(for: max(.zero, at - (t.elapsed - start)))
            try t.send(sent, from: 1)
            let again = try t.observe(for: t.parameters.answerPeriod)
            seen += again
            // 4. The app is not told again.
            let n = try t.deliveries(of: sent, in: seen).count
            try t.expect(n == 1, "delivered again when the message came back \(at) after its first copy",
                         expected: "one delivery in all (entries are kept at least \(t.parameters.dedupRetention))",
                         seen: "\(n) deliveries: \(t.summary(again))")
        }
    }

    static let bv06 = Check("DDP/BV-06", "the cache holds at least the dialect's capacity",
                            needs: [.relay, .links(2)], rules: ["RELAY-R3", "BLEMESH-R5", "PEAT-R4", "BITCHAT-R3", "SIMPLE-R3"]) { t in
        let capacity = t.parameters.dedupCapacity
        if let declared = t.capabilities.dedupCapacity {
            try t.expect(declared >= capacity, "the declared de-duplication capacity is below the page's minimum",
                         expected: "at least \(capacity) entries", seen: "dedupCapacity \(declared)")
        }
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends a message for another node; it is relayed.
        let first = try t.message(MessageSpec(from: .stranger(1), to: t.probe.relayedDestination))
        let firstSentAt = t.elapsed
        try t.send(first, from: 1)
        let seen = try t.observe(for: t.parameters.quietPeriod) { !t.sightings(of: first, in: $0).isEmpty }
        try t.require(!t.sightings(of: first, in: seen).isEmpty, "the first message was not relayed, so de-duplication cannot be seen",
                      judgedBy: "RLY/BV-01", seen: t.summary(seen))
        // 3. T1 fills the cache: distinct messages up to the page's capacity, less the entries
        //    the DUT makes for itself meanwhile (its own announces and messages, counted as they
        //    are heard: on the air the fill takes seconds, and a device announces on its own
        //    schedule) and a margin for its unheard ones (beacons, the last batch's), in batches
        //    so a real DUT's queues and the session's buffers keep up.
        //    The check's budget carries the fill: after each batch the time the rest will take,
        //    at the pace measured so far, is reserved (over GATT 1000 messages take about the
        //    declared budget of 45 s, more on a loaded host).
        let margin = 8, batch = 64
        var heard = seen
        func own() -> Int { Set(t.ownMessages(in: heard).map(\.message.key)).count }
        var sent = 0
        let fillStart = t.elapsed
        while sent + own() < capacity - 1 - margin {
            for _ in 0..<min(batch, capacity - 1 - margin - own() - sent) {
                let filler = try t.message(MessageSpec(from: .stranger(3), to: t.probe.relayedDestination))
                try t.send(filler, from: 1)
                sent += 1
            }
            let pace = (t.elapsed - fillStart + t.parameters.quietPeriod) / sent
            let rest = max(0, capacity - 1 - margin - own() - sent)
            t.reserveBudget(pace * rest + t.parameters.quietPeriod * 2, for: "the fill of \(capacity) entries (\(rest) messages to go at \(CheckContext.ms(pace)) each)")
            heard += try t.observe(for: t.parameters.quietPeriod)
        }
        let entries = "\(sent + 1 + own()) entries (\(sent + 1) of the tester's, \(own()) of the DUT's own)"
        t.note("sent \(sent) more distinct messages after the first: \(entries)")
        // 4. T1 sends the first message again, past the dialect's ingress gate: still
        //    remembered, so not relayed.
        try t.passIngressGate(since: firstSentAt)
        try t.send(first, from: 1)
        let again = try t.observe(for: t.parameters.quietPeriod)
        try t.expect(t.sightings(of: first, in: again).isEmpty, "forgot a message within the cache's capacity",
                     expected: "no relay of the first message after \(entries)", seen: t.summary(again))
    }

    static let bv14 = Check("DDP/BV-14", "past its capacity the cache evicts its oldest entries first, never a recent one",
                            needs: [.relay, .links(2)], rules: EvictionPlan.rules) { t in
        // Every page bounds the cache and evicts the oldest first. The tester overflows the
        // capacity the DUT declares, or, when it declares none, the page's minimum: a cache of
        // just that size (the apps' own, e.g. Robot Heart's 1000, camp page row 2) is decided
        // without a capabilities file; a larger one never overflows, which step 4 reports.
        let declared = t.capabilities.dedupCapacity
        let capacity = declared ?? t.parameters.dedupCapacity
        let bound = declared.map { "the declared dedupCapacity \($0)" } ?? "the page's minimum capacity \(capacity) (none declared)"
        t.note("overflowing \(bound)")
        let plan = EvictionPlan(capacity: capacity, batch: min(64, t.parameters.relaysWaitingMax ?? 64))
        // The cost up front: a quiet period a batch, and over the air the writes themselves
        // (about 45 ms a message over GATT, DDP/BV-06).
        let writes = t.latencyVaries ? Self.airWrite * (plan.fill + plan.window.count / plan.stride) : .zero
        try t.requireTime(t.parameters.quietPeriod * plan.batches + writes, for: "overflowing a cache of \(capacity) entries (\(bound)) in \(plan.batches) batches")
        let rule = EvictionPlan.rules.first { $0.hasPrefix(t.dialect.rawValue.uppercased() + "-") } ?? "its page"
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends capacity + overflow distinct messages for another node, in batches; the
        //    tester notes which the DUT relayed (so took in) and what else it sent or relayed
        //    meanwhile (its own traffic and others': entries the tester did not make).
        var fillers: [ProbeMessage] = []
        var ours: Set<String> = [], relayed: Set<String> = [], others: Set<String> = []
        func sendBatch(_ messages: [ProbeMessage]) throws -> [Observation] {
            for m in messages { try t.send(m, from: 1) }
            let seen = try t.observe(for: t.parameters.quietPeriod)
            for o in seen {
                switch o.packet {
                case .message(let m)?: if ours.contains(m.key) { relayed.insert(m.key) } else { others.insert(m.key) }
                case .beacon(let b)?: others.insert("beacon \(b.origin)/\(b.seqNo)")
                // An ack is a message of its own in some dialects (a camp confirmation has an id).
                case .ack(let id, _, _)?: others.insert("ack \(id)")
                // A relay the tester cannot decode but ties to one of its messages by its bytes.
                case .malformed?: if let key = o.bytes.flatMap(t.matchedMessage), ours.contains(key) { relayed.insert(key) }
                default: break
                }
            }
            return seen
        }
        while fillers.count < plan.fill {
            let batch = try (0..<min(plan.batch, plan.fill - fillers.count)).map { _ in
                try t.message(MessageSpec(from: .stranger(3), to: t.probe.relayedDestination))
            }
            fillers += batch
            ours.formUnion(batch.map(\.key))
            _ = try sendBatch(batch)
        }
        t.note("sent \(plan.fill) distinct messages into a cache of \(capacity); the DUT relayed \(relayed.count) of them and sent \(others.count) others")
        // 3. T1 sends a sample of the newest capacity - margin again, oldest first: an
        //    oldest-first cache still holds every one (the margin leaves room for entries the
        //    DUT made of its own meanwhile), so none may be relayed. Only messages the DUT
        //    relayed the first time are judged: one it dropped unseen may not be cached.
        //    (Past the dialect's ingress gate after the last batch, so the cache is what answers.)
        try t.passIngressGate(since: t.elapsed - t.parameters.quietPeriod)
        let sample = fillers[plan.window].enumerated().filter { $0.offset % plan.stride == 0 }.map(\.element).filter { relayed.contains($0.key) }
        guard sample.count * 2 >= plan.window.count / plan.stride else {
            throw t.inconclusive("the DUT relayed only \(relayed.count) of \(plan.fill) messages the first time: too few to judge what its cache holds")
        }
        for start in stride(from: 0, to: sample.count, by: plan.batch) {
            let batch = Array(sample[start..<min(start + plan.batch, sample.count)])
            let seen = try sendBatch(batch)
            guard others.count <= plan.margin else {
                throw t.inconclusive("the DUT took in \(others.count) messages or beacons not the tester's during the check, more than the \(plan.margin) its cache's margin allows: cannot tell an eviction from crowding")
            }
            let forgotten = batch.filter { !t.sightings(of: $0, in: seen).isEmpty }
            try t.expect(forgotten.isEmpty, "forgot a recent message that an oldest-first cache of \(capacity) still holds: it evicts an arbitrary or a newer id, not the oldest, or holds fewer than \(declared == nil ? "the page's minimum" : "it declares") (\(rule))",
                         expected: "no relay: each is among the newest \(capacity - plan.margin) of \(plan.fill) sent into \(capacity) entries",
                         seen: "\(forgotten.count) relayed again, e.g. message \(fillers.firstIndex { $0.key == forgotten[0].key }! + 1) of \(plan.fill): \(t.summary(seen))")
        }
        // 4. T1 sends the first message again: an oldest-first cache evicted it, so it is
        //    relayed; if not, the cache did not overflow and step 3 proved nothing.
        let first = try sendBatch([fillers[0]])
        guard !t.sightings(of: fillers[0], in: first).isEmpty else {
            throw t.inconclusive("the first of \(plan.fill) messages was still remembered: the cache holds more than \(bound), so it never overflowed\(declared == nil ? " (declare dedupCapacity to overflow a larger cache)" : "")")
        }
    }

    /// What one message takes to write over GATT (1000 in about 45 s, DDP/BV-06's fill).
    static let airWrite: Duration = .milliseconds(45)

    /// DDP/BV-14's sizes for a cache of `capacity` entries. An arbitrary eviction lands on the
    /// newest `capacity - margin` with a probability near 1, so with `overflow` evictions and
    /// every `stride`-th of those replayed the chance that none is caught is about
    /// exp(-overflow * sample / capacity) = exp(-24), while the cost stays near one cache-full.
    struct EvictionPlan {
        /// Each page's rule that bounds the cache and evicts the oldest first.
        static let rules = ["RELAY-R3", "BLEMESH-R5", "PEAT-R4", "BITCHAT-R3", "SIMPLE-R3", "CAMP-R2"]
        let capacity: Int
        /// Messages sent before each quiet period: few enough for the DUT to relay them all.
        let batch: Int
        /// Messages past the capacity: the evictions an oldest-first cache makes of the tester's.
        let overflow: Int
        /// Room left for entries the DUT makes meanwhile (its own traffic, others' relayed).
        let margin: Int
        let fill: Int
        /// The messages an oldest-first cache still holds at the end, by index.
        let window: Range<Int>
        let stride: Int

        init(capacity: Int, batch: Int) {
            self.capacity = capacity
            self.batch = batch
            let root = Int((24 * Double(capacity)).squareRoot().rounded(.up))
            overflow = root
            margin = max(8, capacity / 16)
            fill = capacity + overflow
            window = (fill - max(1, capacity - margin)) ..< fill
            stride = max(1, window.count / root)
        }

        /// Batches the check sends, each followed by a quiet period.
        var batches: Int {
            let sample = (window.count + stride - 1) / stride
            return (fill + batch - 1) / batch + (sample + batch - 1) / batch + 1
        }
    }

    static let bv07 = Check("DDP/BV-07", "a duplicate is still recognised shortly before the retention minimum",
                            needs: [.relay, .links(2)], rules: ["RELAY-R3", "BLEMESH-R5", "PEAT-R4", "BITCHAT-R3", "BITCHAT-R4", "SIMPLE-R3"]) { t in
        // The page keeps entries at least the retention; testing 10 s short of it leaves room
        // for a DUT that sweeps its cache on a coarse timer without crossing the boundary.
        // Where a copy older than the freshness limit is dropped unseen anyway (bitchat), only
        // retention within that limit can be observed, so the wait stops 10 s short of it.
        let wait = min(t.parameters.dedupRetention, t.parameters.freshness ?? t.parameters.dedupRetention) - .seconds(10)
        try t.requireTime(wait + t.parameters.quietPeriod * 2, for: "repeating a message \(wait) after its first copy")
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends a message for another node; it is relayed.
        let sent = try t.message(MessageSpec(from: .stranger(1), to: t.probe.relayedDestination))
        try t.send(sent, from: 1)
        let first = try t.observe(for: t.parameters.quietPeriod) { !t.sightings(of: sent, in: $0).isEmpty }
        try t.require(!t.sightings(of: sent, in: first).isEmpty, "the first copy was not relayed, so de-duplication cannot be seen",
                      judgedBy: "RLY/BV-01", seen: t.summary(first))
        // 3. The tester waits until the retention minimum is 10 s away (INCONC if that is past
        //    the check's budget: declare checkBudgetSeconds to run it on a real clock).
        _ = try t.observe(for: wait - t.parameters.quietPeriod)
        // 4. T1 sends the same message again: not relayed.
        try t.send(sent, from: 1)
        let second = try t.observe(for: t.parameters.quietPeriod)
        try t.expect(t.sightings(of: sent, in: second).isEmpty, "forgot a message before the retention minimum",
                     expected: "no relay \(wait) after the first copy", seen: t.summary(second))
    }

    static let bv08 = Check("DDP/BV-08", "a beacon repeated, or older than the origin's last, is not rebroadcast; a newer one is",
                            dialects: [.relay], needs: [.relay, .beacons, .links(2)], rules: ["RELAY-R10.2", "RELAY-R10.4"]) { t in
        let relay = try t.probe(RelayProbe.self)
        let origin = relay.beaconOrigin(.stranger(1))
        // 1. Two testers link to the DUT.
        try t.connect(2)
        // 2. T1 sends beacons from one stranger with seqNo 5, 5 again, 3, then 6; after each
        //    the tester watches L2 for the rebroadcast.
        for (seqNo, relayed) in [(UInt32(5), true), (5, false), (3, false), (6, true)] {
            try t.write(relay.beacon(from: .stranger(1), seqNo: seqNo), from: 1)
            let seen = try t.observe(for: t.parameters.quietPeriod)
            let out = t.beacons(in: seen).filter { $0.beacon.origin == origin && $0.beacon.seqNo == seqNo && $0.link == LinkID(2) }
            // 3. 5 and 6 are rebroadcast; the repeat of 5 and the older 3 are not.
            if relayed {
                try t.expect(!out.isEmpty, "beacon seqNo \(seqNo) was not rebroadcast", expected: "a rebroadcast on L2", seen: t.summary(seen))
            } else {
                try t.expect(out.isEmpty, "beacon seqNo \(seqNo) at or below the origin's last was rebroadcast",
                             expected: "no rebroadcast", seen: t.summary(seen))
            }
        }
    }

    static let bv09 = Check("DDP/BV-09", "its own beacon echoed back is not rebroadcast",
                            dialects: [.relay], needs: [.relay, .beacons, .links(2)], rules: ["RELAY-R10.1"]) { t in
        let relay = try t.probe(RelayProbe.self)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        _ = try t.dutAddress()   // needed below: NA while the DUT's own id is unknown
        // 2. T1 sends a beacon with the DUT's own id and a seqNo far ahead of the DUT's, so only
        //    the origin id, not the cache or lastSeq, marks it as the DUT's own.
        let seqNo: UInt32 = 100_000
        try t.write(relay.beacon(from: .dut, seqNo: seqNo, ttl: 5, hop: 2), from: 1)
        // 3. No rebroadcast of it on L2 (the DUT's own new beacons, hop 0, may go out).
        let seen = try t.observe(for: t.parameters.quietPeriod)
        let out = t.beacons(in: seen).filter { $0.beacon.seqNo == seqNo }
        try t.expect(out.isEmpty, "rebroadcast its own beacon", expected: "no rebroadcast", seen: t.summary(seen))
    }

    static let bv10 = Check("DDP/BV-10", "a frame dropped for its spent TTL is still recorded, so a later copy is a duplicate",
                            dialects: [.relay], needs: [.relay, .links(3)], rules: ["RELAY-R5.3"]) { t in
        let relay = try t.probe(RelayProbe.self)
        // 1. Three testers link to the DUT.
        try t.connect(3)
        //    Baseline: a fresh message from T1 is relayed and recognised before any stimulus,
        //    so the liveness probe at the end can tell "stopped" from "never seen".
        try t.establishBaseline()
        // 2. T1 sends a frame for a stranger with TTL 1: not relayed.
        let spent = try t.message(MessageSpec(from: .stranger(1), to: t.probe.relayedDestination, ttl: 1))
        try t.send(spent, from: 1)
        let first = try t.observe(for: t.parameters.quietPeriod)
        try t.expect(t.sightings(of: spent, in: first).isEmpty, "relayed a frame with ttl 1",
                     expected: "no relay", seen: t.summary(first))
        // 3. T2 sends the same frame with TTL 5, as a copy over a shorter path would arrive.
        let again = relay.withTTL(spent, 5)
        try t.send(again, from: 2)
        // 4. It is a duplicate: not relayed.
        let second = try t.observe(for: t.parameters.quietPeriod)
        try t.expect(t.sightings(of: again, in: second).isEmpty, "the TTL-1 frame was not recorded: its later copy was relayed",
                     expected: "no relay", seen: t.summary(second))
        // 5. The DUT still relays fresh frames.
        try t.expectStillRelaying(after: "a duplicate")
    }
}
