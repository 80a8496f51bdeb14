import Foundation
import MeshWire

/// One field of one input, with the values to try in it: `applying` gives the whole input
/// with the field set, every layer around it rebuilt (lengths rewritten, base64 re-encoded).
public struct FieldSite {
    /// The field's path: `hopPath`, `hopPath[0]`, `payload>hopCount` (inside a base64 or
    /// nested unit), `headerLen>seq`.
    public let name: String
    public let values: [FieldValue]
    let set: (FieldValue) -> [UInt8]?

    public func applying(_ value: FieldValue) -> [UInt8]? { set(value) }
}

/// What the vectors (or any seed) put in each JSON key: values to try there besides the
/// type's vocabulary.
public struct FieldTokens: Sendable {
    public private(set) var byKey: [String: [JSONValue]] = [:]
    static let perKey = 24

    public init() {}

    /// Records the scalar values of every key of `bytes` when they are a JSON object.
    public mutating func learn(from bytes: [UInt8]) {
        guard bytes.first == UInt8(ascii: "{"), case .object(let object)? = try? JSONParser.parse(bytes[...]) else { return }
        learn(object)
    }

    private mutating func learn(_ object: JSONObject) {
        for member in object.members {
            switch member.value {
            case .object(let inner): learn(inner)
            case .array(let items): for case .object(let inner) in items.prefix(4) { learn(inner) }
            case .string(let s) where s.utf8.count > 64: break
            case let scalar:
                var list = byKey[member.key, default: []]
                if list.count < Self.perKey, !list.contains(scalar) { list.append(scalar) }
                byKey[member.key] = list
            }
        }
    }
}

/// Field-level mutation from the declarations of `FormatFields` and the values of
/// `FieldVocabulary`: what both engines use for the `field-value` mutation, and what the
/// over-the-air fuzzer uses on the inner message before it rebuilds the layers around it.
public enum FieldMutation {
    /// Every field of `bytes` read as `format`, each with its values. Empty when the format
    /// declares none or the input does not parse far enough (a JSON format that is no JSON).
    public static func sites(of format: FormatID, in bytes: [UInt8], tokens: FieldTokens = FieldTokens()) -> [FieldSite] {
        switch FormatFields.declaration(of: format) {
        case .json(let declared)?:
            guard bytes.first == UInt8(ascii: "{"), let root = try? JSONParser.parse(bytes[...]) else { return [] }
            return jsonSites(root, declared: declared, tokens: tokens, prefix: "", rebuild: { JSONWriter.write($0) })
        case .binary(let layout)?:
            return binarySites(bytes, slots: layout(bytes), tokens: tokens, prefix: "")
        case nil:
            return []
        }
    }

    /// `bytes` with one field set to one of its values, no longer than `maxLength`; nil when
    /// no field of the format is found in it.
    public static func mutate(_ bytes: [UInt8], format: FormatID, tokens: FieldTokens = FieldTokens(), maxLength: Int = .max,
                              rng: inout FuzzRandom) -> [UInt8]? {
        let sites = sites(of: format, in: bytes, tokens: tokens)
        guard !sites.isEmpty else { return nil }
        for _ in 0..<4 {
            let site = rng.pick(sites)
            guard !site.values.isEmpty else { continue }
            if let out = site.applying(rng.pick(site.values)), out.count <= maxLength { return out }
        }
        return nil
    }

    // MARK: JSON

    enum Step: Hashable { case key(String), index(Int) }

    static func jsonSites(_ root: JSONValue, declared: [String: FieldType], tokens: FieldTokens, prefix: String,
                          rebuild: @escaping (JSONValue) -> [UInt8]?) -> [FieldSite] {
        var sites: [FieldSite] = []
        func walk(_ value: JSONValue, _ type: FieldType, _ path: [Step], _ name: String, key: String) {
            let values = FieldVocabulary.values(for: type, current: value, tokens: tokens.byKey[key] ?? [])
            sites.append(FieldSite(name: prefix + name, values: values) { v in
                guard let new = jsonValue(v, current: value, type: type) else { return nil }
                return rebuild(setting(new, at: path[...], in: root))
            })
            switch (type, value) {
            case (.list(let item), .array(let items)) where !items.isEmpty:
                walk(items[0], item == .object ? .inferred(from: items[0]) : item, path + [.index(0)], name + "[0]", key: key)
            case (.object, .object(let object)):
                for m in object.members { walk(m.value, .inferred(from: m.value), path + [.key(m.key)], name + "." + m.key, key: m.key) }
            case (.base64, .string(let text)):
                // Base64 of JSON (a control message's inner message): its fields too, the
                // base64 re-encoded around each mutant.
                guard let data = Data(base64Encoded: text), data.first == UInt8(ascii: "{"),
                      let inner = try? JSONParser.parse(Array(data)[...]) else { break }
                sites += jsonSites(inner, declared: [:], tokens: tokens, prefix: prefix + name + ">") { newInner in
                    rebuild(setting(.string(Data(JSONWriter.write(newInner)).base64EncodedString()), at: path[...], in: root))
                }
            case (.jsonText, .string(let text)):
                guard text.first == "{", let inner = try? JSONParser.parse(text) else { break }
                sites += jsonSites(inner, declared: [:], tokens: tokens, prefix: prefix + name + ">") { newInner in
                    rebuild(setting(.string(JSONWriter.string(newInner)), at: path[...], in: root))
                }
            default: break
            }
        }
        guard case .object(let object) = root else { return [] }
        for m in object.members {
            walk(m.value, declared[m.key] ?? .inferred(from: m.value), [.key(m.key)], m.key, key: m.key)
        }
        return sites
    }

    /// The JSON a field value stands for in a field of `type` holding `current`.
    static func jsonValue(_ value: FieldValue, current: JSONValue, type: FieldType) -> JSONValue? {
        switch value {
        case .json(let v): return v
        case .listLength(let n):
            var items: [JSONValue] = []
            if case .array(let old) = current { items = old }
            if items.isEmpty { items = [sample(of: type)] }
            return .array((0..<n).map { items[$0 % items.count] })
        case .stringLength(let n):
            if type == .base64 { return .string(Data(repeating: 0x41, count: n).base64EncodedString()) }
            return .string(String(repeating: "A", count: n))
        case .unsigned, .resized: return nil
        }
    }

    /// One valid-looking item for a list that has none.
    static func sample(of type: FieldType) -> JSONValue {
        guard case .list(let item) = type else { return .string("A") }
        switch item {
        case .uuid: return .string("E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        case .integer, .number: return .number("1")
        case .bool: return .bool(true)
        default: return .string("A")
        }
    }

    static func setting(_ new: JSONValue, at path: ArraySlice<Step>, in value: JSONValue) -> JSONValue {
        guard let step = path.first else { return new }
        switch (step, value) {
        case (.key(let key), .object(var object)):
            guard let i = object.members.firstIndex(where: { $0.key == key }) else { return value }
            object.members[i].value = setting(new, at: path.dropFirst(), in: object.members[i].value)
            return .object(object)
        case (.index(let i), .array(var items)) where items.indices.contains(i):
            items[i] = setting(new, at: path.dropFirst(), in: items[i])
            return .array(items)
        default:
            return value
        }
    }

    // MARK: binary

    static func binarySites(_ bytes: [UInt8], slots: [BinarySlot], tokens: FieldTokens, prefix: String) -> [FieldSite] {
        var sites: [FieldSite] = []
        for slot in slots where slot.offset + slot.width <= bytes.count {
            let current = slot.kind == .hexDigits ? hexValue(bytes[slot.offset..<(slot.offset + slot.width)]).map(FieldValue.unsigned)
                : FormatFields.read(bytes, slot.offset, slot.width, bigEndian: slot.bigEndian).map { FieldValue.unsigned(UInt64($0)) }
            let values = binaryValues(slot).filter { $0 != current }
            sites.append(FieldSite(name: prefix + slot.name, values: values) { v in apply(v, to: slot, in: bytes) })
            if case .nested(let format, let data) = slot.kind {
                sites += sitesOfNested(format, data: data, slot: slot, bytes: bytes, tokens: tokens, prefix: prefix)
            }
        }
        return sites
    }

    /// A unit inside another (relay's frame header, a peat document in an envelope): its
    /// fields, with the outer length rewritten around each mutant.
    static func sitesOfNested(_ format: FormatID, data: Range<Int>, slot: BinarySlot, bytes: [UInt8], tokens: FieldTokens, prefix: String) -> [FieldSite] {
        sites(of: format, in: Array(bytes[data]), tokens: tokens).map { site in
            FieldSite(name: prefix + slot.name + ">" + site.name, values: site.values) { v in
                site.applying(v).flatMap { replacing(data, with: $0, lengthAt: slot, in: bytes) }
            }
        }
    }

    static func binaryValues(_ slot: BinarySlot) -> [FieldValue] {
        // A hex-digit field holds half a byte per digit.
        let bytes = slot.kind == .hexDigits ? (slot.width + 1) / 2 : slot.width
        let max: UInt64 = bytes >= 8 ? .max : (1 << UInt64(8 * bytes)) - 1
        let sizes = FieldVocabulary.lengths.map(UInt64.init) + FieldVocabulary.around(slot.limits).filter { $0 <= 4096 }
        if case .implied = slot.kind {
            var seen = Set<UInt64>()
            return sizes.filter { seen.insert($0).inserted }.map { FieldValue.resized(Int($0)) }
        }
        let boundaries = (FieldVocabulary.around(slot.limits).filter { $0 <= max } + FieldVocabulary.unsignedValues(width: bytes)).map(FieldValue.unsigned)
        switch slot.kind {
        case .unsigned, .hexDigits:
            return boundaries
        case .enumeration(let cases):
            // Every value of the page, then its neighbours and the extremes.
            var values = cases
            values += [0, max, (cases.max() ?? 0) &+ 1].filter { $0 <= max && !cases.contains($0) }
            return values.map(FieldValue.unsigned)
        case .flags(let defined):
            var values: [UInt64] = [0, defined, max, max & ~defined]
            values += (0..<min(8, 8 * slot.width)).map { 1 << UInt64($0) }
            var seen = Set<UInt64>()
            return values.filter { seen.insert($0).inserted }.map(FieldValue.unsigned)
        case .count, .length, .nested, .implied:
            // Resized: the items or bytes behind follow (kept to a few KiB); the others lie.
            return boundaries + sizes.filter { $0 <= max }.map { FieldValue.resized(Int($0)) }
        }
    }

    static func apply(_ value: FieldValue, to slot: BinarySlot, in bytes: [UInt8]) -> [UInt8]? {
        switch value {
        case .unsigned(let v) where slot.kind == .hexDigits:
            let digits = Array("0123456789ABCDEF".utf8)
            var out = bytes
            for k in 0..<slot.width { out[slot.offset + k] = digits[Int(v >> (4 * UInt64(slot.width - 1 - k)) & 0xF)] }
            return out
        case .unsigned(let v):
            var out = bytes
            write(v, slot, into: &out)
            return out
        case .resized(let n):
            switch slot.kind {
            case .count(let itemsAt, let itemSize):
                let current = FormatFields.read(bytes, slot.offset, slot.width, bigEndian: slot.bigEndian) ?? 0
                let end = min(bytes.count, itemsAt + current * itemSize)
                guard itemsAt <= end else { return nil }
                let items = Array(bytes[itemsAt..<end])
                var out = bytes
                out.replaceSubrange(itemsAt..<end, with: cycled(items, count: n * itemSize))
                write(UInt64(n), slot, into: &out)
                return out
            case .length(let data), .nested(_, let data):
                return replacing(data, with: cycled(Array(bytes[data]), count: n), lengthAt: slot, in: bytes)
            case .implied(let data):
                var out = bytes
                out.replaceSubrange(data, with: cycled(Array(bytes[data]), count: n))
                return out
            default:
                return nil
            }
        default:
            return nil
        }
    }

    /// `bytes` with `data` replaced by `new` and the length in `slot` rewritten; nil when the
    /// new length does not fit the field.
    static func replacing(_ data: Range<Int>, with new: [UInt8], lengthAt slot: BinarySlot, in bytes: [UInt8]) -> [UInt8]? {
        guard slot.width >= 8 || new.count < 1 << (8 * slot.width) else { return nil }
        var out = bytes
        out.replaceSubrange(data, with: new)
        write(UInt64(new.count), slot, into: &out)
        return out
    }

    /// The number `text` holds in hexadecimal digits (either case), if it is one.
    static func hexValue(_ text: ArraySlice<UInt8>) -> UInt64? { UInt64(String(decoding: text, as: UTF8.self), radix: 16) }

    static func cycled(_ pattern: [UInt8], count: Int) -> [UInt8] {
        let source = pattern.isEmpty ? [0x41] : pattern
        return (0..<count).map { source[$0 % source.count] }
    }

    static func write(_ value: UInt64, _ slot: BinarySlot, into b: inout [UInt8]) {
        for k in 0..<slot.width {
            b[slot.offset + k] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(slot.bigEndian ? slot.width - 1 - k : k)))
        }
    }
}
