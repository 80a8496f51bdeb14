import ChildProcess
@testable import Conformance
import Foundation
import MeshNode
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Programs the process driver is tried with: the example Python DUT, and hostile ones.
enum DUTPrograms {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The CI venv's Python (it has `cryptography`), else the system's.
    static let python: String = {
        let venv = root.appendingPathComponent(".venv/bin/python").path
        return FileManager.default.isExecutableFile(atPath: venv) ? venv : "python3"
    }()

    static let hasCryptography: Bool = {
        guard let child = try? ChildProcess(command: "'\(python)' -c 'import cryptography' 2>/dev/null") else { return false }
        guard child.waitForExit(within: .seconds(20)) else { child.kill(); return false }
        return child.kill() == .exited(0)
    }()

    static func relayDUT(_ flags: String = "") -> String {
        "'\(python)' '\(root.appendingPathComponent("examples/relay-dut.py").path)' \(flags)"
    }

    static let capabilities: Capabilities = {
        do { return try Capabilities.load(root.appendingPathComponent("examples/relay-dut.capabilities.json").path) } catch {
            fatalError("examples/relay-dut.capabilities.json: \(error)")
        }
    }()

    static func check(_ id: String) -> Check { Catalog.all.first { $0.id == id }! }
}

/// The example DUT through the process driver: real checks, real verdicts, on the wall clock.
@Suite("process driver: the Python relay DUT", .serialized,
       .enabled(if: DUTPrograms.hasCryptography, "needs Python with the `cryptography` package (ci/test installs it in .venv)"))
struct PythonRelayDUTTests {
    @Test(arguments: ["RLY/BV-01", "RLY/BV-04", "DDP/BV-01", "DDP/BV-05", "ACK/BV-01", "ACK/BV-04", "ROB/BI-04"])
    func passes(_ id: String) {
        let runner = Runner(capabilities: DUTPrograms.capabilities, driver: ProcessDriver(command: DUTPrograms.relayDUT()))
        let result = runner.run(DUTPrograms.check(id))
        #expect(result.verdict == .pass, "\(id): \(result.verdict) \(result.reason ?? "") seen: \(result.seen ?? "")\n\(result.evidence.map(\.line).joined(separator: "\n"))")
    }

    /// The broken variant fails a de-duplication check and still passes a plain relay check:
    /// the failure is the missing cache, not the transport.
    @Test func theNoDedupVariantFailsDeDuplicationOnly() {
        let runner = Runner(capabilities: DUTPrograms.capabilities, driver: ProcessDriver(command: DUTPrograms.relayDUT("--no-dedup")))
        let dup = runner.run(DUTPrograms.check("DDP/BV-01"))
        #expect(dup.verdict == .fail && dup.reason == "the duplicate was relayed again", "\(dup.verdict) \(dup.reason ?? "")")
        let relay = runner.run(DUTPrograms.check("RLY/BV-01"))
        #expect(relay.verdict == .pass, "\(relay.verdict) \(relay.reason ?? "")")
    }

    /// Outputs carry session-clock times that advance with the wall clock.
    @Test func timesAreOnTheWallClock() throws {
        let session = try ProcessDriver(command: DUTPrograms.relayDUT()).start(
            try RelayProbe().setup(capabilities: DUTPrograms.capabilities, seed: 7))
        defer { _ = session.close() }
        let t0 = session.now
        try session.apply(.linkUp(LinkID(1), peer: nil))
        // The first beacon is due 2 s after the first link comes up (RELAY-R9).
        let outputs = try session.wait(until: t0 + .milliseconds(3000))
        let elapsed = session.now - t0
        #expect(elapsed >= .milliseconds(3000) && elapsed < .milliseconds(4000), "\(elapsed)")
        guard let beacon = outputs.first(where: { if case .sent = $0.kind { true } else { false } }) else {
            Issue.record("no beacon within 3 s: \(outputs)"); return
        }
        let at = beacon.at - t0
        #expect(at >= .milliseconds(1900) && at <= .milliseconds(3000), "beacon at \(at)")
    }
}

/// Whatever a DUT program does, each check gets a verdict with a reason within a bounded wall
/// time, and nothing is left running.
@Suite("process driver: hostile DUTs")
struct HostileDUTTests {
    static let ready = #"echo '{"type":"ready","version":1}'"#
    /// Short timeouts so each case is quick; the bound each case is held to follows from them.
    static func driver(_ command: String) -> ProcessDriver {
        ProcessDriver(command: command, startTimeout: .seconds(1), writeTimeout: .seconds(1), stopGrace: .milliseconds(200))
    }
    static let capabilities = Capabilities(dialect: .relay, upperTester: true, timingSlackMs: 100, checkBudgetSeconds: 10)

    @Test("a hostile DUT gets a verdict with the reason, in bounded time", arguments: [
        // Exits at once.
        ("exit 0", Verdict.fail, "exited (exit status 0) before answering start"),
        // A command that does not exist is the invocation's fault, not the DUT's.
        ("/nonexistent/dut", .error, "could not be run"),
        // Crashes mid-check: takes start and one more line, then dies.
        ("read l; \(ready); read l; exit 3", .fail, "exit status 3"),
        // Killed by a signal mid-check.
        ("read l; \(ready); read l; kill -SEGV $$", .fail, "signal 11"),
        // Never answers start.
        ("sleep 30", .fail, "did not answer start within 1.0 s"),
        // Answers start late.
        ("read l; sleep 3; \(ready)", .fail, "did not answer start"),
        // Floods tx lines forever.
        ("read l; \(ready); yes '{\"type\":\"tx\",\"link\":2,\"hex\":\"00\"}'", .fail, "flood"),
        // Floods one endless line.
        ("read l; \(ready); cat /dev/zero", .fail, "line over 1048576 bytes"),
        // Garbage instead of ready, and after it.
        ("read l; echo 'hello?'; sleep 30", .fail, "not a protocol message"),
        ("read l; \(ready); echo 'this is not json'; sleep 30", .fail, "'this is not json'"),
        ("read l; \(ready); echo '{\"type\":\"teleport\"}'; sleep 30", .fail, "unknown message type"),
        ("read l; \(ready); echo '{\"type\":\"tx\",\"link\":0,\"hex\":\"00\"}'; sleep 30", .fail, "links are numbered from 1"),
        // A protocol version we do not speak.
        ("read l; echo '{\"type\":\"ready\",\"version\":2}'; sleep 30", .fail, "version 2"),
        // Closes stdout but keeps running.
        ("read l; \(ready); exec 1>&-; sleep 30", .fail, "closed its stdout but is still running"),
        // Never reads stdin (after start): the check's few lines fit the pipe; it sees nothing relayed.
        ("read l; \(ready); sleep 30", .fail, "not relayed"),
        // Ignores stop and SIGTERM, and leaves a child behind: killed with its group.
        ("trap '' TERM; read l; \(ready); sleep 30 & while :; do sleep 1; done", .fail, "not relayed"),
        // Floods stderr without end (and takes no part): the check still ends on time.
        ("read l; \(ready); yes 'noise' >&2", .fail, "not relayed"),
        // Blank lines and CRLF endings are tolerated; the DUT is then judged by the check.
        ("read l; printf '\\n{\"type\":\"ready\",\"version\":1}\\r\\n\\n'; sleep 30", .fail, "not relayed"),
        // Complains on stderr then dies: the reason carries the tail.
        ("read l; echo 'fatal: no key' >&2; exit 1", .fail, "fatal: no key"),
    ])
    func hostile(_ command: String, _ verdict: Verdict, _ reason: String) {
        let started = ContinuousClock.now
        let runner = Runner(capabilities: Self.capabilities, driver: Self.driver(command))
        let result = runner.run(DUTPrograms.check("RLY/BV-01"))
        let wall = ContinuousClock.now - started
        #expect(result.verdict == verdict, "\(command): \(result.verdict) \(result.reason ?? "")")
        #expect((result.reason ?? "").contains(reason), "\(command): \(result.reason ?? "no reason")")
        // startTimeout 1 s + the check's waits (< 1 s) + stop grace 0.2 s + SIGTERM grace 0.2 s.
        #expect(wall < .seconds(6), "\(command) took \(wall)")
    }

    /// A DUT that answers start, then relays everything 600 ms late: a timing FAIL.
    @Test func answersLate() {
        let late = """
        '\(DUTPrograms.python)' -c '
        import json, sys, time
        sys.stdin.readline()
        print(json.dumps({"type": "ready", "version": 1}), flush=True)
        for line in sys.stdin:
            m = json.loads(line)
            if m["type"] == "rx":
                time.sleep(0.6)
                for link in (2, 3):
                    print(json.dumps({"type": "tx", "link": link, "hex": m["hex"]}), flush=True)
        '
        """
        let started = ContinuousClock.now
        let result = Runner(capabilities: Self.capabilities, driver: Self.driver(late)).run(DUTPrograms.check("RLY/BV-01"))
        #expect(result.verdict == .fail, "\(result.verdict) \(result.reason ?? "")")
        #expect(ContinuousClock.now - started < .seconds(6))
    }

    /// A DUT that stops reading its stdin: the writes time out instead of blocking forever.
    @Test func neverReadsStdin() throws {
        let started = ContinuousClock.now
        let session = try Self.driver("read l; \(Self.ready); sleep 30").start(
            try RelayProbe().setup(capabilities: Self.capabilities, seed: 1))
        defer { _ = session.close() }
        let packet = [UInt8](repeating: 0x46, count: 512)
        var failure: DUTFailure?
        // ~1 KB per line: the 64 KiB pipe is full after ~64 lines.
        for _ in 0..<1_000 {
            do { try session.apply(.received(packet, on: LinkID(1))) } catch let f as DUTFailure { failure = f; break }
        }
        #expect(failure?.description.contains("did not read its stdin") == true, "\(String(describing: failure))")
        #expect(ContinuousClock.now - started < .seconds(4))
        // The session stays failed: later calls say so at once.
        #expect(throws: DUTFailure.self) { try session.wait(until: session.now + .seconds(5)) }
    }

    /// Closing leaves no process of the DUT's group alive and the shell reaped, even when it
    /// ignores stop and SIGTERM and has children of its own.
    @Test func closeKillsTheWholeGroup() throws {
        let command = "trap '' TERM; read l; sleep 30 & sleep 30 & \(Self.ready); while :; do sleep 1; done"
        let session = try Self.driver(command).start(try RelayProbe().setup(capabilities: Self.capabilities, seed: 1))
        let pid = try #require(session as? ProcessSession).pid
        #expect(Self.liveMembers(ofGroup: pid) >= 2)
        let started = ContinuousClock.now
        let diagnostics = session.close()
        #expect(ContinuousClock.now - started < .seconds(2))
        #expect(diagnostics?.contains("did not exit") == true, "\(diagnostics ?? "nil")")
        // The shell is reaped (no zombie of ours), and its group has no running member.
        #expect(waitpid(pid, nil, WNOHANG) == -1 && errno == ECHILD)
        let deadline = ContinuousClock.now + .seconds(2)
        while Self.liveMembers(ofGroup: pid) > 0 && ContinuousClock.now < deadline { usleep(10_000) }
        #expect(Self.liveMembers(ofGroup: pid) == 0)
    }

    /// Processes in process group `pgid` that are not zombies, from /proc (Linux).
    static func liveMembers(ofGroup pgid: Int32) -> Int {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return 0 }
        return entries.filter { name in
            guard Int32(name) != nil, let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            // Fields after "(comm)": state, ppid, pgrp, ...
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 2 && fields[0] != "Z" && Int32(fields[2]) == pgid
        }.count
    }
}
