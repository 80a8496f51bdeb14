/// Every way the mutator changes an input. The engine keeps a score per kind and draws kinds
/// in proportion to how often they led to new behaviour (`MutationSchedule`).
public enum MutationKind: String, CaseIterable, Sendable, Codable {
    // Generic: know nothing about the format.
    case bitFlip = "bit-flip"
    case byteFlip = "byte-flip"
    case interestingInteger = "interesting-integer"
    case arithmetic
    case insertBytes = "insert"
    case eraseRange = "erase"
    case duplicateRange = "duplicate"
    case truncate
    case splice
    case dictionaryToken = "dictionary"
    // Format-aware: aim at fields the decoders branch on.
    case lengthField = "length-field"
    case ttlHop = "ttl-hop"
    case typeMarker = "type-marker"
    case jsonKey = "json-key"
    case jsonValue = "json-value"
    case uuidText = "uuid-text"
    case chunkIndex = "chunk-index"
    case base64Payload = "base64"
    case flags
    // Field-aware: a declared field of the format set to a value that breaks apps
    // (`FieldVocabulary`), the layers around it rebuilt.
    case fieldValue = "field-value"
}

/// Adaptive choice of mutation kinds: each kind's weight is its smoothed rate of finds, so
/// kinds that keep finding new behaviour are drawn more, and none ever drops to zero.
public struct MutationSchedule: Sendable {
    public private(set) var uses: [Int]
    public private(set) var finds: [Int]
    private var cumulative: [Double] = []
    private var total = 0.0

    public init() {
        uses = Array(repeating: 0, count: MutationKind.allCases.count)
        finds = uses
        recompute()
    }

    public mutating func draw(_ rng: inout FuzzRandom) -> MutationKind {
        let x = Double(rng.next() >> 11) / Double(1 << 53) * total
        var lo = 0, hi = cumulative.count - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if cumulative[mid] < x { lo = mid + 1 } else { hi = mid }
        }
        return MutationKind.allCases[lo]
    }

    /// Records that `kinds` made one input, which found something new or not.
    public mutating func credit(_ kinds: [MutationKind], found: Bool) {
        for kind in kinds {
            let i = kind.index
            uses[i] += 1
            if found { finds[i] += 1 }
        }
    }

    /// Weights move slowly: recomputed every few thousand executions by the engine.
    public mutating func recompute() {
        cumulative.removeAll(keepingCapacity: true)
        total = 0
        for i in uses.indices {
            // A prior of one find in 50 uses keeps untried kinds in play.
            total += (Double(finds[i]) + 1) / (Double(uses[i]) + 50)
            cumulative.append(total)
        }
    }
}

extension MutationKind {
    static let indexOf: [MutationKind: Int] = Dictionary(uniqueKeysWithValues: allCases.enumerated().map { ($1, $0) })
    var index: Int { Self.indexOf[self]! }
}
