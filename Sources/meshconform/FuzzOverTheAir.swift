import ArgumentParser
import Conformance
import Foundation
import MeshFuzz
import MeshNode
import MeshVectors
import MeshWire

/// `meshconform fuzz --dialect D [--dut-exec CMD | --adapter A --adapter B --target T | --mutant M]`:
/// over-the-air fuzzing of a DUT (docs/fuzzing.md, "Over the air"). The DUT options mean what
/// they mean for `run`, and are turned into a driver by the same code.
extension FuzzCommand {
    func fuzzOverTheAir() throws {
        guard let dialect else {
            throw UsageError("--dut-exec, --adapter, --target, --mutant, --capabilities and --btsnoop fuzz a DUT over the air: name its dialect with --dialect D")
        }
        if let format {
            throw UsageError("give a format ('\(format)': its decoder, in process) or --dialect \(dialect) (a DUT, over the air), not both")
        }
        if list { throw UsageError("--list shows the in-process targets; drop --dialect, or drop --list") }
        guard jobs == 1 else { throw UsageError("--jobs is for in-process campaigns; over the air one tester writes to one DUT (drop --jobs)") }
        guard batch >= 1, maxTime > 0, minimiseTime > 0, sessionInputs >= 1, runs.map({ $0 >= 1 }) ?? true else {
            throw UsageError("--batch, --max-time, --minimise-time, --session-inputs and --runs must be positive")
        }
        guard maxBatch >= batch else { throw UsageError("--max-batch (\(maxBatch)) must be at least --batch (\(batch))") }

        let name = try parseDialect(dialect)
        guard DialectName.probed.contains(name) else {
            throw UsageError("dialect \(dialect) has no conformance probe yet, so no liveness probe to fuzz a DUT over the air with; dialects with one: \(DialectName.probed.map(\.rawValue).joined(separator: ", ")) (its decoders: `meshconform fuzz \(dialect).<format>`)")
        }
        var arguments = ["--dialect", dialect, "--seed", String(seed)] + adapter.flatMap { ["--adapter", $0] }
        for (flag, value) in [("--target", target), ("--dut-exec", dutExec), ("--mutant", mutant), ("--capabilities", capabilities), ("--btsnoop", btsnoop)] {
            if let value { arguments += [flag, value] }
        }
        let plan: RunCommand.Plan
        do { plan = try RunCommand.parse(arguments).makePlan() } catch let error as UsageError { throw error } catch {
            throw UsageError(RunCommand.message(for: error))
        }
        defer { plan.radio?.close() }
        // A DUT the tester can no longer link to is a finding here, not a reason to stop.
        plan.radio?.options.unreachableAfter = 0
        // Inputs as Write Commands where the DUT's characteristic allows them: no round trip each.
        plan.radio?.options.writeCommandsWhereAllowed = !writeRequests
        guard let caps = plan.capabilities.first else { throw UsageError("no dialect to fuzz") }

        var configuration = OTAFuzzConfiguration()
        configuration.batchSize = batch
        configuration.maxBatchSize = maxBatch
        configuration.inputsPerSession = sessionInputs
        configuration.minimiseTime = .milliseconds(Int64(minimiseTime * 1000))
        configuration.maxTime = .milliseconds(Int64(maxTime * 1000))
        configuration.maxInputs = runs
        configuration.seed = seed
        configuration.findingsRoot = findings
        configuration.stopOnFinding = stopOnFinding
        configuration.extraSeeds = vectorSeeds(OTAFuzzCampaign.unitFormat(of: caps.dialect))
        for codec in FormatCatalog.all where codec.dialect == caps.dialect.rawValue {
            configuration.vectors[codec.id] = vectorSeeds(codec.id)
        }
        configuration.layered = !unitsOnly
        if noLinkChurn { configuration.linkChurn = .none }
        let campaign: OTAFuzzCampaign
        do { campaign = try OTAFuzzCampaign(driver: plan.driver, capabilities: caps, configuration: configuration) } catch {
            throw UsageError(error.description)
        }
        print("\(caps.dialect.rawValue): fuzzing \(plan.driver.name) over the air, batches of \(batch)\(maxBatch > batch ? " growing to \(maxBatch)" : ""), findings under \(findings)/\(caps.dialect.rawValue)/")
        let status = StatusLine()
        campaign.onStatus = { s in
            status.update("[\(Int(s.elapsed.components.seconds))s] \(caps.dialect.rawValue): inputs \(s.inputs) (\(Int(s.inputsPerSecond))/s), batches \(s.batches), DUT starts \(s.dutStarts), found \(s.findings)")
        }
        campaign.onFinding = { f in status.note("found a \(f.kind) DUT: \(f.signature)") }
        let summary = campaign.run()
        status.end()
        print(summary.text)
        if let json { try writeJSON(summary, to: json) }
        if summary.findings.isEmpty, let failure = plan.radio?.adapterFailure {
            throw UsageError("a tester adapter failed: \(failure) (is the controller still running?)")
        }
        switch summary.exitStatus {
        case 0: return
        case 1: throw ExitCode(1)
        default: throw UsageError("the DUT could not be fuzzed: \(summary.inconclusive ?? "?")")
        }
    }

    /// The seeds a format's golden vectors give (`VectorFile.seeds`), when the vectors folder has them.
    private func vectorSeeds(_ format: FormatID?) -> [[UInt8]] {
        guard let format, let file = try? VectorFile(contentsOf: "\(vectors)/\(format).json") else { return [] }
        return file.seeds
    }
}
