import MeshWire
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The body of every libFuzzer executable (`Sources/FuzzTargets/fuzz-*/main.swift`, generated):
/// runs one input through a registry target and its in-process oracles, and traps on a broken
/// oracle so libFuzzer files it as a crash. Built with `-DFUZZING` (ci/fuzz) the executable
/// hands control to libFuzzer. Built without it, the same executable is the in-process engine,
/// which is how one binary (and one instrumentation) serves both engines in ci/fuzz-coverage:
///
///     fuzz-X PATH...                       replay files and folders (reproduce a crasher without sanitizers)
///     fuzz-X fuzz-worker TARGET ...        the supervisor's worker (FuzzWorker)
///     fuzz-X campaign TARGET SECONDS DIR [SEED]
///                                          a supervised campaign, one worker of itself, on DIR/TARGET/;
///                                          stops at the first finding, no minimising; prints
///                                          `found KIND after S s, N execs` or `not found in S s, N execs`
///                                          (the campaign's summary on stderr)
///     fuzz-X coverage PATH...              (coverage build) edges hit by replaying PATH:
///                                          `edges E of T, N inputs`
public enum FuzzEntry {
    static let targets: [String: FuzzTarget] = Dictionary(FuzzRegistry.all.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })

    public static func testOneInput(format: String, data: UnsafePointer<UInt8>?, size: Int) -> CInt {
        guard let target = targets[format] else { fatalError("\(format) is not in FuzzRegistry: regenerate with ci/gen-fuzz-targets") }
        return testOneInput(target: target, data: data, size: size)
    }

    public static func testOneInput(target: FuzzTarget, data: UnsafePointer<UInt8>?, size: Int) -> CInt {
        let input = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
        let outcome: Outcome
        do { outcome = .decoded(try target.decode(input)) } catch { outcome = .refused(error) }
        if let failure = Oracles.judge(target, input: input, outcome: outcome) {
            fatalError("\(target.id): \(failure.kind.rawValue): \(failure.detail)")
        }
        return 0
    }

    public typealias Callback = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

    /// The executable's main: libFuzzer's driver under FUZZING, otherwise the in-process
    /// engine's modes over `targets` (see above).
    public static func main(_ callback: Callback, targets: [FuzzTarget] = FuzzRegistry.all) -> Never {
        #if FUZZING
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, callback))
        #else
        let arguments = CommandLine.arguments
        switch arguments.dropFirst().first {
        case "fuzz-worker": FuzzWorker.main(arguments: Array(arguments.dropFirst(2)), targets: targets)
        case "campaign": campaign(arguments)
        case "coverage":
            guard EdgeCoverage.isAvailable else {
                usage("coverage: this build has no coverage counters (build it as ci/fuzz-coverage does)")
            }
            let count = replay(arguments.dropFirst(2), callback, eachInput: EdgeCoverage.reset, afterEach: { _ = EdgeCoverage.collectNew() })
            print("edges \(EdgeCoverage.coveredEdges) of \(EdgeCoverage.edges), \(count) inputs")
        default:
            let count = replay(arguments.dropFirst(), callback)
            print("replayed \(count) input(s) without a failure (built without -DFUZZING: no libFuzzer; see docs/fuzzing.md)")
        }
        exit(0)
        #endif
    }

    /// Runs every file named, and every input of every folder named (a corpus), through `callback`.
    static func replay(_ paths: ArraySlice<String>, _ callback: Callback,
                       eachInput: () -> Void = {}, afterEach: () -> Void = {}) -> Int {
        var replayed = 0
        for path in paths {
            let files = CorpusStore.readFile(path).map { [$0] } ?? ((try? CorpusStore(directory: path))?.loadAll().map(\.bytes) ?? [])
            for bytes in files {
                eachInput()
                _ = bytes.withUnsafeBufferPointer { callback($0.baseAddress, $0.count) }
                afterEach()
                replayed += 1
            }
        }
        return replayed
    }

    /// `campaign TARGET SECONDS DIR`: the supervisor with one worker of this executable, 1 s
    /// per-input limit and 2 GiB address space (what ci/fuzz-bench gives libFuzzer: -timeout=1
    /// -malloc_limit_mb=2048), stopping at the first finding: the in-process side of the
    /// time-to-find and coverage tables (docs/performance.md).
    static func campaign(_ arguments: [String]) -> Never {
        guard arguments.count == 5 || arguments.count == 6, let seconds = Double(arguments[3]), seconds > 0 else {
            usage("campaign needs TARGET SECONDS DIR [SEED]")
        }
        var configuration = Supervisor.Configuration(workerCommand: "\(shellQuote(arguments[0])) fuzz-worker", targets: [arguments[2]],
                                                     corpusRoot: arguments[4])
        configuration.maxTime = .milliseconds(Int64(seconds * 1000))
        configuration.stopOnFinding = true
        configuration.minimiseBudget = 0
        // Repeated runs need their own seeds: one seed replays the same campaign.
        if arguments.count == 6 { configuration.seed = UInt64(arguments[5]) ?? configuration.seed }
        let summary: CampaignSummary
        do { summary = try Supervisor(configuration).run() } catch { usage("\(error)") }
        let text = Array((summary.text + "\n").utf8)
        _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        if let finding = summary.findings.first, let found = finding.secondsToFind {
            print("found \(finding.kind.rawValue) after \(found) s, \(finding.executionsToFind ?? 0) execs")
        } else {
            print("not found in \(seconds) s, \(summary.executions) execs")
        }
        exit(summary.exitStatus)
    }

    static func usage(_ message: String) -> Never {
        let text = Array("\(CommandLine.arguments[0]): \(message)\n".utf8)
        _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        exit(2)
    }
}

#if FUZZING
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                         _ callback: FuzzEntry.Callback) -> CInt
#endif
