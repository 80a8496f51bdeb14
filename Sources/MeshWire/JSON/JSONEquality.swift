extension JSONValue {
    /// Equality of meaning: object key order is ignored and numbers compare by value
    /// (`767923200` equals `767923200.0`, and integers compare exactly at any size).
    public func isEquivalent(to other: JSONValue) -> Bool {
        switch (self, other) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.number(a), .number(b)):
            if a == b { return true }
            if case .value(let na, let ma) = JSONNumberText.integer(a), case .value(let nb, let mb) = JSONNumberText.integer(b) {
                return ma == mb && (na == nb || ma == 0)
            }
            guard let da = Double(a), let db = Double(b) else { return false }
            return da == db
        case let (.array(a), .array(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.isEquivalent(to: $1) }
        case let (.object(a), .object(b)):
            guard a.members.count == b.members.count else { return false }
            return a.members.allSatisfy { m in b[m.key].map { m.value.isEquivalent(to: $0) } ?? false }
        default: return false
        }
    }
}
