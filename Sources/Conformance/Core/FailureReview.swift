import MeshNode
import MeshWire

/// A FAIL is a promise that the DUT broke a rule, never that the tester could not see
/// (docs/checks.md, "Verdicts"). Before a check's FAIL stands, the runner reviews it for the
/// two ways a check's own finding can rest on blindness:
///
/// - the DUT sent units a decoder of the page refuses: what they said is unknown. When their
///   bytes tie one to a message the tester sent, or the tester decoded nothing at all, and the
///   check did not count them itself (`sightings`), its finding may rest on them: the FAIL
///   names the wire rule they break, with their bytes, and keeps the check's finding as
///   context. Otherwise (a check that counted them, a DUT whose other traffic the tester read)
///   the check's finding stands and its reason says what else came;
/// - the DUT answered after the check's last window had closed: the tester listens on for
///   twice the answer period (a second at least), and an answer to what the tester did then (a relay, an ack, a
///   delivery, a dropped link: `answersTheCheck`) makes the FAIL one of the page's timing rule.
extension CheckContext {
    func reviewed(_ failure: CheckFailed) -> CheckFailed {
        guard failure.finding == .check else { return failure }
        guard let first = undecodableUnits.first else { return lateAnswer(behind: failure) ?? failure }
        let rule = probe.wireRule(for: first.error)
        let codes = Self.tally(undecodableUnits.map(\.error.code.rawValue), complete: undecodableCount == undecodableUnits.count)
        let blind = !judgedUndecodable && (decodedCount == 0 || undecodableUnits.contains { matchedMessage($0.bytes) != nil })
        guard blind else {
            var noted = failure
            noted.reason += " (the DUT also sent \(undecodableCount) unit\(undecodableCount == 1 ? "" : "s") a decoder of the page refuses: \(codes), \(rule))"
            return lateAnswer(behind: noted) ?? noted
        }
        return CheckFailed(
            reason: "sent \(undecodableCount) unit\(undecodableCount == 1 ? "" : "s") a decoder of the page refuses (\(codes)): \(rule) is broken; the check's own finding, blind to what they said: \(failure.reason)",
            expected: "units that decode as \(rule) says; and \(failure.expected)",
            seen: "on \(first.link) at \(Self.ms(first.time)): \(first.error.detail); \(first.bytes.count) bytes \(Self.hex(first.bytes)); and \(failure.seen)",
            rule: rule, finding: .undecodableOutput)
    }

    private func lateAnswer(behind failure: CheckFailed) -> CheckFailed? {
        let closed = elapsed
        let grace = max(parameters.answerPeriod * 2, Self.lateGrace)
        note("reviewing the FAIL: listening \(Self.ms(grace)) more for answers that come late")
        guard let more = try? observe(for: grace), let late = more.first(where: answersTheCheck) else { return nil }
        let rule = RLY.bv02.rules.first { $0.hasPrefix(dialect.rawValue.uppercased() + "-") } ?? "the page's relay window (RLY/BV-02)"
        return CheckFailed(
            reason: "answered late: \(summary([late])) came \(Self.ms(late.time - closed)) after the check's last window closed (\(rule)); the check's own finding, made before it came: \(failure.reason)",
            expected: "answers within the page's windows (relays within \(parameters.relayWindow.upperBound), answers within \(parameters.answerPeriod)); and \(failure.expected)",
            seen: "\(summary(more)); before: \(failure.seen)", rule: rule, finding: .lateAnswer)
    }

    /// The least the review listens past a FAIL: a DUT a few hundred milliseconds late is still
    /// one that answers (on the tester's clock the wait costs nothing; elsewhere a FAIL costs it).
    static let lateGrace: Duration = .seconds(1)

    /// What answers something the tester did, rather than being the DUT's own background
    /// traffic: a relay (a message it did not originate, or a unit tied to one the tester sent
    /// by its bytes), a message the upper tester asked for, an ack, a rebroadcast beacon or
    /// forwarded control envelope of another node, a delivery, a dropped link. After a check's
    /// last window nothing the tester sent is owed an answer on time any more.
    private func answersTheCheck(_ o: Observation) -> Bool {
        switch o.kind {
        case .packet(.message(let m), _):
            return !isOwn(m) || commanded.contains { m.body == $0.payload || $0.to != nil && m.destination == $0.to }
        case .packet(.malformed, _): return o.bytes.flatMap(matchedMessage) != nil
        case .packet(.ack, _): return true
        case .packet(.beacon(let b), _): return NodeAddress(b.origin) != probe.dutAddress
        case .packet(.control(_, let envelope), _): return NodeAddress(envelope.originID) != probe.dutAddress
        case .packet(.state, _): return false
        case .delivered, .acknowledged, .disconnected: return true
        }
    }
}
