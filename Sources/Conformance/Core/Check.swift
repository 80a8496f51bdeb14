import MeshNode

/// One named conformance check (DESIGN.md section 6): an id in the Bluetooth test-spec habit
/// (`GROUP/BV-nn` valid behaviour, `GROUP/BI-nn` invalid input), what it verifies, where it
/// applies, and its steps. The steps are written as numbered comments inside `body`.
public struct Check: Sendable {
    public let id: String
    public let purpose: String
    public let dialects: Set<DialectName>
    public let needs: [Capability]
    /// The dialect-page rules it verifies, e.g. `RELAY-R5.3`, `BLEMESH-R7`.
    public let rules: [String]
    let body: @Sendable (CheckContext) throws -> Void

    public init(_ id: String, _ purpose: String, dialects: Set<DialectName> = Set(DialectName.probed),
                needs: [Capability] = [], rules: [String], body: @escaping @Sendable (CheckContext) throws -> Void) {
        self.id = id
        self.purpose = purpose
        self.dialects = dialects
        self.needs = needs
        self.rules = rules
        self.body = body
    }

    /// `RLY` for `RLY/BV-01`.
    public var group: String { String(id.prefix { $0 != "/" }) }

    /// Whether the check's subject is surviving bad input (the ROB group): a DUT that stops
    /// answering after the malformed input is its FAIL. In every other check a DUT that became
    /// unreachable makes a would-be FAIL INCONC, and in every check a would-be PASS
    /// (`DUTSession.unreachableReason`).
    public var judgesSurvival: Bool { group == "ROB" }
}

/// The DUT did not do what the page says: FAIL.
public struct CheckFailed: Error, Sendable {
    /// What a FAIL rests on, by type (docs/checks.md, "Verdicts").
    public enum Finding: String, Sendable, Codable {
        /// The check's own expectation, on what the tester saw.
        case check
        /// The DUT sent units a decoder of the page refuses: the wire rule they break (the
        /// check's own finding, blind to what they said, is kept in the reason).
        case undecodableOutput
        /// The DUT answered after the check's last window had closed: the page's timing rule
        /// (what the check judged missing came late).
        case lateAnswer
    }

    public var reason: String
    public var expected: String
    public var seen: String
    /// The page's rule broken, where the tester names one by type (a wire rule, the relay
    /// window); nil: the check's own rules.
    public var rule: String? = nil
    public var finding: Finding = .check
}

/// The tester could not decide: INCONC, with why by type.
public struct CheckInconclusive: Error, Sendable {
    /// Why the tester could not decide: never the DUT breaking a rule (that is a FAIL).
    public enum Cause: String, Sendable, Codable {
        /// The check's wait runs past its budget, or the run's time limit.
        case budget
        /// What the check builds on did not happen (the first copy was not relayed): the rule it
        /// judges cannot be seen; the check that judges the premise itself FAILs it.
        case premise
        /// The tester recognised nothing of what the DUT sent before the stimulus (no baseline):
        /// it cannot tell "stopped" from "never seen".
        case noBaseline
        /// A delay over the air that the hosts' load may explain.
        case airLatency
        /// The operator at the bench did not answer, or could not do what was asked.
        case noOperatorAnswer
        /// The DUT became unreachable, or a link could not be made.
        case unreachable
        /// What the DUT did was seen but does not decide the rule (crowding, too few samples).
        case undecided
    }
    public var reason: String
    public var cause: Cause
    public init(reason: String, cause: Cause = .undecided) {
        self.reason = reason
        self.cause = cause
    }
}

/// The check does not apply to this DUT: NA.
public struct CheckNotApplicable: Error, Sendable {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
}
