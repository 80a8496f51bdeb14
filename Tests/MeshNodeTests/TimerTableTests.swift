import Testing
@testable import MeshNode

/// `TimerTable` against a `Dictionary` under random sets, replacements, removals (plain, by
/// predicate, in bulk by key or value) and lookups. Keys come from a small range so that the table's probe runs
/// are long and wrap around its end: removal must shift entries back across the wrap.
@Suite struct TimerTableTests {
    typealias Key = TimerTable<Int>.Key

    @Test(arguments: [1, 2, 3])
    func behavesAsADictionary(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var table = TimerTable<Int>()
        var model: [UInt64: Int] = [:]   // owner * 1000 + id
        func key(_ n: UInt64) -> Key { Key(owner: n / 1000, id: n % 1000) }
        for step in 0..<20_000 {
            let n = (random.next() % 3) * 1000 + random.next() % 60
            switch random.next() % 10 {
            case 0..<4:
                #expect(table.updateValue(step, forKey: key(n)) == model.updateValue(step, forKey: n))
            case 4..<7:
                #expect(table.removeValue(forKey: key(n)) == model.removeValue(forKey: n))
            case 7:
                let odd = { (value: Int) in value % 2 == 1 }
                let expected = model[n].flatMap { odd($0) ? model.removeValue(forKey: n) : nil }
                #expect(table.removeValue(forKey: key(n), if: odd) == expected)
            case 8 where step % 50 == 0:
                // By value, or by key (the simulator removes a failed node's timers by owner).
                let owner = UInt64(step / 50 % 3)
                let removed = model.filter { $0.value % 7 == 0 || ($0.key / 1000 == owner && $0.key % 2 == 0) }
                model = model.filter { removed[$0.key] == nil }
                #expect(table.removeAll { key, value in value % 7 == 0 || (key.owner == owner && key.id % 2 == 0) }.sorted() == removed.values.sorted())
            default:
                #expect(table[key(n)] == model[n])
            }
            #expect(table.count == model.count)
        }
        for n in (0..<3).flatMap({ owner in (0..<60).map { UInt64(owner * 1000 + $0) } }) { #expect(table[key(n)] == model[n]) }
        #expect(table.values.sorted() == model.values.sorted())
    }
}
