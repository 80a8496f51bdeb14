@testable import Conformance
import Foundation
import MeshNode
import MeshVectors
import MeshWire
import Testing

/// Over-the-air fuzzing (docs/fuzzing.md, "Over the air"): a DUT that dies on some input is
/// found and the input minimised, whatever the driver; a sound DUT yields nothing.
@Suite("over-the-air fuzzing", .serialized)
struct OTAFuzzTests {
    /// Dialects with a probe whose reference node carries the crash-on-truncated mutant.
    static let truncatable = DialectName.probed.filter { Fault.crashOnTruncated.dialects.contains($0) }

    static func folder(_ name: String) -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ota-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        try? FileManager.default.removeItem(atPath: path)
        return path
    }

    static func configuration(_ findings: String, inputs: Int, seed: UInt64 = 1) -> OTAFuzzConfiguration {
        var c = OTAFuzzConfiguration()
        c.findingsRoot = findings
        c.maxInputs = inputs
        c.maxTime = .seconds(300)
        c.seed = seed
        return c
    }

    @Test(arguments: truncatable)
    func crashOnTruncatedIsFoundAndMinimisedToOneTruncatedUnit(_ dialect: DialectName) throws {
        let findings = Self.folder("truncated")
        defer { try? FileManager.default.removeItem(atPath: findings) }
        var config = Self.configuration(findings, inputs: 2000)
        config.stopOnFinding = true
        let campaign = try OTAFuzzCampaign(driver: VirtualDriver(faults: [.crashOnTruncated]), capabilities: .referenceNode(dialect),
                                           configuration: config)
        let summary = campaign.run()
        #expect(summary.exitStatus == 1, "\(summary.text)")
        let finding = try #require(summary.findings.first, "\(summary.text)")
        #expect(finding.kind == "silent" && finding.reproduction == .batch && finding.minimised, "\(finding)")
        // 1. Minimised to one input, which the tester reads as a truncated unit.
        #expect(finding.sequence.count == 1 && finding.originalInputs > 1, "\(finding.sequence)")
        let input = try #require(finding.sequence.first.flatMap(Hex.decode))
        let reader = try #require(dialect.makeProbe())
        guard case .malformed(let error)? = reader.hear(input, on: LinkID(1)) else {
            Issue.record("\(finding.sequence) is read as a valid unit"); return
        }
        #expect(error.code == .truncated, "\(error)")
        #expect(finding.decoderVerdicts == ["truncated"])
        // 2. Saved: the folder holds that input and the description; nothing unminimised is left.
        #expect(FindingStore.steps(in: finding.path) == [.input(input)])
        let saved = try JSONDecoder().decode(OTAFinding.self, from: Data(contentsOf: URL(fileURLWithPath: finding.path + "/finding.json")))
        #expect(saved == finding)
        let left = try FileManager.default.contentsOfDirectory(atPath: "\(findings)/\(dialect.rawValue)")
        #expect(left == [URL(fileURLWithPath: finding.path).lastPathComponent], "\(left)")
        // 3. The saved input kills a fresh mutant and leaves the reference node alive.
        var mutant = DeathReplay(driver: VirtualDriver(faults: [.crashOnTruncated]), capabilities: .referenceNode(dialect), seed: 1)
        #expect(try mutant.kills([input]))
        var reference = DeathReplay(driver: VirtualDriver(), capabilities: .referenceNode(dialect), seed: 1)
        #expect(try !reference.kills([input]))
        // 4. A replay reproduces only the kind of death it was given: the mutant goes silent,
        // which is not a DUT that exited (a slow answer on a loaded host must not stand in for a crash).
        var exited = DeathReplay(driver: VirtualDriver(faults: [.crashOnTruncated]), capabilities: .referenceNode(dialect), seed: 1,
                                 reproducing: .failed("the DUT exited (exit status 3)"))
        #expect(try !exited.kills([input]))
        var silent = DeathReplay(driver: VirtualDriver(faults: [.crashOnTruncated]), capabilities: .referenceNode(dialect), seed: 1,
                                 reproducing: .silent("no relay"))
        #expect(try silent.kills([input]))
    }

    @Test(arguments: truncatable)
    func theReferenceNodeYieldsNothingForTheSameBudget(_ dialect: DialectName) throws {
        let findings = Self.folder("reference")
        defer { try? FileManager.default.removeItem(atPath: findings) }
        var config = Self.configuration(findings, inputs: 2000)
        config.inputsPerSession = 512
        let summary = try OTAFuzzCampaign(driver: VirtualDriver(), capabilities: .referenceNode(dialect), configuration: config).run()
        #expect(summary.exitStatus == 0 && summary.findings.isEmpty && summary.inconclusive == nil, "\(summary.text)")
        // Link churn (one batch in two) is no death for a sound node.
        #expect(summary.churnedBatches > 0, "\(summary.text)")
        // Batches double while the DUT survives (16 ... 256, then what the session has left:
        // 16), sessions are renewed every 512 inputs, and the size carries over to a fresh
        // session (only a death resets it): 6 batches, then one of 512, 512 and 464.
        if dialect == .blemesh || dialect == .bitchat {
            // A mutant's units (a chunk set, fragments) stay in one batch: a batch may run over
            // its size by the rest of its last mutant, and a session over its 512.
            #expect(summary.inputs >= 2000 && summary.inputs < 2000 + 128 && summary.batches <= 12 && summary.dutStarts <= 5, "\(summary.text)")
        } else {
            #expect(summary.inputs == 2000 && summary.batches == 9 && summary.dutStarts == 4, "\(summary.text)")
        }
    }

    /// Every later death of the same bug is a duplicate of the first finding, not a new one.
    @Test func repeatedDeathsOfOneBugAreOneFinding() throws {
        let findings = Self.folder("duplicates")
        defer { try? FileManager.default.removeItem(atPath: findings) }
        let summary = try OTAFuzzCampaign(driver: VirtualDriver(faults: [.crashOnTruncated]), capabilities: .referenceNode(.relay),
                                          configuration: Self.configuration(findings, inputs: 320)).run()
        let truncated = summary.findings.filter { $0.decoderVerdicts == ["truncated"] }
        #expect(truncated.count == 1 && truncated[0].duplicates >= 1, "\(summary.text)")
        #expect(summary.dutStarts > 2)
    }

    /// A DUT that never relays or acks cannot be fuzzed: INCONC with the reason, at once.
    @Test func aDUTThatNeverAnswersIsInconclusive() throws {
        let driver = ProcessDriver(command: "read l; printf '{\"type\":\"ready\",\"version\":1}\\n'; cat >/dev/null",
                                   startTimeout: .seconds(5), stopGrace: .milliseconds(200))
        let findings = Self.folder("mute")
        defer { try? FileManager.default.removeItem(atPath: findings) }
        let started = ContinuousClock.now
        let summary = try OTAFuzzCampaign(driver: driver, capabilities: .process(.relay), configuration: Self.configuration(findings, inputs: 100)).run()
        #expect(summary.exitStatus == 2 && summary.inputs == 0, "\(summary.text)")
        #expect(summary.inconclusive?.contains("before any fuzz input") == true, "\(summary.inconclusive ?? "")")
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    /// A driver that only reconnects (a device on the air): the death is saved as it was, and
    /// a DUT still dead after reconnecting ends the campaign INCONC, not in a hang.
    @Test func aDeviceThatStaysDeadIsSavedUnminimisedThenInconclusive() throws {
        let findings = Self.folder("reconnect")
        defer { try? FileManager.default.removeItem(atPath: findings) }
        let summary = try OTAFuzzCampaign(driver: ReconnectingDriver(faults: [.crashOnTruncated]), capabilities: .referenceNode(.relay),
                                          configuration: Self.configuration(findings, inputs: 2000)).run()
        #expect(summary.exitStatus == 1, "\(summary.text)")
        let finding = try #require(summary.findings.first)
        #expect(finding.reproduction == .notTried && !finding.minimised && finding.sequence.count == finding.originalInputs && finding.trials == 1)
        #expect(FindingStore.steps(in: finding.path).map(\.text) == finding.sequence)
        #expect(summary.inconclusive?.contains("after reconnecting") == true, "\(summary.inconclusive ?? "")")
    }

    /// A device that comes back fresh after a reconnection is replayed against like a fresh
    /// DUT (each trial first shows it alive), so the death is minimised over the air too.
    @Test func aDeviceThatComesBackFreshIsMinimised() throws {
        let findings = Self.folder("fresh-when-idle")
        defer { try? FileManager.default.removeItem(atPath: findings) }
        var config = Self.configuration(findings, inputs: 2000)
        config.stopOnFinding = true
        let summary = try OTAFuzzCampaign(driver: ReconnectingDriver(faults: [.crashOnTruncated], freshWhenIdle: true),
                                          capabilities: .referenceNode(.relay), configuration: config).run()
        let finding = try #require(summary.findings.first, "\(summary.text)")
        #expect(summary.inconclusive == nil && finding.minimised && finding.decoderVerdicts == ["truncated"], "\(summary.text)")
    }
}

/// Like a device on the air: every `start` reconnects to the same node, whose state (a crash
/// included) carries over, unless it starts afresh when idle (`meshconform node --fresh-when-idle`).
/// Either way the driver does not promise a fresh DUT.
final class ReconnectingDriver: DUTDriver, @unchecked Sendable {
    let faults: Set<Fault>
    let freshWhenIdle: Bool
    private var node: VirtualSession?

    init(faults: Set<Fault>, freshWhenIdle: Bool = false) {
        self.faults = faults
        self.freshWhenIdle = freshWhenIdle
    }

    var name: String { "one persistent mutant" }

    func start(_ setup: DUTSetup) throws -> any DUTSession {
        if let node, !freshWhenIdle { return node }
        let session = try VirtualDriver(faults: faults).start(setup) as! VirtualSession
        node = session
        return session
    }
}

/// A process DUT with one planted bug (Tests/Support/fragile-dut.py: it exits on a unit that
/// holds the text 1e999): the fuzzer finds that input among the others and minimises to it.
@Suite("over-the-air fuzzing: a process DUT that dies on one input", .serialized)
struct OTAFuzzProcessTests {
    static let fragile = "'\(DUTPrograms.python)' '\(DUTPrograms.root.appendingPathComponent("Tests/Support/fragile-dut.py").path)'"

    /// A campaign against the fragile DUT (`flags` for its variant) to its first finding.
    static func campaign(_ flags: String, sequenceBudget: Int = 64, byteBudget: Int) throws -> OTAFuzzSummary {
        let findings = OTAFuzzTests.folder("fragile")
        defer { try? FileManager.default.removeItem(atPath: findings) }
        var config = OTAFuzzTests.configuration(findings, inputs: 3000)
        config.stopOnFinding = true
        config.sequenceBudget = sequenceBudget
        config.byteBudget = byteBudget
        // The flooding DUT answers at once: little slack is needed on the wall clock.
        var caps = Capabilities.process(.relay)
        caps.timingSlackMs = 40
        let driver = ProcessDriver(command: "\(fragile) \(flags)", stopGrace: .milliseconds(100))
        let summary = try OTAFuzzCampaign(driver: driver, capabilities: caps, configuration: config).run()
        // Saved where the summary says, before the folder goes.
        for finding in summary.findings {
            #expect(FindingStore.steps(in: finding.path).map(\.text) == finding.sequence)
        }
        return summary
    }

    @Test func theKillingInputIsFoundAndMinimised() throws {
        let summary = try Self.campaign("", byteBudget: 40)
        #expect(summary.exitStatus == 1, "\(summary.text)")
        let finding = try #require(summary.findings.first, "\(summary.text)")
        // 1. The DUT exited, and the reason carries its exit status and stderr.
        #expect(finding.kind == "failed" && finding.reason.contains("exited") && finding.reason.contains("float overflow"), "\(finding.reason)")
        // 2. One input of the batch, and it holds the planted text.
        #expect(finding.reproduction == .batch && finding.originalInputs > 1 && finding.sequence.count == 1, "\(finding)")
        let input = try #require(finding.sequence.first.flatMap(Hex.decode))
        #expect(String(decoding: input, as: UTF8.self).contains("1e999"), "\(finding.sequence)")
    }

    /// The same bug as a hang: the DUT stops reading and never exits. Every wait is bounded,
    /// so the hang is a `silent` finding, minimised like the crash, and the tool ends.
    @Test func aHangingDUTIsAFindingNotAHungTool() throws {
        let started = ContinuousClock.now
        let summary = try Self.campaign("--hang", sequenceBudget: 24, byteBudget: 0)
        let finding = try #require(summary.findings.first, "\(summary.text)")
        #expect(finding.kind == "silent" && finding.sequence.count == 1, "\(finding)")
        #expect(finding.sequence.first.flatMap(Hex.decode).map { String(decoding: $0, as: UTF8.self).contains("1e999") } == true)
        #expect(ContinuousClock.now - started < .seconds(120))
    }
}

/// The example DUTs' planted bugs (examples/*-dut.py --bug NAME) on the tester's clock: a death
/// is pinned to the input it surfaced on, bisected to the shortest killing suffix of the
/// session, then minimised. ci/planted-dut-bugs times every planted bug; these two are quick.
@Suite("over-the-air fuzzing: planted bugs of the example DUTs", .serialized)
struct OTAFuzzPlantedBugTests {
    static func campaign(_ dialect: DialectName, _ dut: String, bug: String, capabilities: String, stepTimeout: Duration = .seconds(5),
                         byteBudget: Int = 96, vectors: Bool = false) throws -> OTAFuzzSummary {
        let findings = OTAFuzzTests.folder("planted")
        defer { try? FileManager.default.removeItem(atPath: findings) }
        var config = OTAFuzzTests.configuration(findings, inputs: 20_000)
        if vectors {
            // As `meshconform fuzz` seeds a campaign: the dialect's golden vectors a decoder takes.
            func seeds(_ format: FormatID) -> [[UInt8]] {
                let path = DUTPrograms.root.appendingPathComponent("Vectors/\(format).json").path
                return (try? VectorFile(contentsOf: path))?.seeds ?? []
            }
            config.extraSeeds = OTAFuzzCampaign.unitFormat(of: dialect).map(seeds) ?? []
            for codec in FormatCatalog.all where codec.dialect == dialect.rawValue { config.vectors[codec.id] = seeds(codec.id) }
        }
        config.stopOnFinding = true
        config.byteBudget = byteBudget
        config.minimiseTime = .seconds(60)
        let caps = try Capabilities.load(DUTPrograms.root.appendingPathComponent("examples/\(capabilities)").path)
        #expect(caps.clock == .tester && caps.dialect == dialect)
        let command = "'\(DUTPrograms.python)' '\(DUTPrograms.root.appendingPathComponent("examples/\(dut)").path)' --bug \(bug)"
        let driver = ProcessDriver(command: command, clock: caps.clock, stopGrace: .milliseconds(200), stepTimeout: stepTimeout)
        return try OTAFuzzCampaign(driver: driver, capabilities: caps, configuration: config).run()
    }

    /// A hang on one input (bitchat-dut.py --bug pad-hang: bytes after the frame that end in
    /// 0x00): the DUT never answers that input's line, the death is pinned to it, and it alone
    /// hangs a fresh DUT, so the finding is that one input out of a batch of hundreds.
    @Test func aPlantedHangIsFoundAndPinnedToOneInput() throws {
        let started = ContinuousClock.now
        let summary = try Self.campaign(.bitchat, "bitchat-dut.py", bug: "pad-hang", capabilities: "bitchat-dut.capabilities.json",
                                        stepTimeout: .seconds(2), byteBudget: 8)
        let finding = try #require(summary.findings.first, "\(summary.text)")
        #expect(finding.kind == "failed" && finding.reason.contains("did not answer"), "\(finding.reason)")
        #expect(finding.reproduction == .batch && finding.originalInputs > 16 && finding.sequence.count == 1, "\(summary.text)")
        let input = try #require(Hex.decode(finding.sequence[0]))
        #expect(finding.decoderVerdicts == ["trailingBytes"] && Self.padStripReachesZero(input), "\(finding.sequence)")
        #expect(finding.secondsToFind != nil && finding.inputsToFind ?? 0 > 16)
        #expect(ContinuousClock.now - started < .seconds(90))
    }

    /// Whether bitchat-dut.py's planted pad loop spins on `packet`: the bytes after the frame,
    /// cut by their last byte's value at a time as Python slices them, come to a 0x00 (the
    /// input need not end in one).
    static func padStripReachesZero(_ packet: [UInt8]) -> Bool {
        guard packet.count >= 14 else { return false }
        let v2 = packet[0] == 2, flags = packet[11]
        let width = v2 ? 4 : 2
        var length = 0
        for k in 0..<width { length = length << 8 | Int(packet[12 + k]) }
        var end = 12 + width + 8 + (flags & 0x01 != 0 ? 8 : 0)
        if v2, flags & 0x08 != 0, end < packet.count { end += 1 + 8 * Int(packet[end]) }
        end += length + (flags & 0x02 != 0 ? 64 : 0)
        guard end <= packet.count else { return false }
        var rest = packet[end...]
        while let pad = rest.last {
            if pad == 0 { return true }
            // Python's rest[:len(rest) - pad]: a negative end counts from the end.
            let end = rest.count - Int(pad)
            rest = rest.prefix(end >= 0 ? end : max(0, rest.count + end))
        }
        return false
    }

    /// A crash on a sequence of two (relay-dut.py --bug dup-ttl: a frame seen before arriving
    /// again with another TTL): neither input kills alone, bisection finds the suffix that
    /// starts at the first of them, and minimising leaves exactly the two.
    @Test(.enabled(if: DUTPrograms.hasCryptography, "needs Python with the `cryptography` package (ci/test installs it in .venv)"))
    func aPlantedCrashOnTwoInputsIsBisectedToThem() throws {
        let summary = try Self.campaign(.relay, "relay-dut.py", bug: "dup-ttl", capabilities: "relay-dut.tester-clock.json", byteBudget: 0)
        let finding = try #require(summary.findings.first, "\(summary.text)")
        #expect(finding.kind == "failed" && finding.reason.contains("came back with ttl"), "\(finding.reason)")
        #expect(finding.sequence.count == 2 && finding.originalInputs > 2 && finding.decoderVerdicts == ["valid", "valid"], "\(summary.text)")
        let frames = finding.sequence.compactMap(Hex.decode)
        #expect(frames.count == 2 && frames[0] != frames[1], "the two frames differ (in their TTL)")
    }

    /// A crash that needs link churn (bitchat-dut.py --bug relink-assembly: an assembly whose
    /// first fragment came on a link that went down and up again): found, minimised to the
    /// fragments with tester 1's relink between them, saved as steps, and that sequence kills a
    /// fresh DUT while the same fragments without the relink do not.
    @Test func aPlantedCrashThatNeedsLinkChurnIsFoundAndReplayedWithIt() throws {
        let summary = try Self.campaign(.bitchat, "bitchat-dut.py", bug: "relink-assembly", capabilities: "bitchat-dut.capabilities.json",
                                        byteBudget: 0, vectors: true)
        let finding = try #require(summary.findings.first, "\(summary.text)")
        #expect(finding.reason.contains("AttributeError"), "\(finding.reason)")
        let steps = finding.sequence.compactMap(OTAStep.init(text:))
        #expect(steps.count == finding.sequence.count && steps.first?.bytes != nil && steps.last?.bytes != nil)
        #expect(steps.contains(.relink(tester: 1)), "\(finding.sequence)")
        let caps = try Capabilities.load(DUTPrograms.root.appendingPathComponent("examples/bitchat-dut.capabilities.json").path)
        let command = "'\(DUTPrograms.python)' '\(DUTPrograms.root.appendingPathComponent("examples/bitchat-dut.py").path)' --bug relink-assembly"
        var replay = DeathReplay(driver: ProcessDriver(command: command, clock: caps.clock, stopGrace: .milliseconds(200)), capabilities: caps, seed: 1)
        #expect(try replay.kills(steps))
        #expect(try !replay.kills(steps.filter { $0.bytes != nil }), "the fragments kill without the relink")
    }
}
