import Foundation
import MeshNode
import Synchronization

/// Runs checks against a DUT, one DUT session per check (a fresh DUT where the driver can
/// start one, the same device otherwise), and turns whatever happens (a failed expectation, a
/// crashed or silent DUT, a tester bug) into a verdict.
public struct Runner {
    public var capabilities: Capabilities
    public var driver: any DUTDriver
    public var seed: UInt64
    /// Where every identifier of the run starts (RunIdentifiers): drawn at random per run for
    /// a DUT that keeps its state, derived from `seed` by default.
    public var runBase: UInt64
    /// Wall-clock limit for the whole run; checks not started by then are INCONC.
    public var timeLimit: Duration
    /// The person at the bench as the DUT's upper tester (`--prompt`), or a script of their answers.
    public var upperTester: (any UpperTesterOperator)?
    /// What this runner's runs measured of relay latency and of the tester's own path (the
    /// round trip per link over the air): shared by the checks of a run, as the transport is.
    public let latency = RelayLatencyBook()

    public init(capabilities: Capabilities, driver: any DUTDriver, seed: UInt64 = 1, runBase: UInt64? = nil,
                timeLimit: Duration = .seconds(3600)) {
        self.capabilities = capabilities
        self.driver = driver
        self.seed = seed
        self.runBase = runBase ?? Self.runBase(seed: seed)
        self.timeLimit = timeLimit
    }

    /// The run base a run with `seed` takes unless told (reproducible).
    public static func runBase(seed: UInt64) -> UInt64 { Self.seed(seed, "run base") }

    /// A run base for a run against a DUT that keeps its state across runs (a process
    /// that is not restarted, a device on the air): random, so no two runs share identifiers.
    public static func randomRunBase() -> UInt64 { UInt64.random(in: 1...UInt64.max) }

    /// The checks of `catalog` that belong to this dialect and match one of `patterns` (globs
    /// over ids such as `RLY/*` or `*/BI-*`; nil: all).
    public static func select(_ catalog: [Check], dialect: DialectName, patterns: [String]? = nil) -> [Check] {
        catalog.filter { check in
            check.dialects.contains(dialect) && (patterns?.contains { Glob.matches($0, check.id) } ?? true)
        }
    }

    /// Runs `checks`, up to `jobs` at once (each in its own DUT session: `--jobs` for process
    /// DUTs, whose sessions are separate programs). Results, and the calls to `progress`, come
    /// in the order of `checks` whatever order they finish in, so a report does not depend on
    /// `jobs`. `activity` is told (from any thread) as each check starts and ends. Stops with
    /// `DUTUnavailable` as soon as the DUT cannot be started at all: every further check would
    /// only repeat that. With an `upperTester` operator the checks run one at a time: one
    /// person answers one prompt at a time.
    public func run(_ checks: [Check], jobs: Int = 1, progress: (CheckResult) -> Void = { _ in },
                    activity: @escaping @Sendable (Check, CheckActivity) -> Void = { _, _ in }) throws(DUTUnavailable) -> [CheckResult] {
        let runStart = ContinuousClock.now
        guard jobs > 1, checks.count > 1, upperTester == nil else {
            var results: [CheckResult] = []
            let identity = DUTIdentityBook()
            for (index, check) in checks.enumerated() {
                activity(check, .started)
                let result = try timed(check, index: index, identity: identity, latency: latency, runStart: runStart)
                activity(check, .ended)
                progress(result)
                results.append(result)
            }
            return results
        }
        return try runConcurrently(checks, jobs: min(jobs, checks.count), runStart: runStart, activity: activity, progress: progress)
    }

    /// `check` with its wall time, or INCONC unrun once the run's time limit is reached.
    private func timed(_ check: Check, index: Int, identity: DUTIdentityBook, latency: RelayLatencyBook,
                       runStart: ContinuousClock.Instant) throws(DUTUnavailable) -> CheckResult {
        let started = ContinuousClock.now
        guard started - runStart <= timeLimit else {
            return CheckResult(id: check.id, purpose: check.purpose, dialect: capabilities.dialect, verdict: .inconclusive,
                               reason: "not run: the run's time limit of \(timeLimit) was reached", inconclusiveCause: .budget)
        }
        var result = try attempt(check, index: index, identity: identity, latency: latency)
        result.wallSeconds = (ContinuousClock.now - started).seconds
        return result
    }

    /// What the workers of `runConcurrently` share.
    private struct Workload {
        var next = 0
        var results: [CheckResult?]
        var unavailable: DUTUnavailable?
        var workers: Int
    }

    /// `jobs` threads take the next check in catalog order until none is left; this thread
    /// hands each result to `progress` as soon as every check before it has finished.
    private func runConcurrently(_ checks: [Check], jobs: Int, runStart: ContinuousClock.Instant, activity: @escaping @Sendable (Check, CheckActivity) -> Void,
                                 progress: (CheckResult) -> Void) throws(DUTUnavailable) -> [CheckResult] {
        let shared = Mutex(Workload(results: Array(repeating: nil, count: checks.count), workers: jobs))
        let changed = DispatchSemaphore(value: 0)
        let runner = ConcurrentRunner(runner: self)
        // One book for the run, as one job has: a DUT's id learned by one check serves the rest
        // (the book locks; which check learns it first may differ from a serial run).
        let identity = DUTIdentityBook(), latency = latency
        for _ in 0..<jobs {
            Thread.detachNewThread {
                while let index = shared.withLock({ w -> Int? in
                    guard w.unavailable == nil, w.next < checks.count else { return nil }
                    defer { w.next += 1 }
                    return w.next
                }) {
                    activity(checks[index], .started)
                    do throws(DUTUnavailable) {
                        let result = try runner.runner.timed(checks[index], index: index, identity: identity, latency: latency, runStart: runStart)
                        shared.withLock { $0.results[index] = result }
                    } catch {
                        shared.withLock { $0.unavailable = $0.unavailable ?? error }
                    }
                    activity(checks[index], .ended)
                    changed.signal()
                }
                shared.withLock { $0.workers -= 1 }
                changed.signal()
            }
        }
        var released = 0
        while true {
            changed.wait()
            let (ready, unavailable, workers) = shared.withLock { w in
                (w.results[released...].prefix { $0 != nil }.map { $0! }, w.unavailable, w.workers)
            }
            for result in ready { progress(result) }
            released += ready.count
            if let unavailable, workers == 0 { throw unavailable }
            if released == checks.count {
                // The workers are past their last check; they only have to notice there is no next.
                return shared.withLock { $0.results.map { $0! } }
            }
        }
    }

    /// One check (the run's first); a DUT that cannot be started is an ERROR here.
    public func run(_ check: Check) -> CheckResult {
        do {
            return try attempt(check, index: 0, identity: DUTIdentityBook(), latency: RelayLatencyBook())
        } catch {
            return CheckResult(id: check.id, purpose: check.purpose, dialect: capabilities.dialect, verdict: .error,
                               reason: "could not start the DUT: \(error)")
        }
    }

    private func attempt(_ check: Check, index: Int, identity: DUTIdentityBook, latency: RelayLatencyBook) throws(DUTUnavailable) -> CheckResult {
        var result = CheckResult(id: check.id, purpose: check.purpose, dialect: capabilities.dialect, verdict: .notApplicable)
        if let missing = check.needs.first(where: { !capabilities.has($0) }) {
            if case .links(let n) = missing {
                // Over the air the tester's adapters and identities bound it too.
                result.reason = "needs \(n) links at once; maxLinks is \(capabilities.maxLinks) (\(capabilities.maxLinksReason ?? "the DUT's declared limit"))"
            } else {
                result.reason = "needs capability \(missing), not declared by the DUT"
            }
            return result
        }
        guard let probe = capabilities.dialect.makeProbe() else {
            result.reason = "no conformance probe for dialect \(capabilities.dialect.rawValue) yet"
            return result
        }
        let session: any DUTSession
        do {
            session = try driver.start(try probe.setup(capabilities: capabilities, seed: Self.seed(seed, check.id),
                                                       identifiers: RunIdentifiers(runBase: runBase, checkIndex: index)))
        } catch let unavailable as DUTUnavailable {
            throw unavailable
        } catch let e as LinkFailure {
            result.verdict = .inconclusive
            result.reason = e.description
            result.inconclusiveCause = .unreachable
            return result
        } catch {
            result.verdict = error is DUTFailure ? .fail : .error
            result.reason = "could not start the DUT: \(error)"
            return result
        }
        let context = CheckContext(capabilities: capabilities, probe: probe, session: session, seed: Self.seed(seed, check.id),
                                   checkID: check.id, upperTester: upperTester, freshDUT: driver.startsFreshDUT, identity: identity,
                                   latency: latency)
        do {
            try check.body(context)
            result.verdict = .pass
        } catch let e as CheckFailed {
            let e = context.reviewed(e)
            result.verdict = .fail
            result.reason = e.reason + (e.finding == .check ? probe.stricterThanApps(check.id).map { " (\($0))" } ?? "" : "")
            result.expected = e.expected
            result.seen = e.seen
            result.finding = e.finding
            result.failedRule = e.rule
        } catch let e as CheckInconclusive {
            result.verdict = .inconclusive
            result.reason = e.reason
            result.inconclusiveCause = e.cause
        } catch let e as CheckNotApplicable {
            result.verdict = .notApplicable
            result.reason = e.reason
        } catch let e as DUTFailure {
            result.verdict = .fail
            result.reason = e.description
        } catch let e as LinkFailure {
            result.verdict = .inconclusive
            result.reason = e.description
            result.inconclusiveCause = .unreachable
        } catch {
            result.verdict = .error
            result.reason = "tester error: \(error)"
        }
        // A verdict states what the DUT did; a DUT that stopped answering mid-check did nothing
        // more, which fails the checks that expect an answer and passes those that expect
        // silence. So a PASS or FAIL stands only if the DUT still answers at the check's end
        // (docs/radio.md, "Verdicts"); a ROB check's FAIL stands regardless (`judgesSurvival`).
        if result.verdict == .pass || (result.verdict == .fail && !check.judgesSurvival), let why = session.unreachableReason() {
            let wouldHave = result.verdict == .pass ? "PASSed" : "FAILed: \(result.reason ?? "")"
                + (result.expected.map { "; expected \($0)" } ?? "") + (result.seen.map { "; seen \($0)" } ?? "")
            context.note("not a verdict on the DUT, which stopped answering: it would have \(wouldHave)")
            result.verdict = .inconclusive
            result.reason = "the DUT became unreachable during the check: \(why)"
            result.inconclusiveCause = .unreachable
            result.expected = nil
            result.seen = nil
        }
        result.evidence = context.evidence
        if let diagnostics = session.close(), !diagnostics.isEmpty {
            result.evidence.append(EvidenceEntry(time: context.elapsed, direction: .note, summary: "DUT stderr: \(diagnostics)"))
        }
        return result
    }

    /// A per-check seed, so a check's random choices do not depend on which checks ran before.
    static func seed(_ seed: UInt64, _ id: String) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325 ^ seed
        for byte in id.utf8 { h = (h ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return h
    }
}

/// A runner shared by the worker threads of `runConcurrently`: every stored property is
/// Sendable but the upper-tester operator, and that one is nil whenever checks run at once.
private struct ConcurrentRunner: @unchecked Sendable {
    let runner: Runner
}

/// What `Runner.run` tells its `activity` observer about a check.
public enum CheckActivity: Sendable {
    case started, ended
}

extension DialectName {
    /// nil for a dialect whose tester side is not written yet: its checks cannot run.
    public func makeProbe() -> (any DialectProbe)? {
        switch self {
        case .relay: RelayProbe()
        case .blemesh: BLEMeshProbe()
        case .bitchat: BitchatProbe()
        case .simple: SimpleProbe()
        case .camp: CampProbe()
        case .peat: PeatProbe()
        }
    }

    /// Dialects the conformance runner can test (a probe exists).
    public static var probed: [DialectName] { allCases.filter { $0.makeProbe() != nil } }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// Shell-style globs over check ids: `*` any run of characters, `?` one character.
enum Glob {
    static func matches(_ pattern: String, _ text: String) -> Bool {
        matches(Array(pattern), 0, Array(text), 0)
    }

    private static func matches(_ p: [Character], _ i: Int, _ t: [Character], _ j: Int) -> Bool {
        if i == p.count { return j == t.count }
        switch p[i] {
        case "*":
            for k in j...t.count where matches(p, i + 1, t, k) { return true }
            return false
        case "?": return j < t.count && matches(p, i + 1, t, j + 1)
        default: return j < t.count && p[i] == t[j] && matches(p, i + 1, t, j + 1)
        }
    }
}
