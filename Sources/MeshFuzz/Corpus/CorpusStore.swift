import Crypto
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder of raw inputs, one per file, named by the SHA-256 of the bytes (Corpus/README.md).
/// Writes are atomic (a temporary file in the same folder, fsync, rename), so a campaign that
/// is killed at any moment leaves whole inputs or none; equal inputs from parallel workers
/// land on one name.
public struct CorpusStore: Sendable {
    public let directory: String

    public init(directory: String) throws(CorpusError) {
        self.directory = directory
        try Self.makeDirectories(directory)
    }

    public static func name(of bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { byte in
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 15)]], as: UTF8.self)
        }.joined()
    }

    /// Saves `bytes` unless an input with the same name is already there; returns the name.
    @discardableResult
    public func add(_ bytes: [UInt8]) throws(CorpusError) -> String {
        let name = Self.name(of: bytes)
        let path = directory + "/" + name
        if access(path, F_OK) == 0 { return name }
        try Self.atomicWrite(bytes, to: path)
        return name
    }

    /// Every input's file name, sorted (so a campaign under a seed starts the same way).
    public func names() -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            // Temporary files start with a dot; sub-folders (regressions/) are not inputs.
            guard !name.hasPrefix("."), isRegularFile(directory + "/" + name) else { continue }
            names.append(name)
        }
        return names.sorted()
    }

    public func read(_ name: String) -> [UInt8]? { Self.readFile(directory + "/" + name) }

    /// Every input, in name order.
    public func loadAll() -> [(name: String, bytes: [UInt8])] {
        names().compactMap { name in read(name).map { (name, $0) } }
    }

    private func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    // MARK: files

    public static func makeDirectories(_ path: String) throws(CorpusError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            prefix += "/" + part
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST { throw CorpusError("cannot create \(prefix): \(String(cString: strerror(errno)))") }
        }
    }

    public static func readFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return n == 0 ? out : nil }
            out.append(contentsOf: chunk[0..<n])
        }
    }

    /// Writes `bytes` to `path` so that `path` holds either its old content or all of `bytes`.
    public static func atomicWrite(_ bytes: [UInt8], to path: String) throws(CorpusError) {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[..<$0]) } ?? "."
        let base = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let temporary = "\(folder)/.\(base).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard fd >= 0 else { throw CorpusError("cannot create \(temporary): \(String(cString: strerror(errno)))") }
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                close(fd); unlink(temporary)
                throw CorpusError("cannot write \(temporary): \(String(cString: strerror(errno)))")
            }
            written += n
        }
        // Without fsync a power cut after the rename can leave an empty file under the name.
        fsync(fd)
        close(fd)
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            throw CorpusError("cannot rename to \(path): \(String(cString: strerror(errno)))")
        }
    }
}

public struct CorpusError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
