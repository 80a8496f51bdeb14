/// The fuzzer's generator (wyrand): one multiply per draw, because the engine draws several
/// numbers per execution and runs hundreds of thousands of executions a second. Seeded, so a
/// campaign with the same seed and corpus makes the same inputs.
public struct FuzzRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0xA076_1D64_78BD_642F
        let product = state.multipliedFullWidth(by: state ^ 0xE703_7ED1_A0B4_28DB)
        return product.high ^ product.low
    }

    /// Uniform in 0..<n (0 when n <= 1); the modulo bias is irrelevant at these sizes.
    public mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(next() % UInt64(n)) }

    public mutating func oneIn(_ n: Int) -> Bool { below(n) == 0 }

    public mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}
