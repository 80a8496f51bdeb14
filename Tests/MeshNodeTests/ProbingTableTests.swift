import Testing
@testable import MeshNode

/// `ProbingTable` (what `DedupCache` looks keys up in) against `Dictionary` as the model: the
/// same random inserts, replacements and removals, then every key of the range looked up.
@Suite struct ProbingTableTests {
    /// Keys whose hash is their value mod 16: long probe runs that wrap around the table's end,
    /// so removal must shift entries back across the wrap, not only within a run.
    struct Colliding: Hashable {
        var value: Int
        func hash(into hasher: inout Hasher) { hasher.combine(value % 16) }
    }

    @Test(arguments: [8, 40, 300])
    func agreesWithDictionary(keyRange: Int) {
        var table = ProbingTable<Colliding, Int>()
        var model: [Colliding: Int] = [:]
        var rng = SeededRandom(seed: UInt64(keyRange))
        for step in 0..<20_000 {
            let key = Colliding(value: Int(rng.next() % UInt64(keyRange)))
            if rng.next() % 3 == 0 {
                table[key] = nil
                model[key] = nil
            } else {
                table[key] = step
                model[key] = step
            }
            if step % 97 == 0 {
                #expect(table.count == model.count)
                for value in 0..<keyRange {
                    #expect(table[Colliding(value: value)] == model[Colliding(value: value)], "key \(value) after step \(step)")
                }
            }
        }
        #expect(table.count == model.count)
    }
}
