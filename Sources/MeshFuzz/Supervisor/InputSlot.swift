#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small file shared by a worker and its supervisor through mmap: before each execution the
/// worker copies the input there and bumps a counter. If the worker dies or stops bumping,
/// the supervisor reads the file and knows which input did it, without the cost of a message
/// per execution. Layout: counter u64 | length u32 | bytes.
public final class InputSlot {
    public static let headerBytes = 12
    public let path: String
    public let capacity: Int
    private let base: UnsafeMutableRawPointer
    private let size: Int

    /// Maps `path` (created or truncated to fit `capacity` input bytes) for writing.
    public init(path: String, capacity: Int) throws(CorpusError) {
        self.path = path
        self.capacity = capacity
        size = Self.headerBytes + capacity
        let fd = open(path, O_RDWR | O_CREAT, 0o600)
        guard fd >= 0 else { throw CorpusError("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard ftruncate(fd, off_t(size)) == 0, let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), mapped != MAP_FAILED else {
            throw CorpusError("cannot map \(path): \(String(cString: strerror(errno)))")
        }
        base = mapped
        base.storeBytes(of: 0, as: UInt64.self)
        base.storeBytes(of: 0, toByteOffset: 8, as: UInt32.self)
    }

    deinit { munmap(base, size) }

    /// Records `input` as the one about to run (inputs longer than the slot are cut: the
    /// engine never makes them).
    @inline(__always)
    public func record(_ input: [UInt8]) {
        let n = min(input.count, capacity)
        if n > 0 { input.withUnsafeBytes { base.advanced(by: Self.headerBytes).copyMemory(from: $0.baseAddress!, byteCount: n) } }
        base.storeBytes(of: UInt32(n), toByteOffset: 8, as: UInt32.self)
        base.storeBytes(of: base.load(as: UInt64.self) &+ 1, as: UInt64.self)
    }

    /// The counter and the last input, read from the file (the supervisor's side).
    public static func read(_ path: String) -> (count: UInt64, input: [UInt8])? {
        guard let bytes = CorpusStore.readFile(path), bytes.count >= headerBytes else { return nil }
        let count = bytes[0..<8].enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        let length = Int(bytes[8..<12].enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) })
        guard headerBytes + length <= bytes.count else { return nil }
        return (count, Array(bytes[headerBytes..<(headerBytes + length)]))
    }

    /// Only the counter: the supervisor's heartbeat check, a 8-byte pread.
    public static func counter(_ path: String) -> UInt64? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var value: UInt64 = 0
        return pread(fd, &value, 8, 0) == 8 ? UInt64(littleEndian: value) : nil
    }
}
