import Conformance
import Foundation
import Synchronization

/// The run's output on stdout as checks finish. On a terminal, each check's line is followed
/// by a live status line (checks done, elapsed, an estimate of what is left, the checks
/// running), redrawn every second so that a long wait (a retention check on the wall clock)
/// still shows time passing; it is erased at the end. Not on a terminal (CI logs, pipes):
/// only the check lines, nothing rewritten.
final class CheckProgress: Sendable {
    private struct State {
        var dialect = ""
        var total = 0
        var done = 0
        var running: [String] = []
        var sectionStart = ContinuousClock.now
        var ended = false
    }

    let live: Bool
    private let state = Mutex(State())

    init(live: Bool = isatty(STDOUT_FILENO) != 0) {
        self.live = live
        guard live else { return }
        Thread.detachNewThread { [self] in
            while state.withLock({ s in
                if !s.ended { redraw(s) }   // the elapsed time moves on during long checks
                return !s.ended
            }) { Thread.sleep(forTimeInterval: 1) }
        }
    }

    /// A dialect's checks are about to run.
    func begin(_ dialect: String, total: Int) {
        state.withLock { s in
            s = State(dialect: dialect, total: total, sectionStart: .now)
            if live { redraw(s) }
        }
    }

    /// A check starts or ends (from the runner's threads, in any order).
    func activity(_ check: Check, _ what: CheckActivity) {
        guard live else { return }
        state.withLock { s in
            switch what {
            case .started: s.running.append(check.id)
            case .ended: s.running.removeAll { $0 == check.id }
            }
            redraw(s)
        }
    }

    /// A check's result line (in catalog order), above the status line.
    func finished(_ line: String) {
        state.withLock { s in
            s.done += 1
            if live {
                write("\r\u{1B}[K" + line + "\n")
                redraw(s)
            } else {
                write(line + "\n")
            }
        }
    }

    /// Erases the status line for good (before the summary).
    func end() {
        state.withLock { s in
            s.ended = true
            if live { write("\r\u{1B}[K") }
        }
    }

    /// `relay 12/41 · 0:14 elapsed · ~0:33 left · running DDP/BV-07, RLY/BV-02`. The estimate
    /// is the section's pace so far (checks done per second, with its jobs) over what is left.
    private func redraw(_ s: State) {
        guard s.total > 0 else { return }
        let elapsed = (ContinuousClock.now - s.sectionStart).seconds
        var parts = ["\(s.dialect) \(s.done)/\(s.total)", "\(Self.clock(elapsed)) elapsed"]
        if s.done > 0, s.done < s.total {
            parts.append("~\(Self.clock(elapsed / Double(s.done) * Double(s.total - s.done))) left")
        }
        if !s.running.isEmpty { parts.append("running " + s.running.prefix(4).joined(separator: ", ") + (s.running.count > 4 ? ", ..." : "")) }
        write("\r\u{1B}[K" + parts.joined(separator: " · "))
    }

    /// Through print, as the run's other lines, so that nothing overtakes in stdout's buffer.
    private func write(_ text: String) {
        print(text, terminator: "")
        fflush(nil)   // every output stream: stdout is a global Swift 6 does not let us name here
    }

    /// `m:ss`.
    static func clock(_ seconds: Double) -> String {
        let s = max(0, Int(seconds.rounded()))
        return "\(s / 60):" + String(format: "%02d", s % 60)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
