import Foundation
import MeshWire

/// One golden-vector file, `Vectors/<format>.json` (shape: docs/vectors.md).
public struct VectorFile: Sendable {
    public var format: FormatID
    public var dialect: String
    public var source: String
    public var notes: [String: String]
    public var tests: [Vector]
    public var path: String

    /// The bytes a decoder takes (valid and acceptable vectors: what one app accepts is input a
    /// device may act on): the seeds of a fuzz campaign.
    public var seeds: [[UInt8]] { tests.filter { $0.result != .invalid }.map(\.bytes) }

    public init(contentsOf path: String) throws(VectorFileError) {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path) }
        self.path = path
        do {
            let f = try JSONFields(parsing: Array(data)[...], context: (path as NSString).lastPathComponent)
            let format = try f.string("format")
            self.format = format
            dialect = try f.string("dialect")
            source = try f.string("source")
            notes = [:]
            if case .object(let o)? = f.optional("notes") {
                for m in o.members { if case .string(let s) = m.value { notes[m.key] = s } }
            }
            tests = try f.array("tests").map { (t: JSONValue) throws(WireError) in try Vector(t, format: format) }
        } catch {
            throw .malformed(path, error.description)
        }
    }

    /// Every `*.json` vector file in `directory` (the schema file excluded), sorted by name.
    public static func loadAll(in directory: String) throws(VectorFileError) -> [VectorFile] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
            throw .unreadable(directory)
        }
        var files: [VectorFile] = []
        for name in names.sorted() where name.hasSuffix(".json") && name != "vectors.schema.json" {
            files.append(try VectorFile(contentsOf: (directory as NSString).appendingPathComponent(name)))
        }
        return files
    }
}

public enum VectorFileError: Error, CustomStringConvertible {
    case unreadable(String)
    case malformed(String, String)

    public var description: String {
        switch self {
        case .unreadable(let path): "cannot read \(path)"
        case .malformed(let path, let why): "\(path) is not a vector file: \(why)"
        }
    }
}

/// One test case of a vector file.
public struct Vector: Sendable, CustomStringConvertible {
    public enum Result: String, Sendable { case valid, invalid, acceptable }

    public var format: FormatID
    public var tcId: Int
    public var comment: String
    public var flags: [String]
    public var bytes: [UInt8]
    public var result: Result
    public var canonical: Bool
    public var decoded: JSONValue?
    public var error: String?
    public var context: JSONValue?
    /// What real implementations answer, from their source: `bitchat-ios` -> `accept` or
    /// `refuse` (docs/vectors.md, "apps"). Empty where no split is known.
    public var apps: [String: String] = [:]

    init(_ value: JSONValue, format: FormatID) throws(WireError) {
        let f = try JSONFields(value, context: "test")
        self.format = format
        tcId = try f.integer("tcId")
        comment = try f.optionalString("comment") ?? ""
        flags = []
        if case .array(let a)? = f.optional("flags") {
            for case .string(let s) in a { flags.append(s) }
        }
        bytes = try f.hex("hex")
        let r = try f.string("result")
        guard let result = Result(rawValue: r) else { throw WireError(.unknownType, "test \(tcId): result \"\(r)\"") }
        self.result = result
        canonical = (f.optional("canonical") == .bool(true))
        decoded = f.optional("decoded")
        error = try f.optionalString("error")
        context = f.optional("context")
        if case .object(let o)? = f.optional("apps") {
            for member in o.members {
                guard case .string(let answer) = member.value, answer == "accept" || answer == "refuse" else {
                    throw WireError(.wrongType, "test \(tcId): apps.\(member.key) is not \"accept\" or \"refuse\"")
                }
                apps[member.key] = answer
            }
        }
        if result == .valid && decoded == nil { throw WireError(.missingField, "test \(tcId): valid without decoded") }
        if result == .invalid && error == nil { throw WireError(.missingField, "test \(tcId): invalid without error") }
    }

    public var description: String { "\(format) #\(tcId) (\(comment))" }
}
