#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The btsnoop capture format as Wireshark and btmon read it (RFC 1761 snoop, adapted by
/// Symbian/BlueZ): an 16-byte file header, then records, every integer big-endian.
public enum Btsnoop {
    public static let magic: [UInt8] = Array("btsnoop".utf8) + [0]
    public static let version: UInt32 = 1
    /// Datalink 1002: HCI UART (H4), each record's data starts with the H4 indicator.
    public static let datalinkH4: UInt32 = 1002
    /// Microseconds from midnight 1 January 0 AD (the format's epoch) to the Unix epoch.
    public static let epochOffsetMicroseconds: Int64 = 0x00dc_ddb3_0f2f_8000
    /// A record is 24 header bytes plus its data.
    public static let recordHeaderBytes = 24

    /// Which way a packet went, seen from the host (flags bit 0).
    public enum Direction: UInt32, Sendable {
        case sent = 0
        case received = 1
    }

    public struct Record: Hashable, Sendable {
        public var direction: Direction
        /// Flags bit 1: an HCI command or event, as opposed to data (ACL, SCO, ISO).
        public var isCommandOrEvent: Bool
        public var originalLength: UInt32
        public var cumulativeDrops: UInt32
        /// Microseconds since the Unix epoch.
        public var unixMicroseconds: Int64
        public var data: [UInt8]
    }
}

/// Appends H4 packets to a btsnoop file. Each record goes out in one write(2) on an O_APPEND
/// descriptor with no user-space buffering, so a run killed at any point leaves a file whose
/// every complete record is readable (a record cut by a full disk can only be the last one).
/// The file stops growing at `maxBytes`; packets past it are counted in the records'
/// cumulative-drops field rather than written.
public final class BtsnoopWriter {
    public let path: String
    public let maxBytes: Int
    public private(set) var bytesWritten = 0
    public private(set) var dropped: UInt32 = 0
    /// The first write error; once set, nothing more is written.
    public private(set) var failure: String?
    private var fd: Int32

    /// Creates (truncates) `path` and writes the file header.
    public init(path: String, maxBytes: Int = 1 << 30) throws(BtsnoopError) {
        self.path = path
        self.maxBytes = maxBytes
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw BtsnoopError(path: path, reason: "cannot create: \(errnoText(errno))") }
        var header = Btsnoop.magic
        header.appendBigEndian(Btsnoop.version)
        header.appendBigEndian(Btsnoop.datalinkH4)
        guard writeAll(header) else {
            let reason = failure ?? "write failed"
            close()
            throw BtsnoopError(path: path, reason: reason)
        }
    }

    deinit { close() }

    /// Records one H4 packet (indicator byte first) at `unixMicroseconds` (default: now).
    public func record(_ packet: [UInt8], _ direction: Btsnoop.Direction, unixMicroseconds: Int64 = BtsnoopWriter.nowMicroseconds()) {
        guard fd >= 0, failure == nil else { return }
        if bytesWritten + Btsnoop.recordHeaderBytes + packet.count > maxBytes {
            dropped &+= 1
            return
        }
        let indicator = packet.first
        let commandOrEvent = indicator == 0x01 || indicator == 0x04   // H4 command, event
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Btsnoop.recordHeaderBytes + packet.count)
        bytes.appendBigEndian(UInt32(packet.count))                       // original length
        bytes.appendBigEndian(UInt32(packet.count))                       // included length
        bytes.appendBigEndian(direction.rawValue | (commandOrEvent ? 2 : 0))
        bytes.appendBigEndian(dropped)
        bytes.appendBigEndian(UInt64(bitPattern: unixMicroseconds + Btsnoop.epochOffsetMicroseconds))
        bytes += packet
        _ = writeAll(bytes)
    }

    public func close() {
        if fd >= 0 {
            sysClose(fd)
            fd = -1
        }
    }

    public static func nowMicroseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }

    private func writeAll(_ bytes: [UInt8]) -> Bool {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
            if n > 0 { done += n; continue }
            if n < 0, errno == EINTR { continue }
            failure = "write failed: \(n < 0 ? errnoText(errno) : "no progress")"
            return false
        }
        bytesWritten += done
        return true
    }
}

/// Reads a btsnoop file back (tests, and checking a capture before handing it to someone).
public enum BtsnoopReader {
    public struct Capture: Sendable {
        public var version: UInt32
        public var datalink: UInt32
        public var records: [Btsnoop.Record]
        /// Bytes at the end that do not make a whole record (a run killed mid-write).
        public var trailingBytes: Int
    }

    /// Parses `bytes`; a record longer than `maxRecordBytes` or an included length above the
    /// original one is an error, a cut-off last record is reported in `trailingBytes`.
    public static func parse(_ bytes: [UInt8], maxRecordBytes: Int = 1 << 20) throws(BtsnoopError) -> Capture {
        guard bytes.count >= 16, Array(bytes[0..<8]) == Btsnoop.magic else {
            throw BtsnoopError(path: "", reason: "not a btsnoop file (no 'btsnoop\\0' header)")
        }
        let version = bytes.bigEndianUInt32(at: 8)
        let datalink = bytes.bigEndianUInt32(at: 12)
        var records: [Btsnoop.Record] = []
        var at = 16
        while bytes.count - at >= Btsnoop.recordHeaderBytes {
            let original = bytes.bigEndianUInt32(at: at)
            let included = Int(bytes.bigEndianUInt32(at: at + 4))
            let flags = bytes.bigEndianUInt32(at: at + 8)
            let drops = bytes.bigEndianUInt32(at: at + 12)
            let stamp = Int64(bitPattern: UInt64(bytes.bigEndianUInt32(at: at + 16)) << 32 | UInt64(bytes.bigEndianUInt32(at: at + 20)))
            guard included <= maxRecordBytes, included <= Int(original) else {
                throw BtsnoopError(path: "", reason: "record at byte \(at): included length \(included), original \(original)")
            }
            guard bytes.count - at - Btsnoop.recordHeaderBytes >= included else { break }
            let start = at + Btsnoop.recordHeaderBytes
            records.append(Btsnoop.Record(
                direction: flags & 1 == 1 ? .received : .sent, isCommandOrEvent: flags & 2 != 0,
                originalLength: original, cumulativeDrops: drops,
                unixMicroseconds: stamp - Btsnoop.epochOffsetMicroseconds, data: Array(bytes[start..<(start + included)])))
            at = start + included
        }
        return Capture(version: version, datalink: datalink, records: records, trailingBytes: bytes.count - at)
    }

    public static func read(path: String, maxFileBytes: Int = 1 << 30) throws(BtsnoopError) -> Capture {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw BtsnoopError(path: path, reason: "cannot open: \(errnoText(errno))") }
        defer { sysClose(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n < 0 { throw BtsnoopError(path: path, reason: "read failed: \(errnoText(errno))") }
            if n == 0 { break }
            bytes += chunk[0..<n]
            if bytes.count > maxFileBytes { throw BtsnoopError(path: path, reason: "larger than \(maxFileBytes) bytes") }
        }
        do {
            return try parse(bytes)
        } catch {
            throw BtsnoopError(path: path, reason: error.reason)
        }
    }
}

public struct BtsnoopError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { path.isEmpty ? "btsnoop: \(reason)" : "btsnoop file \(path): \(reason)" }
}

extension [UInt8] {
    fileprivate mutating func appendBigEndian(_ v: UInt32) {
        append(contentsOf: [UInt8(v >> 24), UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)])
    }
    fileprivate mutating func appendBigEndian(_ v: UInt64) {
        appendBigEndian(UInt32(v >> 32))
        appendBigEndian(UInt32(truncatingIfNeeded: v))
    }
    fileprivate func bigEndianUInt32(at i: Int) -> UInt32 {
        UInt32(self[i]) << 24 | UInt32(self[i + 1]) << 16 | UInt32(self[i + 2]) << 8 | UInt32(self[i + 3])
    }
}
