import CMemoryHints

/// Pending timers by (owner, timer id): a node's scheduled relays by their `TimerID`
/// (`RelayScheduler`, owner 0), the simulator's live timers by (node, id).
///
/// A `Dictionary` hashes every key with SipHash (a `Hasher` seeded, fed and finished), which
/// was a tenth of a large simulation's time at one set, one fire and often one cancel per
/// relay. The keys here are counters the node and the simulator make themselves, never chosen
/// by a peer, so a fixed multiply-and-fold spreads them well enough and no seed is needed.
/// Open addressing with linear probing, at most three quarters full; removal shifts the rest of
/// the probe run back (no tombstones). `@inlinable` so that the simulator, another module,
/// runs code specialised for its value type rather than generic code through witnesses.
public struct TimerTable<Value> {
    public struct Key: Equatable {
        public var owner: UInt64
        public var id: UInt64

        @inlinable public init(owner: UInt64, id: UInt64) {
            self.owner = owner
            self.id = id
        }
    }

    @usableFromInline struct Slot {
        @usableFromInline var key: Key
        @usableFromInline var value: Value

        @inlinable init(key: Key, value: Value) {
            self.key = key
            self.value = value
        }
    }

    @usableFromInline var slots: [Slot?] = []
    /// `slots.count - 1` (a power of two), or -1 before the first insert.
    @usableFromInline var mask = -1
    @usableFromInline var entries = 0
    public var count: Int { entries }

    @inlinable public init() {}

    @inlinable static func home(of key: Key, mask: Int) -> Int {
        let product = (key.owner &* 0x9E37_79B9_7F4A_7C15 ^ key.id).multipliedFullWidth(by: 0xBF58_476D_1CE4_E5B9)
        return Int(truncatingIfNeeded: product.high ^ product.low) & mask
    }

    /// The slot holding `key`, if any.
    @inlinable func slot(of key: Key) -> Int? {
        guard mask >= 0 else { return nil }
        var index = Self.home(of: key, mask: mask)
        while let slot = slots[index] {
            if slot.key == key { return index }
            index = (index + 1) & mask
        }
        return nil
    }

    @inlinable public subscript(key: Key) -> Value? {
        guard let index = slot(of: key) else { return nil }
        return slots[index]?.value
    }

    /// Starts loading the slot where a lookup of `key` begins, for a caller that knows it will
    /// look it up soon (the simulator, one event ahead).
    @inlinable public func prefetch(_ key: Key) {
        guard mask >= 0 else { return }
        slots.withUnsafeBufferPointer { meshconform_prefetch($0.baseAddress.unsafelyUnwrapped + Self.home(of: key, mask: mask)) }
    }

    /// Starts loading what an insert or removal of `key` reads: the slot where it looks first
    /// and the storage's header (its count, checked by every access to a slot).
    @inlinable public mutating func prefetchEntry(_ key: Key) {
        guard mask >= 0 else { return }
        prefetch(key)
        withUnsafeMutablePointer(to: &slots) { meshconform_prefetch(UnsafeRawPointer($0).load(as: UnsafeRawPointer.self)) }
    }

    /// Sets the value of `key` and returns the one it replaces.
    @inlinable @discardableResult
    public mutating func updateValue(_ value: Value, forKey key: Key) -> Value? {
        if let index = slot(of: key) {
            let old = slots[index]?.value
            slots[index]?.value = value
            return old
        }
        insert(value, forNewKey: key)
        return nil
    }

    /// Adds `value` under `key`, which is not in the table (an id just made): no lookup first.
    /// Consumed: moved into its slot, not copied (a copy of a relay's entry went through its
    /// type's generic value witness, 120 instructions, and retained what the caller then released).
    @inlinable
    public mutating func insert(_ value: consuming Value, forNewKey key: Key) {
        assert(slot(of: key) == nil, "insert(_:forNewKey:) of a key already present")
        if (count + 1) * 4 > (mask + 1) * 3 { grow() }
        var index = Self.home(of: key, mask: mask)
        while slots[index] != nil { index = (index + 1) & mask }
        slots[index] = Slot(key: key, value: value)
        entries += 1
    }

    /// Removes `key` and returns its value, if it was there.
    @inlinable @discardableResult
    public mutating func removeValue(forKey key: Key) -> Value? {
        guard let index = slot(of: key) else { return nil }
        return remove(at: index)
    }

    /// Removes `key` when `predicate` holds for its value (one lookup for both), returning it.
    @inlinable
    public mutating func removeValue(forKey key: Key, if predicate: (Value) -> Bool) -> Value? {
        guard let index = slot(of: key), let slot = slots[index], predicate(slot.value) else { return nil }
        return remove(at: index)
    }

    /// Removes every entry that matches, returning the values removed.
    @inlinable @discardableResult
    public mutating func removeAll(where predicate: (Key, Value) -> Bool) -> [Value] {
        var kept: [Slot] = [], removed: [Value] = []
        for case let slot? in slots {
            if predicate(slot.key, slot.value) { removed.append(slot.value) } else { kept.append(slot) }
        }
        guard !removed.isEmpty else { return [] }
        slots = Array(repeating: nil, count: slots.count)
        entries = 0
        for slot in kept { insert(slot.value, forNewKey: slot.key) }
        return removed
    }

    /// The values, in no particular order.
    @inlinable public var values: [Value] { slots.compactMap { $0?.value } }

    @inlinable mutating func remove(at index: Int) -> Value? {
        // Moved out, and the entries below swapped, not copied: a copy retains the value's
        // references (a relay's actions) only to release them again.
        let value = slots[index].take()?.value
        entries -= 1
        // Shift back the entries after the hole whose home lies at or before it, so that every
        // entry stays reachable from its home without crossing an empty slot.
        var hole = index, next = (index + 1) & mask
        while let key = slots[next]?.key {
            let home = Self.home(of: key, mask: mask)
            // Is `home` cyclically outside (hole, next]? Then the entry may move into the hole.
            if (next - home) & mask >= (next - hole) & mask {
                slots.swapAt(hole, next)
                hole = next
            }
            next = (next + 1) & mask
        }
        return value
    }

    @inlinable mutating func grow() {
        let old = slots
        let capacity = max(8, (mask + 1) * 2)
        slots = .filled(with: nil, count: capacity)
        mask = capacity - 1
        entries = 0
        for case let slot? in old { insert(slot.value, forNewKey: slot.key) }
    }
}
