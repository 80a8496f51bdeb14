import MeshNode
import MeshWire
import Synchronization

/// What a check sees: the tester nodes around the DUT, the dialect's windows, and the
/// evidence log. Every step goes through here so every packet lands in the evidence.
public final class CheckContext {
    public let dialect: DialectName
    public let capabilities: Capabilities
    /// The dialect page's windows, widened by the DUT's declared slack, and over the air
    /// (`DUTSession.latencyVaries`) to cover the relay latency measured in this run so far.
    public var parameters: DialectParameters { latency.widen(declared, overTheAir: session.latencyVaries) }
    /// The windows as the latency measured before this check widens them: a delay is judged
    /// against these (`expectOnTime`), never against the relay being judged.
    private let priorParameters: DialectParameters
    /// The dialect page's windows, widened by the DUT's declared slack.
    private let declared: DialectParameters
    /// The run's measured relay latency (shared by its checks, as the transport is).
    private let latency: RelayLatencyBook
    /// The last message the tester sent and when, while it is the only one since the last
    /// observation: its relays measure the DUT's latency (a burst's would measure the burst).
    private var stimulus: (key: String, at: Duration)?
    private var sentSinceObserving = 0
    public let probe: any DialectProbe
    private let session: any DUTSession
    private let start: Instant
    private var budgetEnd: Instant
    private var declaredBudgetEnd: Instant
    public private(set) var evidence: [EvidenceEntry] = []
    private var linksUp: Set<Int> = []
    /// The ATT_MTU the check asked for on a link (`linkUp(_:attMTU:)`), by tester.
    private var requestedMTU: [Int: Int] = [:]
    /// What the DUT did while `connect` waited for its link-up traffic to end: the next
    /// `observe` returns it first, so nothing the DUT sent goes unjudged.
    private var held: [DUTOutput] = []
    /// The units the tester sent for each message of the check, by message key: what a unit the
    /// DUT sends that the tester cannot decode is matched against (`sightings(of:in:)`).
    /// The most recent `sentUnitsKept` only: an over-the-air fuzz campaign sends without end.
    var sentUnits: [(key: String, units: [[UInt8]], message: ProbeMessage?)] = []
    static let sentUnitsKept = 1100
    /// What the upper tester had the DUT's app send in this check (`command(send:to:)`).
    var commanded: [(payload: [UInt8], to: NodeAddress?)] = []
    // What a FAIL is reviewed for (`reviewed(_:)`, FailureReview.swift):
    /// Units the DUT sent that the tester could not decode (the first `undecodableKept`), and
    /// how many in all.
    var undecodableUnits: [(error: WireError, link: LinkID, time: Duration, bytes: [UInt8])] = []
    static let undecodableKept = 32
    var undecodableCount = 0
    /// Units the DUT sent that the tester decoded.
    var decodedCount = 0
    /// The check counted a unit it could not decode as a copy (`sightings`): its finding is
    /// not blind to the undecodable units.
    var judgedUndecodable = false
    /// A relay of a fresh message was recognised before the stimulus (`establishBaseline`).
    private var baselineEstablished = false
    /// This check's seed (the run's `--seed` mixed with the check id): random stimuli such
    /// as ROB garbage come from it, so a run is reproducible and `--seed` varies them.
    public let seed: UInt64
    /// The check being run (scripted operator answers are keyed by it).
    public let checkID: String
    /// The person at the bench as the DUT's upper tester: when set, app sends, deliveries and
    /// acknowledgements are asked of them instead of the session (a device on the air has no
    /// channel to its app).
    public let upperTester: (any UpperTesterOperator)?
    /// The DUT was started for this check (a new node or process): its state since power-on is
    /// this check's alone. False for a device that keeps its state (on the air, or a persistent
    /// DUT): then no check may assume a first beacon, empty caches or empty routes.
    public let freshDUT: Bool
    /// What the run knows of the DUT's id (shared by its checks: a DUT keeps its id).
    private let identity: DUTIdentityBook

    init(capabilities: Capabilities, probe: any DialectProbe, session: any DUTSession, seed: UInt64 = 0,
         checkID: String = "", upperTester: (any UpperTesterOperator)? = nil, freshDUT: Bool = false,
         identity: DUTIdentityBook = DUTIdentityBook(), latency: RelayLatencyBook = RelayLatencyBook()) {
        self.seed = seed
        self.latency = latency
        self.checkID = checkID
        self.upperTester = upperTester
        self.freshDUT = freshDUT
        self.identity = identity
        if capabilities.learnsIdentity, let learned = identity.learned { probe.adopt(dutAddress: learned.address) }
        dialect = capabilities.dialect
        self.capabilities = capabilities
        declared = DialectParameters.of(capabilities.dialect).widened(by: .milliseconds(capabilities.timingSlackMs))
        priorParameters = latency.widen(declared, overTheAir: session.latencyVaries)
        self.probe = probe
        self.session = session
        start = session.now
        budgetEnd = session.now + .milliseconds(Int64(capabilities.checkBudgetSeconds * 1000))
        declaredBudgetEnd = budgetEnd
    }

    /// The check's own work needs `needed` more from now (DDP/BV-06 fills a cache of 1000
    /// entries, which over GATT takes about as long as the whole declared budget): the budget
    /// grows to carry it with half again as margin, at most to `budgetCeiling` times the
    /// declared budget; the evidence says so. A check that still runs out is INCONC as ever.
    public func reserveBudget(_ needed: Duration, for what: String) {
        let ceiling = start + (declaredBudgetEnd - start) * Self.budgetCeiling
        let end = min(ceiling, session.now + needed * 3 / 2)
        guard end > budgetEnd else { return }
        budgetEnd = end
        note("budget raised to \(Self.ms(end - start)) (declared \(capabilities.checkBudgetSeconds) s) to carry \(what): about \(Self.ms(needed)) more, and half again as margin")
    }

    /// A check that waits long says so before it starts: `needed` more from now, for `what`,
    /// goes in the evidence, and past the check's budget it is INCONC at once (budget), before
    /// it has waited for nothing. On the tester's clock (the virtual radio, a DUT given an
    /// epoch) the wait costs no wall time, and the default budget holds it.
    public func requireTime(_ needed: Duration, for what: String) throws {
        note("\(what) takes about \(Self.ms(needed)) (budget \(Self.ms(budgetEnd - start)))")
        guard session.now + needed <= budgetEnd else {
            throw CheckInconclusive(reason: "\(what) takes about \(Self.ms(needed)), past its budget of \(capabilities.checkBudgetSeconds) s (raise checkBudgetSeconds in the capabilities file)", cause: .budget)
        }
    }

    /// How far `reserveBudget` may raise a check's budget, in declared budgets.
    static let budgetCeiling = 4

    /// Time since the check started.
    public var elapsed: Duration { session.now - start }
    /// The DUT's answers take as long as the hosts' load makes them (over the air): a check
    /// listens for what might come as late as what it has seen came (`observe(for:awaiting:)`).
    public var latencyVaries: Bool { session.latencyVaries }

    /// Time since the DUT's session began: the DUT's clock where the tester gave it an epoch
    /// (a persistent DUT's session spans the whole run).
    public var sessionClock: Duration { session.now - .zero }

    // MARK: links

    /// Brings up links 1...count, each to tester n presenting its own address; `attMTU` gives
    /// some of them a small ATT_MTU (`linkUp(_:attMTU:)`).
    public func connect(_ count: Int, attMTU: [Int: Int] = [:]) throws {
        guard capabilities.maxLinks >= count else {
            throw CheckNotApplicable("needs \(count) links; the DUT declares maxLinks \(capabilities.maxLinks)")
        }
        let before = linksUp
        for n in 1...count where !linksUp.contains(n) { try linkUp(n, attMTU: attMTU[n]) }
        if !session.tellsPeers, linksUp != before { try settle() }
        // A DUT that keeps its own id, not yet known to the run: it gets the time to name
        // itself on the new links before the check's scenario starts (once per run, or per
        // check while it stays silent about itself).
        if !dutIdentityKnown {
            note("listening \(parameters.identityWait) for the DUT to name itself (its id is not declared)")
            _ = try observe(for: parameters.identityWait)
        }
    }

    /// Quiet after link-up, over the air: a DUT announces itself on each new link (and forwards
    /// the testers' introductions), and on a radio that traffic takes air time, several links
    /// the more so. Stimuli wait until the DUT has been quiet for `settleQuiet` (at most
    /// `settleLimit`), so its link-up burst cannot push a relay past a check's window.
    private func settle() throws {
        let limit = session.now + Self.settleLimit
        while session.now < limit {
            let heard = try session.wait(until: min(limit, session.now + Self.settleQuiet))
            held += heard
            if heard.isEmpty { return }
        }
    }

    static let settleQuiet: Duration = .milliseconds(300)
    static let settleLimit: Duration = .seconds(3)

    /// Brings up tester `tester`'s link. With `attMTU` the link has that ATT_MTU, the tester its
    /// central: the DUT notifies, so each value it sends there fits ATT_MTU - 3 (BLEMESH-G3).
    /// A DUT that cannot be told (no `linkMaxUnit` capability) makes the check NA.
    public func linkUp(_ tester: Int, attMTU: Int? = nil) throws {
        let peer = probe.address(of: .tester(tester))
        if let attMTU {
            guard capabilities.linkMaxUnit else {
                throw CheckNotApplicable("needs a link of ATT_MTU \(attMTU), and the DUT cannot be told a link's size: a process DUT declares linkMaxUnit when it takes maxUnit in link-up (docs/stdio-dut.md)")
            }
            requestedMTU[tester] = attMTU
        }
        record(.toDUT, LinkID(tester), nil, "link up, peer T\(tester) = \(peer)" + (attMTU.map { ", ATT_MTU \($0): the DUT notifies values of at most \($0 - 3) bytes" } ?? ""))
        try session.apply(.linkUp(LinkID(tester), peer: peer, maxUnit: attMTU.map { $0 - 3 }))
        linksUp.insert(tester)
        // The tester's own path on the link: what any answer on it takes on top of the DUT's time.
        if let trip = session.carriage(of: LinkID(tester))?.roundTrip {
            latency.recordRoundTrip(trip, on: LinkID(tester))
            note("L\(tester): the tester's round trip to the DUT (an ATT request and its response, both hosts and the air) took \(Self.ms(trip))")
        }
        // A DUT on the air is not told who linked up: the tester introduces itself as a node of
        // the dialect does on a new link, so the DUT can know its neighbour (BLEMESH-R1, R14).
        if !session.tellsPeers, let hello = probe.introduction(of: tester) { try send(hello, from: tester) }
    }

    public func linkDown(_ tester: Int) throws {
        record(.toDUT, LinkID(tester), nil, "link down")
        try session.apply(.linkDown(LinkID(tester)))
        linksUp.remove(tester)
        requestedMTU[tester] = nil
    }

    /// How tester `tester`'s link carries the DUT's values: as the transport set it up (over the
    /// air the exchange settles the ATT_MTU, and a link the DUT made has it write), or as the
    /// check asked. Nil for a link brought up without an ATT_MTU of the check's.
    public func carriage(of tester: Int) -> LinkCarriage? {
        guard let asked = requestedMTU[tester] else { return nil }
        return session.carriage(of: LinkID(tester)) ?? LinkCarriage(attMTU: asked, dutNotifies: true)
    }

    // MARK: stimuli

    public func message(_ spec: MessageSpec) throws -> ProbeMessage {
        if spec.origin == .dut || spec.destination == .dut { _ = try dutAddress() }
        return try probe.message(spec, at: sessionClock)
    }

    // MARK: the DUT's identity

    /// Whether the DUT's id is known: assigned by the tester, declared, or learned.
    public var dutIdentityKnown: Bool { !capabilities.learnsIdentity || identity.learned != nil }

    /// The DUT's id, for a check that needs it. A DUT that keeps its own id and has not
    /// shown it yet gets the time its traffic needs to show it (links must be up); if it still
    /// has not, the check is NA with the reason: a guessed id would give false verdicts.
    public func dutAddress() throws -> NodeAddress {
        if !dutIdentityKnown, !linksUp.isEmpty { _ = try observe(for: parameters.identityWait) }
        guard dutIdentityKnown else {
            throw CheckNotApplicable("needs the DUT's own id, which is unknown: it keeps its own, none was declared, and it sent nothing naming itself (a beacon, an ANNOUNCE, an announce, a document) within \(parameters.identityWait); declare it as address in the capabilities file")
        }
        return probe.dutAddress
    }

    /// Takes `address` as the DUT's id for the rest of the run, if it is not known yet: what a
    /// check found the DUT sending as its own (`how`, for the evidence) names it.
    public func learn(dutAddress address: NodeAddress, how: String) {
        guard !dutIdentityKnown, !probe.isTesterParty(address) else { return }
        identity.learned = DUTIdentityBook.Learned(address: address, how: how)
        probe.adopt(dutAddress: address)
        note("DUT identity \(address) learned from \(how)")
    }

    /// Takes the DUT's id from `packet` if it names its sender as its own and the id is not
    /// known yet (Capabilities.keepsOwnIdentity).
    private func learnIdentity(from packet: HeardPacket) {
        guard !dutIdentityKnown, let id = probe.ownIdentity(in: packet) else { return }
        learn(dutAddress: id, how: "its \(packet.kindName)")
    }

    /// The probe as its dialect's own type, for checks written for one dialect (raw beacons,
    /// acks, hand-made headers). A mismatch is the tester's bug: ERROR.
    public func probe<P: DialectProbe>(_ type: P.Type) throws -> P {
        guard let typed = probe as? P else { throw TesterError("this check needs a \(P.self); the session runs \(dialect)") }
        return typed
    }

    /// Tester `tester` sends `message` to the DUT on its link.
    public func send(_ message: ProbeMessage, from tester: Int) throws {
        let at = elapsed
        let units = probe.units(of: message, via: tester)
        sentUnits.append((message.key, units, message))
        if sentUnits.count > Self.sentUnitsKept { sentUnits.removeFirst(sentUnits.count - Self.sentUnitsKept) }
        for unit in units { try write(unit, from: tester) }
        sentSinceObserving += 1
        stimulus = (message.key, at)
    }

    /// Tester `tester` writes raw bytes (robustness checks); `what` explains them in the evidence.
    /// A unit built by hand for the message whose key is `carrying` is matched to it as `send`'s
    /// units are (`sightings(of:in:)`).
    public func write(_ bytes: [UInt8], from tester: Int, what: String? = nil, carrying key: String? = nil) throws {
        stimulus = nil   // raw units: whatever they answer to, it is no longer the last message sent
        if let key { sentUnits.append((key, [bytes], nil)) }
        record(.toDUT, LinkID(tester), bytes, what ?? probe.describe(bytes))
        try session.apply(.received(bytes, on: LinkID(tester)))
    }

    /// The upper tester asks the DUT's app to send `payload` to `destination` (nil: everyone).
    public func command(send payload: [UInt8], to destination: Party?) throws {
        guard capabilities.upperTester else { throw CheckNotApplicable("needs an upper tester") }
        let address = destination.map(probe.address(of:))
        commanded.append((payload, address))
        record(.toDUT, nil, payload, "upper tester: send \(payload.count) bytes to \(address.map(\.description) ?? "everyone")")
        if let upperTester {
            guard try ask(upperTester, .send(text: Self.promptText(payload), to: address?.description)) != 0 else {
                throw CheckInconclusive(reason: "the operator could not have the device's app send the message", cause: .noOperatorAnswer)
            }
            return
        }
        try session.apply(.command(.send(payload: payload, to: address)))
    }

    /// Asks the operator; yes is 1, no is 0, a count itself; no answer is INCONC with the
    /// reason. The time the person takes does not count against the check's budget.
    func ask(_ upperTester: any UpperTesterOperator, _ prompt: OperatorPrompt) throws -> Int {
        let asked = session.now
        let answer = upperTester.ask(prompt, check: checkID)
        budgetEnd = budgetEnd + (session.now - asked)
        record(.note, nil, nil, "operator: \(prompt) -> \(answer)")
        switch answer {
        case .yes: return 1
        case .no: return 0
        case .count(let n): return n
        case .none(let reason): throw CheckInconclusive(reason: "no answer from the operator (\(reason)) to: \(prompt)", cause: .noOperatorAnswer)
        }
    }

    // MARK: observing

    /// Everything the DUT does during the next `span`. Fails INCONC if the check would run
    /// past its budget.
    public func observe(for span: Duration) throws -> [Observation] {
        let deadline = session.now + span
        guard deadline <= budgetEnd else {
            let budget = budgetEnd == declaredBudgetEnd ? "its budget of \(capabilities.checkBudgetSeconds) s"
                : "its budget of \(capabilities.checkBudgetSeconds) s as raised for its own work to \(Self.ms(budgetEnd - start))"
            throw CheckInconclusive(reason: "the check needs to wait \(span) more, past \(budget) (raise checkBudgetSeconds in the capabilities file)", cause: .budget)
        }
        let outputs = held + (try session.wait(until: deadline))
        held.removeAll()
        if sentSinceObserving > 1 { stimulus = nil }
        sentSinceObserving = 0
        return outputs.compactMap(observe)
    }

    /// Waits, watching, until `sentAt` (a time of the check's clock, `elapsed`) is past the
    /// dialect's ingress gate: bitchat iOS drops a copy of a packet that came in during the
    /// last 3 s before its cache is asked, so a replay sooner would test the gate, not the cache.
    @discardableResult
    public func passIngressGate(since sentAt: Duration) throws -> [Observation] {
        let gate = parameters.ingressGate
        guard gate > .zero, elapsed - sentAt <= gate else { return [] }
        return try observe(for: gate - (elapsed - sentAt) + .milliseconds(100))
    }

    /// Everything the DUT does during the next `span`, as `observe(for:)`; and where the time
    /// an answer takes varies with the hosts' load (over the air), on past `span` while
    /// `arrived` does not hold of what was seen, by at most `RelayLatencyBook.maxAirDelay`,
    /// then until the DUT has been quiet for the quiet period (the rest of a late fan-out
    /// must not be taken for an answer to the check's next step). A check waits so for what
    /// the DUT owes (a relay, an ack, a forward) before it judges it missing: a FAIL for
    /// absence has then waited long enough that lateness on the air cannot explain it.
    /// Elsewhere (the virtual radio, a process) timing is deterministic and `span` is all.
    public func observe(for span: Duration, awaiting arrived: ([Observation]) -> Bool) throws -> [Observation] {
        var seen = try observe(for: span)
        guard session.latencyVaries, !arrived(seen) else { return seen }
        let windowEnd = session.now
        let limit = min(budgetEnd, windowEnd + RelayLatencyBook.maxAirDelay)
        while session.now < limit {
            seen += try observe(for: min(Self.lateSlice, limit - session.now))
            guard arrived(seen) else { continue }
            note("over the air: what the check waits for came \(Self.ms(session.now - windowEnd)) after its window of \(span) closed (a host's load delays relays past any window; docs/radio.md, \"Verdicts\"); listening until the DUT is quiet")
            while session.now < limit {
                let more = try observe(for: min(parameters.quietPeriod, limit - session.now))
                seen += more
                if more.isEmpty { break }
            }
            return seen
        }
        note("over the air: listened \(RelayLatencyBook.maxAirDelay) past the window of \(span) for what the check waits for; it did not come")
        return seen
    }

    static let lateSlice: Duration = .milliseconds(50)

    static func ms(_ d: Duration) -> String {
        String(format: "%.0f ms", Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15)
    }

    private func observe(_ output: DUTOutput) -> Observation? {
        let time = output.at - start
        switch output.kind {
        case .sent(let bytes, let link):
            let heard = probe.hear(bytes, on: link)
            evidence.append(EvidenceEntry(time: time, direction: .fromDUT, link: link, bytes: bytes, summary: probe.describe(bytes)))
            if let heard { learnIdentity(from: heard) }
            if case .malformed(let error)? = heard {
                undecodableCount += 1
                if undecodableUnits.count < Self.undecodableKept { undecodableUnits.append((error, link, time, bytes)) }
            } else if heard != nil {
                decodedCount += 1
            }
            if case .message(let m)? = heard, let stimulus, m.key == stimulus.key, !isOwn(m) { latency.record(time - stimulus.at) }
            return heard.map { Observation(time: time, kind: .packet($0, on: link), bytes: bytes) }
        case .delivered(let m):
            evidence.append(EvidenceEntry(time: time, direction: .fromDUT, summary: "app delivery \(m.messageID) from \(m.origin): \(m.payload.count) bytes"))
            return Observation(time: time, kind: .delivered(m))
        case .acknowledged(let id):
            evidence.append(EvidenceEntry(time: time, direction: .fromDUT, summary: "app: message \(id) acknowledged"))
            return Observation(time: time, kind: .acknowledged(messageID: id))
        case .disconnected(let link):
            evidence.append(EvidenceEntry(time: time, direction: .fromDUT, link: link, summary: "DUT dropped the link"))
            return Observation(time: time, kind: .disconnected(link))
        case .log(let text):
            evidence.append(EvidenceEntry(time: time, direction: .fromDUT, summary: "log: \(text)"))
            return nil
        }
    }

    // MARK: verdicts

    public func note(_ text: String) { record(.note, nil, nil, text) }

    /// FAIL unless `condition` holds.
    public func expect(_ condition: Bool, _ reason: @autoclosure () -> String, expected: @autoclosure () -> String, seen: @autoclosure () -> String) throws {
        guard !condition else { return }
        throw CheckFailed(reason: reason(), expected: expected(), seen: seen())
    }

    public func inconclusive(_ reason: String, cause: CheckInconclusive.Cause = .undecided) -> CheckInconclusive {
        CheckInconclusive(reason: reason, cause: cause)
    }

    /// INCONC unless `premise` holds: what the check builds on (the first copy relayed, the
    /// first RREQ forwarded) did not happen, so the rule it judges cannot be seen. Never a FAIL:
    /// the check that judges the premise itself (`judgedBy`) FAILs a DUT that breaks it.
    public func require(_ premise: Bool, _ what: @autoclosure () -> String, judgedBy: String, seen: @autoclosure () -> String) throws {
        guard !premise else { return }
        throw CheckInconclusive(reason: "cannot judge: \(what()) (\(judgedBy) judges that); seen: \(seen())", cause: .premise)
    }

    /// FAIL if the DUT's answer took `delay`, past `window` of the parameters as the check began
    /// (widened by the latency of earlier checks' relays, not by this one's). Over the air the
    /// hosts' load adds delay the tester cannot tell from the DUT's own: there a delay up to
    /// `RelayLatencyBook.maxAirDelay` past the page's window (with its declared slack) is
    /// INCONC with the reason, and only a later one FAILs (docs/radio.md, "Verdicts").
    public func expectOnTime(_ delay: Duration, within window: KeyPath<DialectParameters, Duration>, _ reason: String) throws {
        let limit = priorParameters[keyPath: window]
        guard delay > limit else { return }
        let airLimit = declared[keyPath: window] + RelayLatencyBook.maxAirDelay
        if session.latencyVaries, delay <= airLimit {
            throw CheckInconclusive(reason: "\(reason) after \(Self.ms(delay)), past \(Self.ms(limit)); over the air a delay up to \(Self.ms(airLimit)) may be the hosts' load, not the DUT's (docs/radio.md, \"Verdicts\")", cause: .airLatency)
        }
        throw CheckFailed(reason: reason, expected: "within \(limit)", seen: "after \(delay)")
    }

    private func record(_ direction: EvidenceEntry.Direction, _ link: LinkID?, _ bytes: [UInt8]?, _ summary: String) {
        evidence.append(EvidenceEntry(time: elapsed, direction: direction, link: link, bytes: bytes, summary: summary))
    }
}

// MARK: - reading observations

extension CheckContext {
    /// Copies of `message` the DUT sent (relays, retransmissions), with link and time.
    public func copies(of message: ProbeMessage, in observations: [Observation]) -> [(message: HeardMessage, link: LinkID, time: Duration)] {
        observations.compactMap { o in
            guard let m = o.message, m.key == message.key, let link = o.link else { return nil }
            return (m, link, o.time)
        }
    }

    /// Whether the DUT originated `message` (an announce, a message of its own, its retry):
    /// background traffic, never a relay of anything a check sent. While the DUT's own id is
    /// unknown, any sender the tester does not play is taken for the DUT.
    public func isOwn(_ message: HeardMessage) -> Bool {
        dutIdentityKnown ? message.origin == probe.dutAddress : !probe.isTesterParty(message.origin)
    }

    /// Messages the DUT sent that it did not originate: its relays, with link and time. What a
    /// DUT sends of its own (announces, own messages and their retries) is not among them.
    public func relays(in observations: [Observation]) -> [(message: HeardMessage, link: LinkID, time: Duration)] {
        observations.compactMap { o in
            guard let m = o.message, !isOwn(m), let link = o.link else { return nil }
            return (m, link, o.time)
        }
    }

    /// Messages the DUT originated, with link and time (its own traffic and what the upper
    /// tester asked it to send: pick the one a check wants by its destination or content).
    public func ownMessages(in observations: [Observation]) -> [(message: HeardMessage, link: LinkID, time: Duration)] {
        observations.compactMap { o in
            guard let m = o.message, isOwn(m), let link = o.link else { return nil }
            return (m, link, o.time)
        }
    }

    /// Acks for `message` the DUT sent.
    public func acks(of message: ProbeMessage, in observations: [Observation]) -> [(destination: NodeAddress?, link: LinkID, time: Duration)] {
        observations.compactMap { o in
            guard case .ack(let id, let destination, _)? = o.packet, id == message.ackID, let link = o.link else { return nil }
            return (destination, link, o.time)
        }
    }

    /// Beacons the DUT sent (its own and the ones it relayed), with link and time.
    public func beacons(in observations: [Observation]) -> [(beacon: Beacon, link: LinkID, time: Duration)] {
        observations.compactMap { o in
            guard case .beacon(let b)? = o.packet, let link = o.link else { return nil }
            return (b, link, o.time)
        }
    }

    /// Every ack the DUT sent, whatever it names: for checks that the DUT acks nothing.
    public func anyAcks(in observations: [Observation]) -> [(ackID: String, link: LinkID, time: Duration)] {
        observations.compactMap { o in
            guard case .ack(let id, _, _)? = o.packet, let link = o.link else { return nil }
            return (id, link, o.time)
        }
    }

    /// App deliveries of `message`'s payload from its origin: from the session, or, with an
    /// operator, as many as they say the device shows (no answer: INCONC).
    public func deliveries(of message: ProbeMessage, in observations: [Observation]) throws -> [AppMessage] {
        if let upperTester {
            let shown = try ask(upperTester, .delivery(text: Self.promptText(message.payload), from: message.origin.description))
            return Array(repeating: AppMessage(origin: message.origin, destination: message.destination, payload: message.payload,
                                               messageID: message.key), count: shown)
        }
        return observations.compactMap { o in
            guard case .delivered(let m) = o.kind, m.origin == message.origin, m.payload == message.payload else { return nil }
            return m
        }
    }

    /// Whether the app was told its message `id` (text `payload`) was acknowledged: from the
    /// session, or, with an operator, their answer (no answer: INCONC).
    public func appToldAcknowledged(_ id: String, payload: [UInt8], in observations: [Observation]) throws -> Bool {
        if let upperTester { return try ask(upperTester, .acknowledgement(text: Self.promptText(payload))) > 0 }
        return observations.contains { if case .acknowledged(let told) = $0.kind { told == id } else { false } }
    }

    /// A compact rendering of what was seen, for `seen:` texts.
    public func summary(_ observations: [Observation]) -> String {
        if observations.isEmpty { return "nothing" }
        return observations.map { o in
            let t = String(format: "%.1fms", Double(o.time.components.seconds) * 1000 + Double(o.time.components.attoseconds) / 1e15)
            switch o.kind {
            case .packet(let p, let link):
                switch p {
                case .message(let m): return "message ttl \(m.ttl) on \(link) at \(t)"
                case .ack(let id, _, _): return "ack \(id) on \(link) at \(t)"
                case .beacon(let b): return "beacon seqNo \(b.seqNo) ttl \(b.ttl) hop \(b.hop) on \(link) at \(t)"
                case .control(let c, _): return "\(c.kind.rawValue) on \(link) at \(t)"
                case .malformed(let e):
                    // A unit whose bytes tie it to a message the tester sent is a relay it cannot read.
                    let relayed = o.bytes.map { matchedMessage($0) != nil } ?? false
                    return "\(relayed ? "relayed (undecodable: \(e.code.rawValue))" : "malformed (\(e.code.rawValue))") on \(link) at \(t)"
                case .state(let v): return "\(v.stateSummary) on \(link) at \(t)"
                }
            case .delivered(let m): return "delivery of \(m.messageID) at \(t)"
            case .acknowledged(let id): return "app told \(id) acknowledged at \(t)"
            case .disconnected(let l): return "dropped \(l) at \(t)"
            }
        }.joined(separator: "; ")
    }
}

// MARK: - liveness

/// What a liveness probe saw of a fresh valid message: the one judgement of "the DUT relays"
/// that the checks' baseline, their liveness probe and the over-the-air fuzzer share.
public enum LivenessJudgement: Sendable, Equatable {
    /// A relay (or, where counted, an ack) of the message was recognised.
    case relayed
    /// Nothing was recognised, but the DUT sent units the tester could neither decode nor tie to
    /// the message by their bytes: it may be relaying in a form the tester cannot read ("3 units
    /// undecodable (trailingBytes)").
    case unrecognised(String)
    /// Nothing recognised and nothing undecodable: the DUT said nothing.
    case silent

    /// What was seen, for reasons: "nothing", or the undecodable units.
    public var seen: String {
        switch self {
        case .relayed: "a relay"
        case .unrecognised(let what): what
        case .silent: "nothing from the DUT"
        }
    }
}

extension CheckContext {
    /// Judges `seen` for a relay of `message` on a link other than tester 1's (or an ack of it,
    /// with `countingAcks`): a decoded copy, or a unit the tester cannot decode that its bytes
    /// tie to the message (`sightings(of:in:)`).
    public func liveness(of message: ProbeMessage, in seen: [Observation], countingAcks: Bool = false) -> LivenessJudgement {
        if sightings(of: message, in: seen).contains(where: { $0.link != LinkID(1) }) { return .relayed }
        if countingAcks, !acks(of: message, in: seen).isEmpty { return .relayed }
        let undecodable = seen.compactMap { o -> String? in if case .malformed(let e)? = o.packet { e.code.rawValue } else { nil } }
        guard !undecodable.isEmpty else { return .silent }
        let codes = Self.tally(undecodable)
        return .unrecognised("\(undecodable.count) unit\(undecodable.count == 1 ? "" : "s") undecodable (\(codes))")
    }

    /// Tester 1 sends fresh valid messages for another node from `origin` (more than one only
    /// where the page lets a node skip a relay by chance) and judges whether the DUT relays them.
    /// The baseline and the probe after the stimulus come from different strangers, so a DUT
    /// that takes a new message from a known origin for a duplicate (DDP/BV-03 judges that) is
    /// not read as one that stopped relaying.
    private func probeRelaying(_ label: String, from origin: Party) throws -> (LivenessJudgement, [Observation]) {
        let attempts = parameters.relayMaySkip ? 8 : 1
        var last: (LivenessJudgement, [Observation]) = (.silent, [])
        for _ in 1...attempts {
            let probeMessage = try message(MessageSpec(from: origin, to: probe.relayedDestination))
            try send(probeMessage, from: 1)
            let seen = try observe(for: parameters.quietPeriod) { self.sightings(of: probeMessage, in: $0).contains { $0.link != LinkID(1) } }
            last = (liveness(of: probeMessage, in: seen), seen)
            if last.0 == .relayed { return last }
        }
        note("\(label): no relay recognised of \(attempts) fresh message\(attempts == 1 ? "" : "s")")
        return last
    }

    /// The baseline of a liveness probe, taken before the check's stimulus: the tester proves
    /// it recognises the DUT's relay of a fresh valid message on these links. Without it a
    /// later "no relay" could be the tester's blindness, not the DUT's silence: INCONC.
    public func establishBaseline() throws {
        note("baseline: a fresh valid message must be relayed, and recognised, before the stimulus")
        let (judgement, seen) = try probeRelaying("baseline", from: .stranger(8))
        guard judgement == .relayed else {
            throw CheckInconclusive(reason: "no relay recognised before the stimulus: \(judgement.seen) (seen: \(summary(seen))); the check cannot tell a DUT that stops relaying from one whose relays the tester cannot read (RLY/BV-01 judges relaying)",
                                    cause: .noBaseline)
        }
        baselineEstablished = true
    }

    /// The liveness probe after a stimulus (`establishBaseline` must have come before it): a
    /// fresh valid message from tester 1 must still be relayed toward tester 2 within the relay
    /// window. Nothing at all is a FAIL: the baseline showed the tester sees this DUT's relays.
    /// Units the tester cannot decode where it decoded the baseline's are INCONC: the DUT said
    /// something, not what.
    public func expectStillRelaying(after what: String) throws {
        guard baselineEstablished else { throw TesterError("\(checkID) probes liveness without a baseline (establishBaseline before the stimulus)") }
        note("liveness probe after \(what)")
        let (judgement, seen) = try probeRelaying("liveness probe", from: .stranger(9))
        switch judgement {
        case .relayed: return
        case .unrecognised(let units):
            throw CheckInconclusive(reason: "after \(what) the DUT's answers to a fresh message were not recognised: \(units), where its relay before the stimulus was", cause: .undecided)
        case .silent:
            throw CheckFailed(reason: "the DUT stopped relaying after \(what)",
                              expected: "a fresh valid message relayed within \(parameters.relayWindow.upperBound), as it was before the stimulus",
                              seen: summary(seen))
        }
    }
}

/// What a run knows of the DUT's id, shared by its checks: a DUT that keeps its own id keeps
/// it for the whole run, so once learned it holds for every later check.
public final class DUTIdentityBook: Sendable {
    public struct Learned: Sendable {
        public var address: NodeAddress
        /// How: "from its beacon", ...
        public var how: String
    }

    /// Locked: checks run at once (`--jobs`) share the book.
    private let storage = Mutex<Learned?>(nil)
    public var learned: Learned? {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
    public init() {}
}

extension HeardPacket {
    /// What the packet is, for notes: "beacon", "ANNOUNCE", "document", "announce", "message".
    var kindName: String {
        switch self {
        case .message(let m):
            switch m.value {
            case .bitchat(let p) where p.type == BitchatMessageType.announce.rawValue: "announce"
            case .camp(let c) where c.kind == .campAnnouncement: "camp announcement"
            default: "message"
            }
        case .ack: "ack"
        case .beacon: "beacon"
        case .control(let c, _): c.kind.rawValue
        case .malformed: "malformed packet"
        case .state: "document"
        }
    }
}
