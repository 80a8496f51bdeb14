import MeshNode

/// Everything one `meshconform run` produced: per dialect, the capabilities used and the
/// results in catalog order. The text, JSON and JUnit reports all render this.
public struct RunReport: Sendable {
    public struct Section: Sendable {
        public var capabilities: Capabilities
        public var results: [CheckResult]
        /// Over the air: the tester's own round trip to the DUT per link, as the links came up
        /// (`RelayLatencyBook.pathSummary`); nil where nothing was measured.
        public var testerPath: String?
        public init(capabilities: Capabilities, results: [CheckResult], testerPath: String? = nil) {
            self.capabilities = capabilities
            self.results = results
            self.testerPath = testerPath
        }
    }

    /// The DUT driver's one-line description.
    public var dut: String
    public var seed: UInt64
    /// Where the run's identifiers started (RunIdentifiers); `--run-base` replays it.
    public var runBase: UInt64
    public var sections: [Section]
    public var wallSeconds: Double
    /// Over the air: the tester links each adapter gave, and why (empty otherwise).
    public var testerLinks: [TesterLinks]

    public init(dut: String, seed: UInt64, runBase: UInt64 = 0, sections: [Section], wallSeconds: Double,
                testerLinks: [TesterLinks] = []) {
        self.dut = dut
        self.seed = seed
        self.runBase = runBase
        self.sections = sections
        self.wallSeconds = wallSeconds
        self.testerLinks = testerLinks
    }

    public var results: [CheckResult] { sections.flatMap(\.results) }

    public func count(_ verdict: Verdict) -> Int { results.filter { $0.verdict == verdict }.count }

    /// DESIGN.md section 5: 0 when every applicable check passed, 1 when one failed. A FAIL
    /// or an ERROR (the tester could not finish, so the run proves nothing) gives 1; INCONC
    /// and NA are reported but do not fail the run: they say "not decided", not "wrong".
    public var exitStatus: Int32 { results.contains { $0.verdict == .fail || $0.verdict == .error } ? 1 : 0 }

    /// `PASS 31, FAIL 1, INCONC 0, NA 2, ERROR 0`.
    public var tally: String {
        Verdict.allCases.map { "\($0.rawValue) \(count($0))" }.joined(separator: ", ")
    }
}

/// One tester adapter of a run over the air: how many identities its controller could play,
/// how many simultaneous links to the DUT it gave, and why not more.
public struct TesterLinks: Hashable, Sendable {
    public var adapter: String
    public var identities: Int
    public var links: Int
    public var note: String
    public init(adapter: String, identities: Int, links: Int, note: String) {
        self.adapter = adapter; self.identities = identities; self.links = links; self.note = note
    }
}
