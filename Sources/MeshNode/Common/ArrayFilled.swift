extension Array {
    /// `Array(repeating: value, count: count)`, allocated through `reserveCapacity`, which is
    /// specialized for `Element` where it is called. `Array(repeating:count:)` and
    /// `Array(unsafeUninitializedCapacity:)` allocate through a generic function of the standard
    /// library that looks the storage type up in the runtime's metadata cache on every call
    /// (about 600 instructions): a large simulated mesh grows its nodes' tables hundreds of
    /// thousands of times.
    /// Internal: `TimerTable`'s inlinable code uses it, nothing outside the module needs it.
    @inlinable
    static func filled(with value: Element, count: Int) -> [Element] {
        var array: [Element] = []
        array.reserveCapacity(count)
        array.append(contentsOf: repeatElement(value, count: count))
        return array
    }
}
