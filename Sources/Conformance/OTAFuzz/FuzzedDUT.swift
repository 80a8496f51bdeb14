import MeshNode

/// How a DUT under fuzz stopped working.
public enum DUTDeath: Error, Sendable, Equatable {
    /// It is still there but no longer relays or acks a fresh valid message (the liveness
    /// probe's reason says what was seen instead).
    case silent(String)
    /// The driver reports it gone or broken: the process exited, stopped reading its input,
    /// flooded the tester, wrote a line that is no protocol message; the link dropped.
    case failed(String)

    public var kind: String {
        switch self {
        case .silent: "silent"
        case .failed: "failed"
        }
    }

    public var reason: String {
        switch self {
        case .silent(let r), .failed(let r): r
        }
    }
}

/// The fuzzer could not go on for reasons that say nothing about the DUT (a tester adapter
/// failed, a device on the air stays dead after reconnecting): the campaign ends INCONC.
public struct FuzzStopped: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// One DUT session under fuzz: tester 1 writes the inputs, tester 2 is the link a relay must
/// come out on. Built on `CheckContext`, so inputs, relays and probes go through the same
/// code (and evidence) as the conformance checks.
final class FuzzedDUT {
    let context: CheckContext
    private let session: any DUTSession
    private var closed = false
    /// The sequence number of the next liveness message. Explicit, so that the probes of
    /// successive sessions never repeat one: a device on the air keeps its de-duplication
    /// cache across reconnections and would take a repeat for a duplicate.
    private(set) var livenessSequence: UInt64
    /// Inputs the link refused to carry (the transport's size limit).
    private(set) var uncarried = 0
    /// After `write` found the DUT dead: the index of the input the death surfaced on (on the
    /// tester's clock, the one the DUT never answered; on the wall clock, the culprit is this
    /// one or an earlier one); the last input when it surfaced in the quiet period after them.
    private(set) var failedAt: Int?

    /// Starts a DUT through `driver` and links testers 1 and 2 to it. A DUT that cannot be
    /// started or linked is a `DUTDeath`; a tester-side problem is `FuzzStopped`.
    static func start(driver: any DUTDriver, capabilities: Capabilities, seed: UInt64,
                      livenessSequence: UInt64 = firstLivenessSequence) throws(FuzzStopped) -> Result<FuzzedDUT, DUTDeath> {
        guard let probe = capabilities.dialect.makeProbe() else {
            throw FuzzStopped("dialect \(capabilities.dialect.rawValue) has no conformance probe, so no liveness probe")
        }
        let session: any DUTSession
        do {
            session = try driver.start(try probe.setup(capabilities: capabilities, seed: seed))
        } catch let e as DUTFailure {
            return .failure(.failed(e.description))
        } catch let e as LinkFailure {
            return .failure(.failed(e.description))
        } catch {
            throw FuzzStopped("could not start the DUT: \(error)")
        }
        let dut = FuzzedDUT(context: CheckContext(capabilities: capabilities, probe: probe, session: session, seed: seed), session: session,
                            livenessSequence: livenessSequence)
        if let death = try dut.guarded({ try dut.context.connect(2) }) {
            _ = dut.close()
            return .failure(death)
        }
        return .success(dut)
    }

    private init(context: CheckContext, session: any DUTSession, livenessSequence: UInt64) {
        self.context = context
        self.session = session
        self.livenessSequence = livenessSequence
    }

    /// Steps taken between two reads of the DUT's outputs within a batch.
    static let inputsBetweenReads = 16

    /// Far above the probe's own counters, which number the seeds' messages.
    static let firstLivenessSequence: UInt64 = 1 << 40

    /// The testers take the steps in order (each input written by its tester; link churn
    /// applied), then the tester waits the dialect's quiet period so the DUT has handled them
    /// all (what it sends meanwhile is read and dropped). nil: it took them; otherwise how it
    /// died on them. An input the link cannot carry (over 512 bytes on GATT) is left out, the
    /// same way on every replay, and counted in `uncarried`.
    func write(_ steps: [OTAStep]) throws(FuzzStopped) -> DUTDeath? {
        failedAt = nil
        var index = 0
        let death = try guarded {
            for step in steps {
                switch step {
                case .input(let bytes, let tester):
                    do { try context.write(bytes, from: tester) } catch is CheckNotApplicable { uncarried += 1 }
                case .relink(let tester):
                    try context.linkDown(tester)
                    try context.linkUp(tester)
                }
                index += 1
                // Read what the DUT sent meanwhile (relays on the other links): unread, it
                // fills a process's stdout pipe or the other adapter's buffers, and a DUT
                // blocked on its output stops taking input, which would pass for a death.
                if index % Self.inputsBetweenReads == 0 { _ = try context.observe(for: .zero) }
            }
            _ = try context.observe(for: context.parameters.quietPeriod)
        }
        if death != nil { failedAt = min(index, steps.count - 1) }
        return death
    }

    /// The liveness probe: a fresh valid message from tester 1 must be relayed on another link
    /// or acked within the dialect's answer period, judged as the checks judge it
    /// (`CheckContext.liveness(of:in:countingAcks:)`). A second message (addressed to the DUT
    /// when it acks, so either duty counts) guards against one lost packet on a real radio.
    /// The campaign's first probe is the baseline: a DUT whose relays the tester cannot
    /// recognise ends it INCONC before any input, as the checks' baseline does.
    func liveness() throws(FuzzStopped) -> DUTDeath? {
        var seen: [String] = []
        let destinations: [Party?] = [context.probe.relayedDestination, context.capabilities.acks ? .dut : context.probe.relayedDestination]
        var judgement = LivenessJudgement.silent
        for destination in destinations {
            if let death = try guarded({
                let message = try livenessMessage(to: destination)
                try context.send(message, from: 1)
                let heard = try context.observe(for: context.parameters.answerPeriod)
                judgement = context.liveness(of: message, in: heard, countingAcks: true)
                seen.append(context.summary(heard))
            }) { return death }
            if judgement == .relayed { return nil }
        }
        let what = judgement == .silent ? "no relay or ack" : "no relay or ack recognised (\(judgement.seen))"
        return .silent("\(what) of \(destinations.count) fresh valid messages within \(context.parameters.answerPeriod) each (seen: \(seen.joined(separator: " / ")))")
    }

    /// A liveness message to `destination`, with this campaign's next sequence number where the
    /// dialect lets the tester pick one (camp has none, bitchat's is the sender's clock: their
    /// probes make each message fresh themselves). A dialect without messages addressed to one
    /// node (simple, peat) gets a relayed one instead.
    private func livenessMessage(to destination: Party?) throws -> ProbeMessage {
        livenessSequence += 1
        let sequence = context.probe.acceptsChosenSequence ? livenessSequence : nil
        do {
            return try context.message(MessageSpec(from: .stranger(9), to: destination, sequence: sequence))
        } catch is CheckNotApplicable where destination != context.probe.relayedDestination {
            return try livenessMessage(to: context.probe.relayedDestination)
        }
    }

    /// Stops the DUT; its diagnostics (stderr tail), if any.
    func close() -> String? {
        guard !closed else { return nil }
        closed = true
        return session.close()
    }

    /// Runs a step; a DUT failure is a death, anything else stops the campaign.
    private func guarded(_ step: () throws -> Void) throws(FuzzStopped) -> DUTDeath? {
        do {
            try step()
            return nil
        } catch let e as DUTFailure {
            return .failed(e.description)
        } catch let e as LinkFailure {
            // Under fuzz, a DUT the tester can no longer link to is what a crash looks like.
            return .failed(e.description)
        } catch {
            throw FuzzStopped("the tester failed: \(error)")
        }
    }
}
