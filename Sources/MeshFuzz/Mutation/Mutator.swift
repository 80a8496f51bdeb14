import MeshWire

/// Turns one input into a nearby one: a small stack of generic and format-aware mutations.
/// Format awareness comes from the target's binary layout (fixed fields), from reading the
/// input itself (JSON keys, UUID text, base64 strings), and from the format's declared fields
/// (`FormatFields`: the `field-value` mutation).
public struct Mutator: Sendable {
    public let layout: [BinaryField]
    public let dictionary: [[UInt8]]
    public let maxLength: Int
    /// The format whose declared fields (`FormatFields`) the `field-value` mutation sets.
    public let format: FormatID?
    /// What the seeds (the vectors) put in each JSON key, tried there too.
    public private(set) var tokens = FieldTokens()
    public var schedule = MutationSchedule()

    public init(layout: [BinaryField] = [], dictionary: [[UInt8]] = [], format: FormatID? = nil, maxLength: Int = 4096) {
        self.layout = layout
        self.dictionary = Self.sharedDictionary + dictionary
        self.format = format.flatMap { FormatFields.declaration(of: $0) == nil ? nil : $0 }
        self.maxLength = maxLength
    }

    public init(target: FuzzTarget, maxLength: Int = 4096) {
        self.init(layout: target.layout, dictionary: target.dictionary, format: target.id, maxLength: maxLength)
    }

    /// Takes the values of a seed's fields as tokens for the `field-value` mutation.
    public mutating func learn(from seed: [UInt8]) { tokens.learn(from: seed) }

    static let interesting8: [UInt8] = [0x00, 0x01, 0x02, 0x7F, 0x80, 0xFE, 0xFF, 0x10, 0x20, 0x40, 0x22, 0x7B, 0x7D, 0x5B, 0x5D, 0x2C, 0x3A, 0x5C]
    static let interesting64: [UInt64] = [0, 1, 2, 7, 8, 15, 16, 0x7F, 0x80, 0xFF, 0x100, 0x1FF, 0x200, 0x7FFF, 0x8000, 0xFFFF, 0x1_0000,
                                          0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, 0x20_0000_0000_0000, .max / 2, .max]
    /// JSON and dialect tokens: values of every kind, numbers at the edges of their types, and
    /// the keys the dialects use.
    static let sharedDictionary: [[UInt8]] = [
        "0", "-1", "255", "256", "-0", "1.5", "8.0", "1e999", "1e-999", "9007199254740993", "18446744073709551615",
        "18446744073709551616", "-9223372036854775809", "null", "true", "false", "\"\"", "[]", "{}", "[[[[[[[[", "\"A\"",
        "\\u0000", "\\ud800", "\"\\/\"", "\"QQ==\"", "\"QQ=\"", "\"====\"", "\"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\"",
        "\"e621e1f8-c36c-495a-93fc-0c247a3e6e5f\"", "\"2024-01-01T00:00:00Z\"", "\"type\"", "\"ttl\"", "\"payload\"",
        "\"chunkIndex\"", "\"totalChunks\"", "\"flags\"", "\"hopPath\"", "\"messageID\"", "\"origin\"", "\"dest\"", "\"seq\"",
    ].map { Array($0.utf8) }

    /// A mutated copy of `input`; `other` is a second corpus input for splicing. Returns the
    /// kinds applied, for the schedule's credit.
    public mutating func mutate(_ input: [UInt8], other: [UInt8], rng: inout FuzzRandom) -> (bytes: [UInt8], kinds: [MutationKind]) {
        var bytes = input
        var kinds: [MutationKind] = []
        let count = 1 + rng.below(4)
        for _ in 0..<count {
            let kind = schedule.draw(&rng)
            if apply(kind, to: &bytes, other: other, rng: &rng) { kinds.append(kind) }
        }
        if bytes.count > maxLength { bytes.removeLast(bytes.count - maxLength) }
        if kinds.isEmpty {
            // Nothing applied (an empty input, a JSON mutation on binary): one sure change.
            _ = apply(.insertBytes, to: &bytes, other: other, rng: &rng)
            kinds.append(.insertBytes)
        }
        return (bytes, kinds)
    }

    /// Applies one mutation; false when it does not fit this input.
    public func apply(_ kind: MutationKind, to b: inout [UInt8], other: [UInt8], rng: inout FuzzRandom) -> Bool {
        switch kind {
        case .bitFlip:
            guard !b.isEmpty else { return false }
            b[rng.below(b.count)] ^= 1 << UInt8(rng.below(8))
        case .byteFlip:
            guard !b.isEmpty else { return false }
            let i = rng.below(b.count)
            b[i] = rng.oneIn(2) ? rng.pick(Self.interesting8) : UInt8(truncatingIfNeeded: rng.next())
        case .interestingInteger:
            let width = [1, 2, 4, 8][rng.below(4)]
            guard b.count >= width else { return false }
            write(rng.pick(Self.interesting64), width: width, bigEndian: rng.oneIn(2), at: rng.below(b.count - width + 1), into: &b)
        case .arithmetic:
            guard !b.isEmpty else { return false }
            let i = rng.below(b.count)
            let delta = UInt8(1 + rng.below(16))
            b[i] = rng.oneIn(2) ? b[i] &+ delta : b[i] &- delta
        case .insertBytes:
            let n = 1 + rng.below(8)
            let filler: [UInt8] = rng.oneIn(2) ? (0..<n).map { _ in rng.pick(Self.interesting8) } : Array(repeating: UInt8(truncatingIfNeeded: rng.next()), count: n)
            b.insert(contentsOf: filler, at: rng.below(b.count + 1))
        case .eraseRange:
            guard !b.isEmpty else { return false }
            let start = rng.below(b.count)
            b.removeSubrange(start..<min(b.count, start + 1 + rng.below(16)))
        case .duplicateRange:
            guard !b.isEmpty else { return false }
            let start = rng.below(b.count)
            let slice = b[start..<min(b.count, start + 1 + rng.below(32))]
            b.insert(contentsOf: slice, at: rng.below(b.count + 1))
        case .truncate:
            guard !b.isEmpty else { return false }
            b.removeLast(1 + rng.below(b.count))
        case .splice:
            guard !other.isEmpty else { return false }
            let keep = rng.below(b.count + 1)
            b = Array(b.prefix(keep)) + other.suffix(1 + rng.below(other.count))
        case .dictionaryToken:
            let token = rng.pick(dictionary)
            let at = rng.below(b.count + 1)
            if rng.oneIn(2), at < b.count {
                b.replaceSubrange(at..<min(b.count, at + token.count), with: token)
            } else {
                b.insert(contentsOf: token, at: at)
            }
        case .lengthField:
            return mutateField(roles: [.length], in: &b, rng: &rng) || JSONText.replaceValue(ofKeys: ["length", "headerLen", "payloadLength", "size"], in: &b, rng: &rng)
        case .ttlHop:
            return mutateField(roles: [.ttl], in: &b, rng: &rng) || JSONText.replaceValue(ofKeys: ["ttl", "hop", "hops", "hopCount", "maxHops"], in: &b, rng: &rng)
        case .typeMarker:
            if mutateField(roles: [.type], in: &b, rng: &rng) { return true }
            if JSONText.replaceValue(ofKeys: ["type", "kind", "version"], in: &b, rng: &rng) { return true }
            guard !b.isEmpty else { return false }
            // Most binary units start with their type or marker byte.
            b[0] = rng.oneIn(2) ? rng.pick(Self.interesting8) : UInt8(truncatingIfNeeded: rng.next())
        case .jsonKey:
            return JSONText.mutateKey(in: &b, rng: &rng)
        case .jsonValue:
            return JSONText.replaceAnyValue(in: &b, with: rng.pick(dictionary), rng: &rng)
        case .uuidText:
            return JSONText.mutateUUID(in: &b, rng: &rng)
        case .chunkIndex:
            return mutateField(roles: [.index], in: &b, rng: &rng)
                || JSONText.replaceValue(ofKeys: ["chunkIndex", "totalChunks", "index", "total", "fragmentIndex", "fragmentTotal"], in: &b, rng: &rng)
        case .base64Payload:
            return JSONText.mutateBase64(in: &b, rng: &rng)
        case .flags:
            return mutateField(roles: [.flags], in: &b, rng: &rng)
                || JSONText.replaceValue(ofKeys: ["flags", "compressed", "isCompressed", "padding", "padded"], in: &b, rng: &rng)
        case .fieldValue:
            guard let format, let mutant = FieldMutation.mutate(b, format: format, tokens: tokens, maxLength: maxLength, rng: &rng) else { return false }
            b = mutant
        }
        return true
    }

    private func mutateField(roles: Set<BinaryField.Role>, in b: inout [UInt8], rng: inout FuzzRandom) -> Bool {
        let fields = layout.filter { roles.contains($0.role) && $0.offset + $0.width <= b.count }
        guard !fields.isEmpty else { return false }
        let field = rng.pick(fields)
        let current = read(width: field.width, bigEndian: field.bigEndian, at: field.offset, from: b)
        let value: UInt64
        switch rng.below(4) {
        case 0: value = rng.pick(Self.interesting64)
        case 1: value = current &+ UInt64(1 + rng.below(4))
        case 2: value = current &- UInt64(1 + rng.below(4))
        default: value = field.role == .length ? UInt64(b.count - field.offset - field.width) : rng.next()
        }
        write(value, width: field.width, bigEndian: field.bigEndian, at: field.offset, into: &b)
        return true
    }

    func read(width: Int, bigEndian: Bool, at offset: Int, from b: [UInt8]) -> UInt64 {
        var v: UInt64 = 0
        for k in 0..<width { v |= UInt64(b[offset + k]) << (8 * UInt64(bigEndian ? width - 1 - k : k)) }
        return v
    }

    func write(_ value: UInt64, width: Int, bigEndian: Bool, at offset: Int, into b: inout [UInt8]) {
        for k in 0..<width { b[offset + k] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(bigEndian ? width - 1 - k : k))) }
    }
}
