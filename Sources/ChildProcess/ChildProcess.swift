#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// An untrusted program run as `/bin/sh -c COMMAND`, spoken to in lines over its stdin and
/// stdout: the shared plumbing of the external decoder (`vectors --exec`) and the process DUT
/// driver (`run --dut-exec`).
///
/// Nothing the program does can hang or crash the caller: every wait has a deadline, a write
/// that the program does not read times out instead of blocking, lines and buffers are
/// bounded, SIGPIPE is ignored, and the program runs in its own process group so that
/// `terminate` also ends whatever it started. Output is read whenever the caller waits for
/// anything, writes included, so a program that talks while it is being written to cannot
/// deadlock the two pipes.
public final class ChildProcess {
    /// One line the program wrote, without its `\n`, and when it was read.
    public struct Line: Sendable {
        public var bytes: [UInt8]
        public var at: ContinuousClock.Instant
    }

    public enum StandardError: Sendable {
        /// Shared with the caller's stderr (a decoder's complaints show up in the terminal).
        case inherit
        /// Captured; the last `tailBytes` are kept for diagnostics (`stderrTail`).
        case capture(tailBytes: Int)
    }

    /// How the shell ended.
    public enum Status: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)
        /// It could not be reaped within the bound (stuck in the kernel): left as it is.
        case unknown

        public var description: String {
            switch self {
            case .exited(let code): "exit status \(code)"
            case .signalled(let sig): "killed by signal \(sig)\(sig == SIGKILL ? " (SIGKILL)" : sig == SIGTERM ? " (SIGTERM)" : sig == SIGSEGV ? " (SIGSEGV)" : sig == SIGABRT ? " (SIGABRT)" : "")"
            case .unknown: "exit status unknown"
            }
        }
    }

    public let command: String
    /// The shell's pid, which is also the process group id of everything it starts.
    public let pid: pid_t
    public let maxLineBytes: Int
    /// Bytes of complete lines read but not yet taken; beyond it the program is flooding.
    public let maxQueuedBytes: Int

    private var stdinFD: Int32
    private var stdoutFD: Int32
    private var stderrFD: Int32
    private var partial: [UInt8] = []
    private var queue: [Line] = []
    private var queueHead = 0
    private var queuedBytes = 0
    private var stdoutClosed = false
    private var tail: [UInt8] = []
    private let tailLimit: Int
    private var tailDropped = false
    private var reaped: Status?

    /// SIGPIPE is process-wide: a program that dies while we write to it must cost an EPIPE,
    /// not meshconform. Done once, before the first spawn.
    private static let ignoreSIGPIPE: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// Starts `/bin/sh -c command` in a new process group.
    public init(command: String, stderr: StandardError = .inherit, maxLineBytes: Int = 1 << 20,
                maxQueuedBytes: Int = 16 << 20) throws(ChildProcessError) {
        Self.ignoreSIGPIPE
        self.command = command
        self.maxLineBytes = maxLineBytes
        self.maxQueuedBytes = maxQueuedBytes
        if case .capture(let n) = stderr { tailLimit = max(0, n) } else { tailLimit = 0 }

        let capture: Bool
        if case .capture = stderr { capture = true } else { capture = false }
        let (spawned, fds) = try Self.spawnLock.withLock { _ throws(ChildProcessError) in try Self.spawn(command, captureStderr: capture) }
        pid = spawned
        stdinFD = fds.stdin
        stdoutFD = fds.stdout
        stderrFD = fds.stderr
        let parentEnds = [fds.stdin, fds.stdout] + (capture ? [fds.stderr] : [])
        for fd in parentEnds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
    }

    deinit { _ = terminate(grace: .milliseconds(100)) }

    // MARK: talking

    /// Writes all of `bytes` to the program's stdin, reading its output meanwhile.
    /// Throws `.timedOut` if the program does not take them by `deadline` (it stopped reading
    /// and the pipe is full), `.inputClosed` if it closed its stdin or exited.
    public func write(_ bytes: [UInt8], until deadline: ContinuousClock.Instant) throws(ChildProcessError) {
        guard stdinFD >= 0 else { throw .inputClosed }
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { systemWrite(stdinFD, $0.baseAddress, $0.count) }
            if n > 0 { sent += n; continue }
            if n < 0 && errno != EAGAIN && errno != EINTR { throw .inputClosed }
            // Checked here too: a program that talks without pause keeps `pump` returning.
            if ContinuousClock.now >= deadline { throw .timedOut }
            try pump(until: deadline, writing: true)
        }
    }

    /// The next line the program wrote, waiting for it until `deadline`; nil when none came by
    /// then. A deadline in the past still takes what is already readable. Throws
    /// `.outputClosed` once stdout is at end and every complete line has been taken (a partial
    /// last line without `\n` is dropped), `.lineTooLong` for a line over `maxLineBytes`,
    /// `.flooded` when more than `maxQueuedBytes` wait to be taken.
    public func nextLine(until deadline: ContinuousClock.Instant) throws(ChildProcessError) -> Line? {
        while true {
            if let line = takeLine() { return line }
            if stdoutClosed { throw .outputClosed }
            guard try pump(until: deadline, writing: false) else { return takeLine() }
        }
    }

    /// Reads what stdout has ready now, without waiting, until `limit` complete lines are
    /// queued: lets a caller see how far ahead of it the program is (a flood) before it spends
    /// time on each line. Errors as `nextLine`, except that end of file is left for it.
    public func readReady(upTo limit: Int) throws(ChildProcessError) {
        while queuedLines < limit, !stdoutClosed, try pump(until: .now, writing: false) {}
    }

    /// Complete lines read and not yet taken.
    public var queuedLines: Int { queue.count - queueHead }

    /// Closes the program's stdin: it reads end of file.
    public func closeInput() {
        if stdinFD >= 0 { close(stdinFD); stdinFD = -1 }
    }

    /// What the program wrote to stderr last (when captured), as text.
    public var stderrTail: String {
        drainStderr()
        let text = String(decoding: tail, as: UTF8.self)
        return tailDropped ? "..." + text : text
    }

    // MARK: ending

    /// Whether the shell is still running (it is not reaped by this).
    public var isRunning: Bool { reaped == nil && !hasExited() }

    /// Waits up to `span` for the shell to exit, without reaping it (its pid, and so its
    /// process group id, stay reserved until `kill`).
    @discardableResult
    public func waitForExit(within span: Duration) -> Bool {
        let deadline = ContinuousClock.now + span
        while true {
            if reaped != nil || hasExited() { return true }
            if ContinuousClock.now >= deadline { return false }
            usleep(2_000)
        }
    }

    /// Ends the program: SIGTERM to its process group unless the shell already exited, up to
    /// `grace` to exit, then SIGKILL to the group (children it left behind included) and reap.
    /// Idempotent; returns how the shell ended.
    @discardableResult
    public func terminate(grace: Duration) -> Status {
        if let reaped { return reaped }
        if !hasExited() {
            _ = systemKill(-pid, SIGTERM)
            waitForExit(within: grace)
        }
        return kill()
    }

    /// SIGKILL to the whole process group, then reap the shell so no zombie is left. The group
    /// is killed before the reap: while the shell is an unreaped zombie its pid cannot be
    /// reused, so the signal cannot reach an unrelated group.
    @discardableResult
    public func kill() -> Status {
        if let reaped { return reaped }
        _ = systemKill(-pid, SIGKILL)
        drainStderr()
        for fd in [stdinFD, stdoutFD, stderrFD] where fd >= 0 { close(fd) }
        stdinFD = -1; stdoutFD = -1; stderrFD = -1
        stdoutClosed = true
        // SIGKILL cannot be ignored, so this is quick; the bound is for a shell stuck in the
        // kernel (uninterruptible I/O), which is then left behind rather than hanging us.
        let deadline = ContinuousClock.now + .seconds(2)
        var status: Int32 = 0
        var result = Status.unknown
        while ContinuousClock.now < deadline {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid {
                // WIFEXITED / WTERMSIG are macros Swift does not import; these are their definitions.
                result = status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signalled(status & 0x7f)
                break
            }
            if r < 0 && errno != EINTR { break }
            usleep(1_000)
        }
        reaped = result
        return result
    }

    // MARK: plumbing

    private func hasExited() -> Bool {
        var info = siginfo_t()
        // WNOWAIT: look without reaping. With WNOHANG and no exit, Linux zeroes si_signo.
        let r = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
        return r == 0 && info.si_signo == SIGCHLD
    }

    private func takeLine() -> Line? {
        guard queueHead < queue.count else { return nil }
        let line = queue[queueHead]
        queueHead += 1
        queuedBytes -= line.bytes.count
        if queueHead == queue.count { queue.removeAll(keepingCapacity: true); queueHead = 0 }
        return line
    }

    /// Waits until stdout has data (or, when `writing`, stdin can take more) or `deadline`,
    /// and reads what is there. Returns false at the deadline with nothing ready.
    @discardableResult
    private func pump(until deadline: ContinuousClock.Instant, writing: Bool) throws(ChildProcessError) -> Bool {
        while true {
            var fds: [pollfd] = []
            if writing { fds.append(pollfd(fd: stdinFD, events: Int16(POLLOUT), revents: 0)) }
            if !stdoutClosed { fds.append(pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0)) }
            if stderrFD >= 0 { fds.append(pollfd(fd: stderrFD, events: Int16(POLLIN), revents: 0)) }
            if fds.isEmpty { return false }
            let left = deadline - ContinuousClock.now
            let ms = left <= .zero ? 0 : Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            let r = poll(&fds, nfds_t(fds.count), ms)
            if r < 0 {
                if errno == EINTR { continue }
                throw .outputClosed
            }
            if r == 0 {
                if writing { throw .timedOut }
                return false
            }
            var progress = false
            for p in fds where p.revents != 0 {
                if p.fd == stdinFD {
                    // POLLERR / POLLHUP: the reader is gone; the next write says EPIPE.
                    progress = true
                } else if p.fd == stdoutFD {
                    try readStdout()
                    progress = true
                } else if p.fd == stderrFD {
                    drainStderr()
                }
            }
            if progress { return true }
            // Only stderr moved: a program that writes stderr without end must not keep us
            // here past the deadline.
            if ContinuousClock.now >= deadline {
                if writing { throw .timedOut }
                return false
            }
        }
    }

    private func readStdout() throws(ChildProcessError) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let at = ContinuousClock.now
        let n = buffer.withUnsafeMutableBytes { read(stdoutFD, $0.baseAddress, $0.count) }
        if n == 0 { stdoutClosed = true; return }
        if n < 0 {
            if errno == EINTR || errno == EAGAIN { return }
            stdoutClosed = true
            return
        }
        var start = 0
        for i in 0..<n where buffer[i] == 0x0a {
            partial += buffer[start..<i]
            guard partial.count <= maxLineBytes else { throw .lineTooLong(maxLineBytes) }
            queue.append(Line(bytes: partial, at: at))
            queuedBytes += partial.count
            partial.removeAll(keepingCapacity: true)
            start = i + 1
        }
        partial += buffer[start..<n]
        guard partial.count <= maxLineBytes else { throw .lineTooLong(maxLineBytes) }
        guard queuedBytes <= maxQueuedBytes else { throw .flooded(maxQueuedBytes) }
    }

    /// Keeps only the last `tailLimit` bytes of stderr, so a chatty program costs nothing.
    /// Reads at most 256 KiB per call: one that writes stderr as fast as we read it must not
    /// keep us here.
    private func drainStderr() {
        guard stderrFD >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 16_384)
        for _ in 0..<16 {
            let n = buffer.withUnsafeMutableBytes { read(stderrFD, $0.baseAddress, $0.count) }
            if n > 0 {
                tail += buffer[..<n]
                if tail.count > tailLimit {
                    tail.removeFirst(tail.count - tailLimit)
                    tailDropped = true
                }
                continue
            }
            if n < 0 && errno == EINTR { continue }
            if n == 0 { close(stderrFD); stderrFD = -1 }   // end of file: stop polling it
            return
        }
    }

    /// Every pipe end is close-on-exec so that programs started concurrently (tests run in
    /// parallel) do not inherit each other's pipes and keep them open past their owner's exit,
    /// which would hide EOF; dup2 in the child clears the flag on 0, 1 and 2. Swift's Glibc
    /// lacks pipe2, so pipe + FD_CLOEXEC are made atomic for our spawns by `spawnLock`.
    private static let spawnLock = Mutex(())

    private static func pipe() throws(ChildProcessError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        guard systemPipe(&fds) == 0 else { throw .cannotStart("pipe: \(String(cString: strerror(errno)))") }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (fds[0], fds[1])
    }

    /// Makes the pipes and starts the shell with their child ends; returns the parent ends.
    /// Call with `spawnLock` held.
    private static func spawn(_ command: String, captureStderr: Bool) throws(ChildProcessError) -> (pid_t, (stdin: Int32, stdout: Int32, stderr: Int32)) {
        var made: [Int32] = []
        do {
            let input = try pipe()
            made += [input.read, input.write]
            let output = try pipe()
            made += [output.read, output.write]
            let errors = captureStderr ? try pipe() : nil
            if let errors { made += [errors.read, errors.write] }
            var pid: pid_t = 0
            let rc = spawn(command, stdin: input.read, stdout: output.write, stderr: errors?.write, pid: &pid)
            for fd in [input.read, output.write, errors?.write ?? -1] where fd >= 0 { close(fd) }
            guard rc == 0 else {
                for fd in [input.write, output.read, errors?.read ?? -1] where fd >= 0 { close(fd) }
                throw ChildProcessError.cannotStart("/bin/sh -c \(command): \(String(cString: strerror(rc)))")
            }
            return (pid, (input.write, output.read, errors?.read ?? -1))
        } catch let error as ChildProcessError {
            if case .cannotStart(let why) = error, why.hasPrefix("pipe:") { for fd in made { close(fd) } }
            throw error
        } catch {
            throw .cannotStart("\(error)")
        }
    }

    /// posix_spawn of `/bin/sh -c command` with the given fds as 0, 1 (and 2), in a new process
    /// group, with SIGPIPE back to its default (ignored signals survive exec, and `yes | head`
    /// in a DUT's shell should behave as usual) and no blocked signals. Returns an errno.
    private static func spawn(_ command: String, stdin: Int32, stdout: Int32, stderr: Int32?, pid: inout pid_t) -> Int32 {
        #if os(Linux)
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #else
        var actions: posix_spawn_file_actions_t? = nil
        var attributes: posix_spawnattr_t? = nil
        #endif
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        if let stderr { posix_spawn_file_actions_adddup2(&actions, stderr, 2) }
        var defaults = sigset_t(), empty = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup(command), nil]
        defer { for p in argv { free(p) } }
        return posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, environ)
    }
}

// `write` and `kill` are also method names here, which hide the C functions inside the class.
private func systemWrite(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(fd, bytes, count)
    #else
    Darwin.write(fd, bytes, count)
    #endif
}

private func systemPipe(_ fds: UnsafeMutablePointer<Int32>) -> Int32 {
    #if canImport(Glibc)
    Glibc.pipe(fds)
    #else
    Darwin.pipe(fds)
    #endif
}

private func systemKill(_ pid: pid_t, _ signal: Int32) -> Int32 {
    #if canImport(Glibc)
    Glibc.kill(pid, signal)
    #else
    Darwin.kill(pid, signal)
    #endif
}

public enum ChildProcessError: Error, Sendable, Equatable, CustomStringConvertible {
    case cannotStart(String)
    /// The program closed its stdout (or exited).
    case outputClosed
    /// The program closed its stdin (or exited) while we wrote to it.
    case inputClosed
    /// A write did not complete by its deadline: the program is not reading its stdin.
    case timedOut
    case lineTooLong(Int)
    case flooded(Int)

    public var description: String {
        switch self {
        case .cannotStart(let why): "cannot start: \(why)"
        case .outputClosed: "closed its stdout"
        case .inputClosed: "closed its stdin"
        case .timedOut: "did not read its stdin"
        case .lineTooLong(let n): "line over \(n) bytes"
        case .flooded(let n): "over \(n) bytes of output not yet read"
        }
    }
}
