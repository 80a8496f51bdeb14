import Foundation
import MeshNode
import MeshWire

/// RTE: route discovery and upkeep (BLEMESH-R14 to R18). Requests, replies and announcements
/// that reach the DUT through a tester come in a new envelope from that tester, as a node
/// forwarding them would send it (R14, R15.5, R16).
enum RTE {
    static let checks = [bv01, bv02, bi01, bi02, bv03, bv04, bv05, bv06, bv07, bv08]

    /// The control messages of one kind the DUT sent in `seen`.
    static func heard(_ t: CheckContext, _ kind: ControlMessage.Kind, in seen: [Observation]) -> [HeardControl] {
        t.controls(in: seen).filter { $0.control.kind == kind }
    }

    static let bv01 = Check("RTE/BV-01", "answers an RREQ for itself with an RREP on the ingress link: reversed hop path, hopCount 0",
                            dialects: [.blemesh], needs: [.routing, .links(2)], rules: ["BLEMESH-R15", "BLEMESH-R16"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        _ = try t.dutAddress()   // needed below: NA while the DUT's own id is unknown
        _ = try t.observe(for: t.parameters.answerPeriod)
        // 2. T1 forwards S1's RREQ for the DUT: hopCount 1, hopPath [S1, T1], in its own envelope.
        let request = probe.routeRequest(from: .stranger(1), for: .dut, path: [.stranger(1), .tester(1)])
        let sentAt = t.elapsed
        try t.send(probe.control(.routeRequest(request), from: .tester(1), ttl: 2), from: 1)
        let seen = try t.observe(for: t.parameters.answerPeriod)
        // 3. Within the response window an RREP goes out on L1, and on no other link.
        let replies = heard(t, .routeReply, in: seen)
        try t.expect(replies.map(\.link) == [LinkID(1)], "no single RREP on the ingress link",
                     expected: "one RREP on L1 within \(t.parameters.responseWindow)", seen: t.summary(seen))
        let reply = replies[0]
        try t.expect(reply.time - sentAt <= t.parameters.responseWindow, "answered late",
                     expected: "within \(t.parameters.responseWindow)", seen: "after \(reply.time - sentAt)")
        // 4. It answers that request: requestID and originID as asked, destinationID the DUT,
        //    hopCount 0, hopPath [T1, S1]; in a control envelope of ttl 3 from the DUT.
        guard case .routeReply(let r) = reply.control else { return }
        let expected = "requestID \(BLEMeshProbe.short(request.requestID)), origin S1, destination DUT, hopCount 0, hopPath [T1,S1]; envelope ttl 3 from DUT"
        let seenText = "requestID \(BLEMeshProbe.short(r.requestID)), origin \(probe.name(r.originID)), destination \(probe.name(r.destinationID)), hopCount \(r.hopCount), hopPath [\(r.hopPath.map(probe.name).joined(separator: ","))]; envelope ttl \(reply.envelope.ttl) from \(probe.name(reply.envelope.originID))"
        try t.expect(r.requestID == request.requestID && r.originID == request.originID && r.destinationID == probe.id(.dut)
                        && r.hopCount == 0 && r.hopPath == request.hopPath.reversed(),
                     "the RREP does not answer the request as BLEMESH-R16 says", expected: expected, seen: seenText)
        try t.expect(reply.envelope.ttl == 3 && reply.envelope.originID == probe.id(.dut) && reply.envelope.isControlMessage,
                     "the RREP's envelope is wrong", expected: expected, seen: seenText)
    }

    static let bv02 = Check("RTE/BV-02", "forwards an RREQ for another node on every other link: hopCount + 1, own id appended, new envelope",
                            dialects: [.blemesh], needs: [.routing, .links(3)], rules: ["BLEMESH-R15"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        // 1. Three testers link to the DUT.
        try t.connect(3)
        _ = try t.dutAddress()   // needed below: NA while the DUT's own id is unknown
        _ = try t.observe(for: t.parameters.answerPeriod)
        // 2. T1 forwards S1's RREQ for S2: hopCount 1, hopPath [S1, T1], ttl 3.
        let request = probe.routeRequest(from: .stranger(1), for: .stranger(2), path: [.stranger(1), .tester(1)])
        let sentAt = t.elapsed
        try t.send(probe.control(.routeRequest(request), from: .tester(1), ttl: 2), from: 1)
        let seen = try t.observe(for: t.parameters.answerPeriod) { heard(t, .routeRequest, in: $0).count >= 2 }
        // 3. Within the response window the DUT forwards it once on L2 and once on L3, not on L1.
        let forwards = heard(t, .routeRequest, in: seen)
        try t.expect(forwards.map(\.link).sorted() == [LinkID(2), LinkID(3)], "not forwarded once on each other link",
                     expected: "one RREQ on L2 and one on L3", seen: t.summary(seen))
        // 4. Each carries the same request with hopCount 2 and hopPath [S1, T1, DUT], in an
        //    envelope from the DUT of ttl max(0, ttl - new hopCount) = 1.
        for f in forwards {
            guard case .routeRequest(let r) = f.control else { continue }
            try t.expectOnTime(f.time - sentAt, within: \.responseWindow, "forwarded late on \(f.link)")
            try t.expect(r.requestID == request.requestID && r.originID == request.originID && r.destinationID == request.destinationID
                            && r.hopCount == 2 && r.hopPath == request.hopPath + [probe.id(.dut)] && r.ttl == request.ttl,
                         "the forwarded RREQ is not the request with one more hop",
                         expected: "same request, hopCount 2, hopPath [S1,T1,DUT], ttl 3",
                         seen: "hopCount \(r.hopCount), hopPath [\(r.hopPath.map(probe.name).joined(separator: ","))], ttl \(r.ttl) on \(f.link)")
            try t.expect(f.envelope.originID == probe.id(.dut) && f.envelope.ttl == 1, "the forward's envelope is wrong",
                         expected: "a new envelope from the DUT with ttl 1",
                         seen: "from \(probe.name(f.envelope.originID)), ttl \(f.envelope.ttl) on \(f.link)")
        }
    }

    static let bi01 = Check("RTE/BI-01", "drops an RREQ whose requestID it has already seen, even in a new envelope",
                            dialects: [.blemesh], needs: [.routing, .links(2)], rules: ["BLEMESH-R15"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        // 1. Two testers link to the DUT.
        try t.connect(2)
        _ = try t.observe(for: t.parameters.answerPeriod)
        // 2. T1 forwards S1's RREQ for S2; the DUT forwards it on L2.
        let request = probe.routeRequest(from: .stranger(1), for: .stranger(2), path: [.stranger(1), .tester(1)])
        try t.send(probe.control(.routeRequest(request), from: .tester(1), ttl: 2), from: 1)
        let first = try t.observe(for: t.parameters.answerPeriod) { heard(t, .routeRequest, in: $0).contains { $0.link == LinkID(2) } }
        try t.require(heard(t, .routeRequest, in: first).contains { $0.link == LinkID(2) },
                      "the first RREQ was not forwarded", judgedBy: "RTE/BV-02", seen: t.summary(first))
        // 3. T2 forwards the same request, as it came the long way round via S3: same requestID,
        //    hopPath [S1, S3, T2], in T2's own envelope (so only the requestID repeats).
        var again = request
        again.hopPath = [.stranger(1), .stranger(3), .tester(2)].map(probe.id)
        again.hopCount = 2
        try t.send(probe.control(.routeRequest(again), from: .tester(2), ttl: 1), from: 2)
        // 4. The DUT forwards nothing: the request was seen.
        let second = try t.observe(for: t.parameters.answerPeriod)
        let repeated = heard(t, .routeRequest, in: second)
        try t.expect(repeated.isEmpty, "forwarded a request it had already seen",
                     expected: "no RREQ", seen: t.summary(second))
    }

    static let bi02 = Check("RTE/BI-02", "remembers at least its last 1024 RREQ ids: a request among them that comes again is neither forwarded nor routed on",
                            dialects: [.blemesh], needs: [.routing, .relay, .links(3)], rules: ["BLEMESH-R15", "BLEMESH-R18"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        // BLEMESH-R15.1 keeps at least `memory` request ids, oldest evicted: every one of the
        // last `memory` distinct requests is still seen. The margin leaves room for requests of
        // others the DUT takes in meanwhile (over the air, other nodes' discoveries).
        let memory = 1024, margin = 64, stride = 32, batch = 128, trial = 16
        let budget = Duration.milliseconds(Int64(t.capabilities.checkBudgetSeconds * 1000))
        var others: Set<UUID> = []
        /// T-`tester` forwards each request with `path`; returns those of them the DUT forwarded.
        func sendBatch(_ batch: [RouteRequest], path: [Party], from tester: Int) throws -> Set<UUID> {
            for r in batch {
                var request = r
                request.hopPath = path.map(probe.id)
                request.hopCount = path.count - 1
                try t.send(probe.control(.routeRequest(request), from: .tester(tester), ttl: 2), from: tester)
            }
            let sent = Set(batch.map(\.requestID))
            var forwarded: Set<UUID> = []
            for c in heard(t, .routeRequest, in: try t.observe(for: t.parameters.answerPeriod)) {
                guard case .routeRequest(let r) = c.control else { continue }
                if sent.contains(r.requestID) { forwarded.insert(r.requestID) } else { others.insert(r.requestID) }
            }
            return forwarded
        }
        /// T3 sends a new message from S4 to S1; the links the DUT relays it on.
        func routeToS1() throws -> [LinkID] {
            let m = try t.message(MessageSpec(from: .stranger(4), to: .stranger(1)))
            try t.send(m, from: 3)
            return t.copies(of: m, in: try t.observe(for: t.parameters.quietPeriod)).map(\.link).sorted()
        }
        // 1. Three testers link to the DUT.
        try t.connect(3)
        _ = try t.observe(for: t.parameters.answerPeriod)
        // 2. T1 forwards `memory` RREQs of S1 for S2, each with a new requestID, hopPath
        //    [S1, T3, T2, T1]: hopCount 3 = ttl, so the DUT forwards none (which keeps the check
        //    cheap); it records each (R15.1) and routes to S1 via T1 at 4 hops (R15.2).
        //    The first `trial` of them time the writes: when all of them would take the check
        //    past its budget (over the air, some 6000 writes), it is NA at once.
        var requests: [RouteRequest] = []
        while requests.count < memory {
            let size = requests.isEmpty ? trial : min(batch, memory - requests.count)
            let next = (0..<size).map { _ in probe.routeRequest(from: .stranger(1), for: .stranger(2)) }
            let started = t.elapsed
            requests += next
            _ = try sendBatch(next, path: [.stranger(1), .tester(3), .tester(2), .tester(1)], from: 1)
            if requests.count == trial {
                let writing = (t.elapsed - started - t.parameters.answerPeriod) * (memory / trial)
                let needed = writing + t.parameters.answerPeriod * (memory / batch + 4)
                guard t.elapsed + needed <= budget else {
                    throw CheckNotApplicable("writing \(memory) route requests takes about \(needed) at the rate the first \(trial) went, past its budget of \(t.capabilities.checkBudgetSeconds) s (raise checkBudgetSeconds)")
                }
            }
        }
        // 3. T3 sends a message from S4 to S1: the DUT relays it on L1 alone, its route.
        let before = try routeToS1()
        // 4. T2 forwards every `stride`-th of the newest memory - margin again, oldest first, as
        //    come a shorter way (hopPath [S1, T2]) in a new envelope, so only the requestID
        //    repeats; and a new request of S5, which the DUT must forward (on L1 and L3).
        let sample = requests[margin...].enumerated().filter { $0.offset % stride == 0 }.map(\.element)
        let again = try sendBatch(sample, path: [.stranger(1), .tester(2)], from: 2)
        let fresh = probe.routeRequest(from: .stranger(5), for: .stranger(2))
        let forwarding = try !sendBatch([fresh], path: [.stranger(5), .tester(2)], from: 2).isEmpty
        guard others.count <= margin else {
            throw t.inconclusive("the DUT took in \(others.count) route requests not the tester's during the check, more than the margin of \(margin): cannot tell a short memory from crowding")
        }
        // 5. The DUT forwards none of the replayed requests, and still relays S1's messages on
        //    L1: a request it took as new would have set the shorter route via T2 (R18).
        let expected = "each of the \(sample.count) replayed requests is among the newest \(memory - margin) of \(memory) sent: none forwarded, the route to S1 still via T1"
        let why = "its memory of request ids holds fewer than \(memory) (or is emptied when full) instead of evicting the oldest"
        if forwarding {
            let oldest = requests.firstIndex { again.contains($0.requestID) }.map { "the oldest request \($0 + 1) of \(memory)" } ?? ""
            try t.expect(again.isEmpty, "forwarded again an RREQ among the last \(memory) it had seen: \(why)",
                         expected: expected, seen: "\(again.count) forwarded again, \(oldest)")
        }
        guard before == [LinkID(1)] else {
            guard forwarding else {
                throw t.inconclusive("the DUT neither forwarded a new RREQ nor routed S1's message via T1 after S1's requests came through T1 (RTE/BV-02 and RTE/BV-07 judge those): nothing shows what it remembers")
            }
            return
        }
        let after = try routeToS1()
        try t.expect(after == [LinkID(1)], "took an RREQ among the last \(memory) it had seen as new: its route to S1 moved to the replay's shorter path via T2; \(why)",
                     expected: expected, seen: "S4's message to S1 relayed on \(after.map(\.description).joined(separator: ", ")) (before the replays: L1)")
    }

    static let bv03 = Check("RTE/BV-03", "announces itself on every link when a link comes up: hopCount 0, envelope ttl 2",
                            dialects: [.blemesh], needs: [.routing, .links(2)], rules: ["BLEMESH-R14", "BLEMESH-R3"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        let testers = Set((1...2).map { probe.id(.tester($0)) })
        // 1. T1 links to the DUT; then, after the response window, T2.
        // 2. After each link comes up, the DUT sends an ANNOUNCE of itself on every link up,
        //    within the response window.
        for (tester, links) in [(1, [LinkID(1)]), (2, [LinkID(1), LinkID(2)])] {
            let new = LinkID(tester)
            try t.linkUp(tester)
            let seen = try t.observe(for: t.parameters.answerPeriod)
            // (Over the air the testers introduce themselves with an ANNOUNCE; the DUT forwarding
            // those, as BLEMESH-R14 says, is not its own announce.)
            let own = heard(t, .peerAnnounce, in: seen).filter {
                if case .peerAnnounce(let p) = $0.control { !testers.contains(p.deviceID) } else { true }
            }
            // The announce for this link-up is the first one on the new link; on the other links
            // it is the same announcement (its envelope, or an ANNOUNCE stamped the same moment
            // for a node that makes one envelope per link). A device also announces for links of
            // its own (a phone's connections to other devices) and may announce periodically:
            // those ANNOUNCEs belong to other link-ups and are not judged here.
            guard let first = own.first(where: { $0.link == new }) else {
                throw CheckFailed(reason: "no ANNOUNCE on the new link when T\(tester) linked up",
                                  expected: "an ANNOUNCE of the DUT on \(new) within \(t.parameters.responseWindow), and the same on every other link",
                                  seen: t.summary(seen))
            }
            let announcement = own.filter { sameAnnouncement($0, first) }
            try t.expect(Set(announcement.map(\.link)) == Set(links), "the ANNOUNCE for T\(tester)'s link-up did not go on every link",
                         expected: "the ANNOUNCE first heard on \(new) at \(first.time) also on each of \(links.map(\.description).joined(separator: ", "))",
                         seen: "that ANNOUNCE on \(Set(announcement.map(\.link)).sorted().map(\.description).joined(separator: ", ")); all: \(t.summary(seen))")
            // 3. Each names the DUT with hopCount 0, in an envelope of ttl 2 from the DUT.
            _ = try t.dutAddress()   // a DUT that keeps its own id names itself in these ANNOUNCEs
            for a in announcement {
                guard case .peerAnnounce(let p) = a.control else { continue }
                try t.expect(p.deviceID == probe.id(.dut) && p.hopCount == 0 && a.envelope.ttl == 2 && a.envelope.originID == probe.id(.dut),
                             "the ANNOUNCE is not the DUT's own at hop 0",
                             expected: "deviceID DUT, hopCount 0, envelope ttl 2 from DUT",
                             seen: "deviceID \(probe.name(p.deviceID)), hopCount \(p.hopCount), envelope ttl \(a.envelope.ttl) from \(probe.name(a.envelope.originID)) on \(a.link)")
            }
        }
    }

    /// Whether two ANNOUNCEs are one announcement sent on several links: the same envelope, or
    /// the same device's ANNOUNCE stamped within `sameMoment` of the other.
    static func sameAnnouncement(_ a: HeardControl, _ b: HeardControl) -> Bool {
        if a.envelope.id == b.envelope.id { return true }
        guard case .peerAnnounce(let p) = a.control, case .peerAnnounce(let q) = b.control else { return false }
        return p.deviceID == q.deviceID && abs(p.timestamp - q.timestamp) <= sameMoment
    }

    /// Seconds: one announcement's copies are stamped together; another link-up's come later.
    static let sameMoment = 0.05

    static let bv04 = Check("RTE/BV-04", "forwards an ANNOUNCE with hopCount + 1 while below 2, not to the ingress nor to the announced node",
                            dialects: [.blemesh], needs: [.routing, .links(3)], rules: ["BLEMESH-R14"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        // 1. Three testers link to the DUT.
        try t.connect(3)
        _ = try t.observe(for: t.parameters.answerPeriod)
        // 2. T1 forwards S1's ANNOUNCE at hopCount 1: the DUT forwards it at hopCount 2 on L2
        //    and L3, in its own envelope of ttl 2.
        try t.send(probe.control(.peerAnnounce(probe.announce(of: .stranger(1), hopCount: 1)), from: .tester(1), ttl: 2), from: 1)
        // (Only forwarded ANNOUNCEs count: the DUT may announce itself meanwhile.)
        func forwarded(_ party: Party, in seen: [Observation]) -> [HeardControl] {
            heard(t, .peerAnnounce, in: seen).filter { if case .peerAnnounce(let p) = $0.control { p.deviceID == probe.id(party) } else { false } }
        }
        var seen = try t.observe(for: t.parameters.answerPeriod)
        let ofS1 = forwarded(.stranger(1), in: seen)
        try t.expect(ofS1.map(\.link).sorted() == [LinkID(2), LinkID(3)], "S1's ANNOUNCE was not forwarded once on each other link",
                     expected: "one ANNOUNCE on L2 and one on L3", seen: t.summary(seen))
        for a in ofS1 {
            guard case .peerAnnounce(let p) = a.control else { continue }
            try t.expect(p.deviceID == probe.id(.stranger(1)) && p.hopCount == 2 && a.envelope.ttl == 2,
                         "the forwarded ANNOUNCE is not S1's at hopCount 2",
                         expected: "deviceID S1, hopCount 2, envelope ttl 2",
                         seen: "deviceID \(probe.name(p.deviceID)), hopCount \(p.hopCount), envelope ttl \(a.envelope.ttl) on \(a.link)")
        }
        // 3. T1 forwards T3's ANNOUNCE at hopCount 1: forwarded on L2 only (not back to T1,
        //    nor to T3 itself).
        try t.send(probe.control(.peerAnnounce(probe.announce(of: .tester(3), hopCount: 1)), from: .tester(1), ttl: 2), from: 1)
        seen = try t.observe(for: t.parameters.answerPeriod)
        let ofT3 = forwarded(.tester(3), in: seen)
        try t.expect(ofT3.map(\.link) == [LinkID(2)], "T3's ANNOUNCE was not forwarded on L2 alone",
                     expected: "one ANNOUNCE on L2", seen: t.summary(seen))
        // 4. T1 forwards S2's ANNOUNCE at hopCount 2: the DUT forwards nothing.
        try t.send(probe.control(.peerAnnounce(probe.announce(of: .stranger(2), hopCount: 2)), from: .tester(1), ttl: 2), from: 1)
        seen = try t.observe(for: t.parameters.answerPeriod)
        try t.expect(forwarded(.stranger(2), in: seen).isEmpty, "forwarded an ANNOUNCE at hopCount 2",
                     expected: "nothing", seen: t.summary(seen))
    }

    static let bv05 = Check("RTE/BV-05", "forwards an RREP toward the request's origin on the reverse route only, with hopCount + 1",
                            dialects: [.blemesh], needs: [.routing, .links(3)], rules: ["BLEMESH-R15", "BLEMESH-R16"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        // 1. Three testers link to the DUT.
        try t.connect(3)
        _ = try t.dutAddress()   // needed below: NA while the DUT's own id is unknown
        _ = try t.observe(for: t.parameters.answerPeriod)
        // 2. T1 forwards S1's RREQ for S2; the DUT keeps L1 as the reverse route to S1.
        let request = probe.routeRequest(from: .stranger(1), for: .stranger(2), path: [.stranger(1), .tester(1)])
        try t.send(probe.control(.routeRequest(request), from: .tester(1), ttl: 2), from: 1)
        _ = try t.observe(for: t.parameters.answerPeriod)
        // 3. T2 forwards S2's answer: RREP hopCount 1, hopPath [T2, DUT, T1, S1] (the request's
        //    path at S2, reversed), in T2's envelope.
        let reply = probe.routeReply(to: request, hopCount: 1, pathAtDestination: [.stranger(1), .tester(1), .dut, .tester(2)])
        let sentAt = t.elapsed
        try t.send(probe.control(.routeReply(reply), from: .tester(2), ttl: 3), from: 2)
        let seen = try t.observe(for: t.parameters.answerPeriod)
        // 4. The DUT forwards it on L1 only, within the response window, with hopCount 2.
        let forwards = heard(t, .routeReply, in: seen)
        try t.expect(forwards.map(\.link) == [LinkID(1)], "the RREP did not go back on the reverse route alone",
                     expected: "one RREP on L1 within \(t.parameters.responseWindow)", seen: t.summary(seen))
        try t.expect(forwards[0].time - sentAt <= t.parameters.responseWindow, "forwarded late",
                     expected: "within \(t.parameters.responseWindow)", seen: "after \(forwards[0].time - sentAt)")
        if case .routeReply(let r) = forwards[0].control {
            try t.expect(r.requestID == reply.requestID && r.originID == reply.originID && r.destinationID == reply.destinationID && r.hopCount == 2,
                         "the forwarded RREP is not the reply with one more hop",
                         expected: "same reply with hopCount 2", seen: "hopCount \(r.hopCount), origin \(probe.name(r.originID)), destination \(probe.name(r.destinationID))")
        }
        // 5. T2 sends an RREP for an origin the DUT has no reverse route to (S3): dropped.
        let stray = probe.routeReply(to: probe.routeRequest(from: .stranger(3), for: .stranger(2)), hopCount: 1)
        try t.send(probe.control(.routeReply(stray), from: .tester(2), ttl: 3), from: 2)
        let after = try t.observe(for: t.parameters.answerPeriod)
        try t.expect(heard(t, .routeReply, in: after).isEmpty, "forwarded an RREP with no reverse route",
                     expected: "nothing", seen: t.summary(after))
    }

    static let bv06 = Check("RTE/BV-06", "sends an RERR on the remaining links when a link with routes through it goes down",
                            dialects: [.blemesh], needs: [.routing, .links(3)], rules: ["BLEMESH-R17", "BLEMESH-R18"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        // 1. Three testers link to the DUT.
        try t.connect(3)
        _ = try t.dutAddress()   // needed below: NA while the DUT's own id is unknown
        // 2. T2 forwards S2's ANNOUNCE (hopCount 1): the DUT now routes to S2 via T2.
        try t.send(probe.control(.peerAnnounce(probe.announce(of: .stranger(2), hopCount: 1)), from: .tester(2), ttl: 2), from: 2)
        _ = try t.observe(for: t.parameters.answerPeriod)
        // 3. T2's link goes down.
        let downAt = t.elapsed
        try t.linkDown(2)
        let seen = try t.observe(for: t.parameters.answerPeriod)
        // 4. Within the response window an RERR goes out on L1 and on L3: unreachable T2,
        //    reporter the DUT, S2 among the affected destinations, envelope ttl 2.
        let errors = heard(t, .routeError, in: seen)
        try t.expect(errors.map(\.link).sorted() == [LinkID(1), LinkID(3)], "no RERR on each remaining link",
                     expected: "one RERR on L1 and one on L3", seen: t.summary(seen))
        for e in errors {
            guard case .routeError(let r) = e.control else { continue }
            try t.expect(e.time - downAt <= t.parameters.responseWindow, "reported late",
                         expected: "within \(t.parameters.responseWindow)", seen: "after \(e.time - downAt)")
            try t.expect(r.unreachableID == probe.id(.tester(2)) && r.reporterID == probe.id(.dut)
                            && r.affectedDestinations.contains(probe.id(.stranger(2))) && e.envelope.ttl == 2,
                         "the RERR does not report the lost routes",
                         expected: "unreachable T2, reporter DUT, S2 affected, envelope ttl 2",
                         seen: "unreachable \(probe.name(r.unreachableID)), reporter \(probe.name(r.reporterID)), affected [\(r.affectedDestinations.map(probe.name).joined(separator: ","))], envelope ttl \(e.envelope.ttl) on \(e.link)")
        }
    }

    static let bv07 = Check("RTE/BV-07", "relays a directed envelope only toward the next hop of a route it learnt",
                            dialects: [.blemesh], needs: [.routing, .relay, .links(3)], rules: ["BLEMESH-R9", "BLEMESH-R14", "BLEMESH-R18"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        // 1. Three testers link to the DUT.
        try t.connect(3)
        // 2. T2 forwards S2's ANNOUNCE (hopCount 1): the DUT learns a route to S2 via T2.
        try t.send(probe.control(.peerAnnounce(probe.announce(of: .stranger(2), hopCount: 1)), from: .tester(2), ttl: 2), from: 2)
        _ = try t.observe(for: t.parameters.answerPeriod)
        // 3. T1 sends a message from S1 addressed to S2.
        let sent = try t.message(MessageSpec(from: .stranger(1), to: .stranger(2)))
        try t.send(sent, from: 1)
        // 4. The DUT relays it on L2 alone, not on L3.
        let seen = try t.observe(for: t.parameters.quietPeriod)
        try t.expect(t.copies(of: sent, in: seen).map(\.link) == [LinkID(2)], "the directed envelope did not follow the learnt route",
                     expected: "one relay on L2 (the route's next hop) and none on L3", seen: t.summary(seen))
    }

    static let bv08 = Check("RTE/BV-08", "drops its routes through the node an RERR reports unreachable",
                            dialects: [.blemesh], needs: [.routing, .relay, .links(3)], rules: ["BLEMESH-R9", "BLEMESH-R17"]) { t in
        let probe = try t.probe(BLEMeshProbe.self)
        // 1. Three testers link to the DUT.
        try t.connect(3)
        // 2. T2 forwards S2's ANNOUNCE (hopCount 1): the DUT routes to S2 via T2. A message
        //    from S1 to S2 now goes out on L2 alone (as RTE/BV-07).
        try t.send(probe.control(.peerAnnounce(probe.announce(of: .stranger(2), hopCount: 1)), from: .tester(2), ttl: 2), from: 2)
        _ = try t.observe(for: t.parameters.answerPeriod)
        let before = try t.message(MessageSpec(from: .stranger(1), to: .stranger(2)))
        try t.send(before, from: 1)
        let routed = try t.observe(for: t.parameters.quietPeriod)
        try t.require(t.copies(of: before, in: routed).map(\.link) == [LinkID(2)], "the learnt route was not used, so dropping it cannot be seen",
                      judgedBy: "RTE/BV-07", seen: t.summary(routed))
        // 3. T1 reports T2 unreachable: an RERR from T1 with unreachableID T2.
        let error = probe.routeError(unreachable: .tester(2), reporter: .tester(1), affected: [.tester(2), .stranger(2)])
        try t.send(probe.control(.routeError(error), from: .tester(1), ttl: 2), from: 1)
        _ = try t.observe(for: t.parameters.answerPeriod)
        // 4. A new message from S1 to S2 has no route left: it goes to every candidate, L2
        //    and L3 (BLEMESH-R9), not along the dropped route alone.
        let after = try t.message(MessageSpec(from: .stranger(1), to: .stranger(2)))
        try t.send(after, from: 1)
        let seen = try t.observe(for: t.parameters.quietPeriod)
        try t.expect(t.copies(of: after, in: seen).map(\.link).sorted() == [LinkID(2), LinkID(3)], "kept a route through the node reported unreachable",
                     expected: "one relay on each of L2 and L3", seen: t.summary(seen))
    }
}
