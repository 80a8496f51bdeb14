/// Conventions shared by the BLEMesh formats, kept in one place so every message reads hop
/// fields and sizes the same way.
enum BLEMeshJSON {
    /// BLEMesh declares TTLs and hop counts as `Int`, but every one of them is a hop budget
    /// that no real mesh exceeds; anything outside a byte is hostile or corrupt.
    static let hopRange = 0...255

    static func hop(_ f: JSONFields, _ key: String) throws(WireError) -> Int {
        let value: Int = try f.integer(key, rangeCode: .ttlOutOfRange)
        guard hopRange.contains(value) else {
            throw WireError(.ttlOutOfRange, "\(f.context).\(key): \(value) is outside 0...255")
        }
        return value
    }

    /// Checked before parsing, so an oversized write costs nothing to refuse; also applied to
    /// values built from the neutral form, so `encode` never writes what `decode` refuses.
    static func checkSize(_ count: Int, max: Int, _ context: String) throws(WireError) {
        guard count <= max else {
            throw WireError(.tooLarge, "\(context) is \(count) bytes, above the \(max)-byte maximum")
        }
    }
}
