import ArgumentParser
import Conformance
import Foundation
import GATTDUT
import HCITransport
import MeshNode

/// `meshconform [run]`: the conformance checks against a DUT (DESIGN.md section 5). With no
/// DUT option it tests the built-in reference node of every dialect on the virtual radio.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the conformance checks against a device under test (default: the built-in reference node).",
        discussion: """
            DUTs: the built-in reference node (default) or one of its mutants (--mutant), any program \
            speaking the stdio protocol of docs/stdio-dut.md (--dut-exec), or a device over HCI \
            adapters (--adapter, --target). Checks and capabilities: docs/checks.md. \
            Exit status: 0 every applicable check passed, 1 a check FAILed or ended in ERROR, 2 bad use.
            """)

    @Option(help: "Dialect to test (default: every dialect for the built-in node; the capabilities file's otherwise; with --adapter, detected from the target's advertised services or GATT database).")
    var dialect: String?

    @Option(help: "HCI adapter: hci0, tcp:HOST:PORT, unix:PATH (repeat for more tester identities).")
    var adapter: [String] = []

    @Option(help: "BLE address of the DUT, with --adapter.")
    var target: String?

    @Option(name: .customLong("dut-exec"), help: "Command that runs a DUT speaking the stdio protocol (docs/stdio-dut.md).")
    var dutExec: String?

    @Option(help: "Test a named mutant of the reference node instead (see `meshconform list --mutants`); comma-separate to combine; `app`: the dialect's main app, every deviation and policy its page documents; `app-ios`, `app-android`: bitchat's two (`meshconform list --apps`).")
    var mutant: String?

    @Option(help: "Only checks whose id matches these globs, comma-separated (e.g. 'RLY/*,DDP/BV-0?').")
    var checks: String?

    @Option(help: "JSON file declaring what the DUT supports (keys in docs/checks.md).")
    var capabilities: String?

    @Option(help: "Write the JSON report, with full evidence, to this file.")
    var json: String?

    @Option(help: "Write a JUnit XML report to this file.")
    var junit: String?

    @Option(help: "Write the HTML report to this file: one self-contained page with filters and a sequence chart per check.")
    var html: String?

    @Option(help: "Write a btsnoop capture per adapter into this directory (with --adapter).")
    var btsnoop: String?

    @Flag(name: .customLong("dut-connects"), help: "With --adapter: bring each link up by waiting for the DUT to connect to the tester (as phones do) before the tester connects to it (docs/radio.md, Links).")
    var dutConnects = false

    @Option(help: "Seed for the testers' random choices and the reference node.")
    var seed: UInt64 = 1

    @Option(name: .customLong("run-base"), help: "Where the run's identifiers (seqs, message ids, tester ids) start; the report prints it. Default: random for a DUT that keeps its state (--dut-exec, --adapter, --persistent), from --seed for the built-in node. Give a report's value to replay that run.")
    var runBase: UInt64?

    @Flag(help: "Keep one built-in node for the whole run, as a device on the air is kept (no fresh node per check).")
    var persistent = false

    @Option(help: "Wall-clock limit for the whole run, seconds; checks not started by then are INCONC.")
    var timeLimit: Double = 3600

    @Option(help: "With --dut-exec: run this many checks at once, each with its own DUT process (the report is the same as with one).")
    var jobs: Int = 1

    @Flag(help: "Be the DUT's upper tester by hand: checks that need the app (sends, deliveries, acknowledgements shown) ask you on the terminal, PTS MMI style (docs/checks.md, \"Operator prompts\").")
    var prompt = false

    @Option(help: "Answer the operator prompts from this file of JSON lines ({\"check\": \"DDP/BV-05\", \"kind\": \"delivery\", \"answer\": \"y\"}) instead of the terminal.")
    var promptAnswers: String?

    @Option(help: "Seconds to wait for an answer to a prompt; no answer is INCONC.")
    var promptTimeout: Double = 120

    @Flag(name: .shortAndLong, help: "Show reasons and evidence for every check, not only for failures.")
    var verbose = false

    func run() throws {
        let plan = try makePlan()
        let upperTester = try makeOperator()
        guard jobs >= 1 else { throw UsageError("--jobs \(jobs): give at least 1") }
        if jobs > 1, dutExec == nil {
            throw UsageError("--jobs runs several DUT processes at once, so it needs --dut-exec (a device on the air is one device; the built-in node runs the catalog in a fraction of a second)")
        }
        if jobs > 1, upperTester != nil {
            throw UsageError("--jobs cannot be combined with operator prompts: one person answers one prompt at a time")
        }
        let started = ContinuousClock.now
        // No live line under operator prompts: it would be redrawn over the question.
        let progress = CheckProgress(live: upperTester == nil && isatty(STDOUT_FILENO) != 0)
        var sections: [RunReport.Section] = []
        for var capabilities in plan.capabilities {
            if upperTester != nil { capabilities.upperTester = true }
            let selected = try select(for: capabilities.dialect)
            print("\(capabilities.dialect.rawValue): \(selected.count) checks against \(plan.driver.name)\(jobs > 1 ? ", \(jobs) at once" : "")")
            progress.begin(capabilities.dialect.rawValue, total: selected.count)
            var runner = Runner(capabilities: capabilities, driver: plan.driver, seed: seed, runBase: plan.runBase,
                                timeLimit: .milliseconds(Int64(timeLimit * 1000)))
            runner.upperTester = upperTester
            let results: [CheckResult]
            do {
                results = try runner.run(selected, jobs: jobs, progress: { progress.finished(TextReport.line($0, verbose: verbose)) },
                                         activity: progress.activity)
            } catch {
                progress.end()
                throw UsageError("\(error)")
            }
            sections.append(RunReport.Section(capabilities: capabilities, results: results, testerPath: runner.latency.pathSummary))
        }
        progress.end()
        plan.radio?.close()
        let elapsed = ContinuousClock.now - started
        let report = RunReport(dut: plan.driver.name, seed: seed, runBase: plan.runBase, sections: sections,
                               wallSeconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                               testerLinks: plan.radio?.linkSummary ?? [])
        print(TextReport.summary(report))
        if let json { try write(Data(JSONReport.render(report)), to: json) }
        if let junit { try write(Data(JUnitReport.render(report).utf8), to: junit) }
        if let html { try write(Data(HTMLReport.render(report, style: .init(dialectPages: dialectPages)).utf8), to: html) }
        if let failure = plan.radio?.adapterFailure {
            throw UsageError("the run stopped being meaningful: \(failure) (is the controller still running? checks after the failure are ERROR)")
        }
        if let unreachable = plan.radio?.unreachable {
            let notRun = sections.flatMap(\.results).filter { $0.reason?.hasPrefix("not run: ") == true }.count
            print("DUT unreachable (\(plan.radio?.target?.string ?? "?")): \(unreachable); \(notRun) later check\(notRun == 1 ? "" : "s") not run (INCONC). Is it still on, in range and advertising?")
            throw ExitCode(1)
        }
        if report.exitStatus != 0 { throw ExitCode(report.exitStatus) }
    }

    /// The operator prompts: scripted answers, the terminal, or none.
    private func makeOperator() throws -> (any UpperTesterOperator)? {
        guard promptTimeout > 0, promptTimeout <= 86_400 else { throw UsageError("--prompt-timeout must be 0 to 86400 seconds") }
        if let promptAnswers {
            do { return try ScriptedOperator(path: promptAnswers) } catch {
                throw UsageError("--prompt-answers: \(error)")
            }
        }
        return prompt ? TerminalOperator(timeout: .milliseconds(Int64(promptTimeout * 1000))) : nil
    }

    struct Plan {
        var driver: any DUTDriver
        var capabilities: [Capabilities]
        /// The GATT driver, when the DUT is on the air: closed after the run, and its adapter
        /// failure (if any) turns the run's end into exit 2.
        var radio: GATTDriver? = nil
        /// The run's identifier base (RunIdentifiers), the same for every dialect of the run.
        var runBase: UInt64 = 0
    }

    /// `--run-base`, else from the seed for the built-in node (which lives no longer than the
    /// run: reproducible), else random: a DUT that outlives the run must meet identifiers no
    /// earlier run used.
    func runBase(for driver: any DUTDriver) -> UInt64 {
        runBase ?? (driver is VirtualDriver ? Runner.runBase(seed: seed) : Runner.randomRunBase())
    }

    /// The DUT driver and capabilities the DUT options name (also used by `fuzz --dialect`).
    func makePlan() throws -> Plan {
        var plan = try makeDriverPlan()
        plan.runBase = runBase(for: plan.driver)
        return plan
    }

    private func makeDriverPlan() throws -> Plan {
        for moniker in adapter {
            do { _ = try AdapterMoniker(parsing: moniker) } catch { throw UsageError(error.description) }
        }
        if dutExec != nil, mutant != nil {
            throw UsageError("--mutant selects a mutant of the built-in node; it cannot be combined with --dut-exec")
        }
        if persistent, dutExec != nil || !adapter.isEmpty || target != nil {
            throw UsageError("--persistent keeps one built-in node for the run; a --dut-exec program or a device on the air is what it is: drop --persistent")
        }
        let declared = try capabilities.map(loadCapabilities)
        let dialect = try self.dialect.map(parseDialect)
        if let declared, let dialect, declared.dialect != dialect {
            throw UsageError("--dialect \(dialect.rawValue) contradicts the capabilities file, which declares \"\(declared.dialect.rawValue)\"")
        }
        if !adapter.isEmpty || target != nil || btsnoop != nil || dutConnects {
            if declared?.clock == .tester {
                throw UsageError("the capabilities file declares \"clock\": \"tester\", which only a process DUT (--dut-exec) can follow: a device on the air keeps its own clock; remove the key for radio runs")
            }
            return try radioPlan(declared: declared, dialect: dialect)
        }
        if let command = dutExec {
            guard let d = dialect ?? declared?.dialect else {
                throw UsageError("--dut-exec needs the DUT's dialect: pass --dialect D or a --capabilities file")
            }
            // A process DUT runs on the wall clock behind two pipes (the default slack covers that),
            // or on the tester's clock when its capabilities say so.
            var caps = declared ?? Capabilities.process(d)
            caps.dialect = d
            return Plan(driver: ProcessDriver(command: command, clock: caps.clock), capabilities: [caps])
        }
        let mutants = try parseMutants(mutant)
        // Dialects without a conformance probe have no checks yet: by default they are left
        // out, and asking for one by name is an error rather than an empty "pass".
        if let d = dialect ?? declared?.dialect, !DialectName.probed.contains(d) {
            throw UsageError("dialect \(d.rawValue) has no conformance checks yet (docs/dialects/\(d.rawValue).md section 8); its reference node runs in `meshconform sim`")
        }
        let dialects = dialect.map { [$0] } ?? declared.map { [$0.dialect] } ?? DialectName.probed
        if mutants.profile != nil, mutants.profile != AppProfile.mainName, let problem = dialects.lazy.compactMap(mutants.appProblem).first {
            throw UsageError("--mutant: \(problem); pass --dialect with it")
        }
        return Plan(driver: VirtualDriver(mutants: mutants, persistent: persistent),
                    capabilities: dialects.map { declared ?? .referenceNode($0, as: mutants) })
    }

    private func select(for dialect: DialectName) throws -> [Check] {
        let patterns = checks?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let selected = Runner.select(Catalog.all, dialect: dialect, patterns: patterns)
        if selected.isEmpty, let checks {
            throw UsageError("no \(dialect.rawValue) check matches '\(checks)'; `meshconform list --dialect \(dialect.rawValue)` shows the ids")
        }
        return selected
    }

        private func loadCapabilities(_ path: String) throws -> Capabilities {
        do {
            return try Capabilities.load(path)
        } catch let error as DecodingError {
            throw UsageError("capabilities file \(path) is not valid: \(describe(error)); keys and defaults: docs/checks.md")
        } catch {
            throw UsageError("cannot read capabilities file \(path): \(error.localizedDescription)")
        }
    }

    private func describe(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let c): return (c.codingPath.map(\.stringValue) + [c.debugDescription]).joined(separator: ": ")
        case .keyNotFound(let key, _): return "missing key \"\(key.stringValue)\""
        case .typeMismatch(_, let c), .valueNotFound(_, let c): return "wrong type at \"\(c.codingPath.map(\.stringValue).joined(separator: "."))\""
        @unknown default: return "\(error)"
        }
    }

    /// Where the HTML report's rule links point: this source tree's docs/dialects/ when it is
    /// still where the binary was built from, else the same folder relative to the report.
    private var dialectPages: String {
        let pages = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../docs/dialects", isDirectory: true).standardizedFileURL
        return FileManager.default.fileExists(atPath: pages.path) ? pages.absoluteString : "docs/dialects/"
    }

    private func write(_ data: Data, to path: String) throws {
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw UsageError("cannot write \(path): \(error.localizedDescription)")
        }
    }
}

/// `--mutant a,b`: the named faults of the reference node, and an app profile (`app`, `app-ios`).
func parseMutants(_ text: String?) throws -> MutantSelection {
    guard let text else { return MutantSelection() }
    switch MutantSelection.parse(text) {
    case .success(let selection): return selection
    case .failure(let unknown):
        if unknown.secondProfile { throw UsageError("--mutant names two app profiles ('\(unknown.name)' and another): pick one") }
        throw UsageError("unknown mutant '\(unknown.name)'; known: \(AppProfile.allNames.joined(separator: ", ")) (app profiles, `meshconform list --apps`), \(Fault.allCases.map(\.rawValue).joined(separator: ", "))")
    }
}

func parseDialect(_ name: String) throws -> DialectName {
    guard let d = DialectName(rawValue: name) else {
        throw UsageError("unknown dialect '\(name)'; known: \(DialectName.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    return d
}
