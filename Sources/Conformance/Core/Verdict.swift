import MeshNode

/// The outcome of one check (DESIGN.md section 6).
public enum Verdict: String, Codable, Sendable, CaseIterable {
    /// The DUT did what the dialect page says.
    case pass = "PASS"
    /// The DUT did something else: the result says what was expected and what was seen.
    case fail = "FAIL"
    /// The tester could not decide (for example the wait the check needs exceeds its budget).
    case inconclusive = "INCONC"
    /// The check needs a capability the DUT did not declare, or does not apply to its dialect.
    case notApplicable = "NA"
    /// The tester itself failed; says nothing about the DUT.
    case error = "ERROR"
}

/// One check's verdict with everything needed to understand it without rerunning it.
public struct CheckResult: Sendable {
    public var id: String
    public var purpose: String
    public var dialect: DialectName
    public var verdict: Verdict
    /// Why: the failed expectation, the missing capability, the tester error.
    public var reason: String?
    public var expected: String?
    public var seen: String?
    /// For an INCONC: why the tester could not decide, by type (never a rule the DUT broke).
    public var inconclusiveCause: CheckInconclusive.Cause?
    /// For a FAIL: what it rests on, and the rule it names when the tester names one by type.
    public var finding: CheckFailed.Finding?
    public var failedRule: String?
    /// Everything exchanged with the DUT during the check, in time order.
    public var evidence: [EvidenceEntry]
    /// Wall-clock seconds the check took.
    public var wallSeconds: Double

    public init(id: String, purpose: String, dialect: DialectName, verdict: Verdict, reason: String? = nil,
                expected: String? = nil, seen: String? = nil, inconclusiveCause: CheckInconclusive.Cause? = nil,
                evidence: [EvidenceEntry] = [], wallSeconds: Double = 0) {
        self.id = id
        self.purpose = purpose
        self.dialect = dialect
        self.verdict = verdict
        self.reason = reason
        self.expected = expected
        self.seen = seen
        self.inconclusiveCause = inconclusiveCause
        self.evidence = evidence
        self.wallSeconds = wallSeconds
    }
}

/// One line of a check's evidence: a packet to or from the DUT, an app event, or a tester note.
public struct EvidenceEntry: Sendable {
    public enum Direction: String, Sendable {
        /// Bytes the tester wrote to the DUT, or an event it gave the DUT (link up, command).
        case toDUT = "->"
        /// Bytes or events the DUT produced.
        case fromDUT = "<-"
        /// A step the tester took or concluded.
        case note = "##"
    }

    /// Time since the check started, on the session's clock (virtual or wall).
    public var time: Duration
    public var direction: Direction
    public var link: LinkID?
    public var bytes: [UInt8]?
    /// What the tester made of it, in the dialect's terms.
    public var summary: String

    public init(time: Duration, direction: Direction, link: LinkID? = nil, bytes: [UInt8]? = nil, summary: String) {
        self.time = time
        self.direction = direction
        self.link = link
        self.bytes = bytes
        self.summary = summary
    }

    /// `+12.345ms -> L1 frame origin=... ttl=3` : one line for the text and JUnit reports.
    public var line: String {
        let ms = Double(time.components.seconds) * 1000 + Double(time.components.attoseconds) / 1e15
        let link = link.map { " \($0)" } ?? ""
        return String(format: "%+10.3fms ", ms) + direction.rawValue + link + " " + summary
    }
}
