import ArgumentParser
import Foundation
import MeshFuzz
import MeshVectors
import MeshWire

/// `meshconform fuzz <format|all>`: an in-process campaign against the built-in decoders, in
/// supervised worker processes (docs/fuzzing.md); with `--dialect D`, over-the-air fuzzing of a DUT
/// through any driver (FuzzOverTheAir.swift).
struct FuzzCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fuzz",
        abstract: "Fuzz the built-in decoders in supervised worker processes, or a DUT over the air (--dialect).",
        discussion: """
            Inputs that show new behaviour are kept in --corpus/<format>/ (seeded from the vectors); \
            a crash, hang, allocation, round-trip or differential failure is saved in --corpus/crashes/<format>/, \
            minimised into --corpus/regressions/<format>/ and reported. A rerun resumes from the corpus. \
            With --dialect D instead of a format: mutated units of D are written to a DUT (the built-in node, \
            --mutant, --dut-exec or --adapter) in batches of --batch, each batch followed by a liveness probe; \
            inputs after which it stops answering are minimised on fresh DUTs and saved under --findings. \
            Exit status: 0 nothing found, 1 something found, 2 bad use (or, over the air, a DUT that could \
            not be fuzzed). See docs/fuzzing.md.
            """)

    @Argument(help: "A format id (see --list), or all.")
    var format: String?

    @Flag(help: "Print the fuzz target ids, one a line, and exit.")
    var list = false

    @Option(help: "Corpus root folder.")
    var corpus = "Corpus"

    @Option(help: "Golden vectors folder, to seed the corpus from (skipped when absent).")
    var vectors = "Vectors"

    @Option(name: .customLong("max-time"), help: "Wall-clock seconds for the whole campaign (split over the formats).")
    var maxTime: Double = 60

    @Option(help: "Executions per format (over all jobs; over the air: inputs written); default: until --max-time.")
    var runs: Int?

    @Option(help: "Worker processes per format.")
    var jobs = 1

    @Option(help: "Seed of the mutations.")
    var seed: UInt64 = 1

    @Option(help: "Per-input time limit, seconds: longer is a hang.")
    var timeout: Double = 1

    @Option(name: .customLong("memory-mb"), help: "Address space a worker may grow by, MiB: more is an allocation failure.")
    var memoryMB = 2048

    @Flag(name: .customLong("stop-on-finding"), help: "End each format's run (over the air: the campaign) at its first finding.")
    var stopOnFinding = false

    @Option(help: "Write the JSON summary to this file (for CI).")
    var json: String?

    @Option(help: "Over the air: fuzz a DUT speaking this dialect (instead of a format's decoder).")
    var dialect: String?

    @Option(name: .customLong("dut-exec"), help: "Over the air: command that runs a DUT speaking the stdio protocol (docs/stdio-dut.md).")
    var dutExec: String?

    @Option(help: "Over the air: HCI adapter of a tester identity (give two: hci0, tcp:HOST:PORT, unix:PATH).")
    var adapter: [String] = []

    @Option(help: "Over the air: BLE address of the DUT, with --adapter.")
    var target: String?

    @Option(help: "Over the air: fuzz a named mutant of the built-in node (see `meshconform list --mutants`).")
    var mutant: String?

    @Option(help: "Over the air: JSON file declaring what the DUT supports (docs/checks.md).")
    var capabilities: String?

    @Option(help: "Over the air: write a btsnoop capture per adapter into this directory (with --adapter).")
    var btsnoop: String?

    @Option(help: "Over the air: inputs in the first batch of a session, each batch followed by a liveness probe; each batch the DUT survives doubles the next.")
    var batch = 16

    @Option(name: .customLong("max-batch"), help: "Over the air: the largest batch (give the --batch value to keep batches fixed).")
    var maxBatch = 1024

    @Option(name: .customLong("session-inputs"), help: "Over the air: inputs per DUT session; then a fresh one (a new process, a reconnection).")
    var sessionInputs = 4096

    @Flag(name: .customLong("write-requests"), help: "Over GATT: write every input the way the binding's apps do (write requests for relay, camp, peat) instead of as a Write Command where the DUT's characteristic allows one.")
    var writeRequests = false

    @Option(name: .customLong("minimise-time"), help: "Over the air: wall seconds for reproducing, bisecting and minimising one death.")
    var minimiseTime = 60.0

    @Option(help: "Over the air: folder for findings (a folder per finding: input-NNN.bin files and finding.json).")
    var findings = "ota-findings"

    @Flag(help: "Over the air: mutate the dialect's units only, not inner messages with their layers rebuilt (for comparisons).")
    var unitsOnly = false

    @Flag(name: .customLong("no-link-churn"), help: "Over the air: no link churn between inputs (by default one batch in two has a tester's link dropped and restored, or the inputs' link changed, between two of its inputs).")
    var noLinkChurn = false

    func run() throws {
        if dialect != nil || dutExec != nil || !adapter.isEmpty || target != nil || mutant != nil || capabilities != nil || btsnoop != nil {
            return try fuzzOverTheAir()
        }
        if list { print(FuzzRegistry.ids.joined(separator: "\n")); return }
        guard let format else { throw UsageError("name a format or all (known: \(FuzzRegistry.ids.joined(separator: ", ")))") }
        let targets: [String]
        if format == "all" { targets = FuzzRegistry.ids } else {
            guard FuzzRegistry.target(format) != nil else {
                throw UsageError("unknown format '\(format)'; known: \(FuzzRegistry.ids.joined(separator: ", ")), all")
            }
            targets = [format]
        }
        guard jobs >= 1, maxTime > 0, timeout > 0 else { throw UsageError("--jobs, --max-time and --timeout must be positive") }
        try seedCorpus(targets)

        var configuration = Supervisor.Configuration(workerCommand: "\(selfPath()) fuzz-worker", targets: targets, corpusRoot: corpus)
        configuration.jobs = jobs
        configuration.maxTime = .milliseconds(Int64(maxTime * 1000))
        configuration.runs = runs
        configuration.seed = seed
        configuration.inputTimeout = .milliseconds(Int64(timeout * 1000))
        configuration.memoryMB = memoryMB
        configuration.stopOnFinding = stopOnFinding
        let supervisor = Supervisor(configuration)
        let status = StatusLine()
        supervisor.onStatus = { s in
            status.update("[\(Int(s.elapsed.components.seconds))s] \(s.target): execs \(s.executions) (\(Int(s.executionsPerSecond))/s), corpus \(s.corpus), new \(s.newInputs), found \(s.findings)")
        }
        supervisor.onFinding = { f in status.note("found \(f.kind.rawValue) in \(f.target): \(f.signature)") }
        let summary: CampaignSummary
        do { summary = try supervisor.run() } catch { throw UsageError("\(error)") }
        status.end()
        print(summary.text)
        if let json { try writeJSON(summary, to: json) }
        if summary.exitStatus != 0 { throw ExitCode(summary.exitStatus) }
    }

    /// Every vector's bytes join the corpus (named by hash, so seeding twice adds nothing).
    private func seedCorpus(_ targets: [String]) throws {
        for id in targets {
            let store: CorpusStore
            do { store = try CorpusStore(directory: "\(corpus)/\(id)") } catch { throw UsageError("\(error)") }
            guard let file = try? VectorFile(contentsOf: "\(vectors)/\(id).json") else { continue }
            for test in file.tests { _ = try? store.add(test.bytes) }
        }
    }
}

/// This executable's own path, for starting workers: `/proc/self/exe` on Linux.
func selfPath() -> String {
    if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return "'\(path)'" }
    return "'\(CommandLine.arguments[0])'"
}

/// A campaign's progress on stderr: a live line on a terminal; in a log, one line every ten seconds.
final class StatusLine {
    private let live = isatty(2) != 0
    private var last = ContinuousClock.now

    func update(_ line: String) {
        if live {
            FileHandle.standardError.write(Data(("\r\u{1B}[K" + line).utf8))
        } else if ContinuousClock.now - last >= .seconds(10) {
            last = .now
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
    }

    /// A line of its own (a finding), below the live line.
    func note(_ text: String) { FileHandle.standardError.write(Data(((live ? "\n" : "") + text + "\n").utf8)) }

    func end() { if live { FileHandle.standardError.write(Data("\n".utf8)) } }
}

/// A campaign summary as JSON for CI (`--json FILE`), written atomically.
func writeJSON(_ value: some Encodable, to path: String) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    do { try encoder.encode(value).write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
        throw UsageError("cannot write \(path): \(error.localizedDescription)")
    }
}
