import MeshWire

/// bitchat's fragment reassembly (BITCHAT-R8): by (sender, fragmentID), the first fragment
/// fixing total and originalType, 30 s from the first fragment, at most 128 at once (the
/// oldest is evicted), and a byte budget so no assembly can claim unbounded memory.
struct FragmentReassembly {
    struct Key: Hashable {
        var sender: [UInt8]
        var fragmentID: [UInt8]
    }

    struct Assembly {
        var total: Int
        var originalType: UInt8
        var started: Instant
        var pieces: [Int: [UInt8]] = [:]
        var bytes = 0
    }

    enum Outcome: Equatable {
        /// Stored; more pieces are needed.
        case stored
        /// A repeated index: nothing changed (the first piece held stays).
        case duplicate
        /// Disagrees with the assembly's first fragment, or over the byte budget: not stored.
        case conflicting
        /// The last piece arrived: the concatenated frame, in index order.
        case complete([UInt8])
    }

    static let lifetime: Duration = .seconds(30)
    static let capacity = 128
    /// bitchat Android's cap (`MAX_ACTIVE_FRAGMENT_SETS`), with mutant refuse-new-assembly.
    static let androidCapacity = 64
    /// The app's cap on a framed payload, plus room for a v2 header, ids and a full pad.
    static let maxBytes = BitchatCompression.maxOriginalSize + 512

    let lifetime: Duration
    let capacity: Int
    /// Mutant fragment-key-by-id: ignores the sender, so two senders' fragments mix.
    let keyByIDOnly: Bool
    /// Mutant last-piece-wins: a repeated index replaces the piece held.
    let lastPieceWins: Bool
    /// Mutant rescue-late-fragments: an assembly at least 75 % complete outlives the lifetime.
    let rescueLate: Bool
    /// Mutant refuse-new-assembly: when full, a new assembly is refused, not the oldest evicted.
    let refuseWhenFull: Bool
    /// Mutant drop-set-on-conflict: a disagreeing fragment removes its assembly.
    let dropOnConflict: Bool
    private var assemblies: [Key: Assembly] = [:]

    init(lifetime: Duration = Self.lifetime, capacity: Int = Self.capacity, keyByIDOnly: Bool = false,
         lastPieceWins: Bool = false, rescueLate: Bool = false, refuseWhenFull: Bool = false, dropOnConflict: Bool = false) {
        self.lifetime = lifetime
        self.capacity = capacity
        self.keyByIDOnly = keyByIDOnly
        self.lastPieceWins = lastPieceWins
        self.rescueLate = rescueLate
        self.refuseWhenFull = refuseWhenFull
        self.dropOnConflict = dropOnConflict
    }

    var count: Int { assemblies.count }

    mutating func add(_ fragment: BitchatFragment, from sender: [UInt8], at now: Instant) -> Outcome {
        expire(at: now)
        let key = Key(sender: keyByIDOnly ? [] : sender, fragmentID: fragment.fragmentID)
        if assemblies[key] == nil, assemblies.count >= capacity {
            guard !refuseWhenFull else { return .conflicting }
            if let oldest = assemblies.min(by: { $0.value.started < $1.value.started })?.key { assemblies[oldest] = nil }
        }
        var assembly = assemblies[key] ?? Assembly(total: fragment.total, originalType: fragment.originalType, started: now)
        guard fragment.total == assembly.total, fragment.originalType == assembly.originalType else {
            if dropOnConflict { assemblies[key] = nil }
            return .conflicting
        }
        let held = assembly.pieces[fragment.index]
        if let held, !lastPieceWins || held == fragment.data { return .duplicate }
        let bytes = assembly.bytes - (held?.count ?? 0) + fragment.data.count
        guard bytes <= Self.maxBytes else { return .conflicting }
        assembly.pieces[fragment.index] = fragment.data
        assembly.bytes = bytes
        guard assembly.pieces.count == assembly.total else {
            assemblies[key] = assembly
            return .stored
        }
        assemblies[key] = nil
        var frame: [UInt8] = []
        frame.reserveCapacity(assembly.bytes)
        for i in 0..<assembly.total { frame += assembly.pieces[i] ?? [] }
        return .complete(frame)
    }

    mutating func expire(at now: Instant) {
        assemblies = assemblies.filter { now - $0.value.started < lifetime || rescueLate && $0.value.pieces.count * 4 >= $0.value.total * 3 }
    }
}
