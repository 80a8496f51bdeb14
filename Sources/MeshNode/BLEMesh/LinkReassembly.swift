import DequeModule
import Foundation
import MeshWire

/// Chunk reassembly keyed by (link, messageID) (BLEMESH-R4), with ChunkAssembler doing the
/// per-envelope work. ChunkAssembler keys by messageID alone, so each in-flight reassembly gets
/// its own assembler (limit 1), and this type bounds them node-wide: at most 64 in flight, a
/// 65th evicts the oldest, and one not complete 300 s after its first chunk is discarded.
struct LinkReassembly {
    struct Key: Hashable {
        var link: LinkID
        var messageID: UUID
    }

    static let maxInFlight = 64
    static let lifetime: Duration = .seconds(300)

    private var partials: [Key: (assembler: ChunkAssembler, started: Instant)] = [:]
    private var order: Deque<Key> = []
    private static let limits = ChunkAssembler.Limits(maxInFlight: 1, lifetime: 300)

    var count: Int { partials.count }

    /// The envelope bytes when `chunk` completes one, nil otherwise.
    mutating func add(_ chunk: MessageChunk, on link: LinkID, at now: Instant) -> [UInt8]? {
        expire(at: now)
        let key = Key(link: link, messageID: chunk.messageID)
        var entry = partials[key] ?? (ChunkAssembler(limits: Self.limits), now)
        let isNew = partials[key] == nil
        let outcome = entry.assembler.add(chunk, now: now.seconds)
        switch outcome {
        case .completed(_, let bytes):
            if !isNew { partials[key] = nil }
            return bytes
        case .incomplete:
            if isNew {
                // BLEMESH-R4: a 65th reassembly evicts the oldest.
                while partials.count >= Self.maxInFlight, let oldest = order.popFirst() { partials[oldest] = nil }
                order.append(key)
            }
            partials[key] = entry
            return nil
        case .duplicate, .rejected:
            // BLEMESH-R4: another total is discarded, a repeated index ignored; a reassembly
            // that grows past 1024 x 162 bytes is discarded.
            if case .rejected(.messageTooLarge) = outcome { partials[key] = nil }
            return nil
        }
    }

    /// Frees the state of every link that went down.
    mutating func drop(link: LinkID) {
        for key in partials.keys where key.link == link { partials[key] = nil }
    }

    private mutating func expire(at now: Instant) {
        // `order` may hold keys already completed; they are skipped here and bounded by
        // maxInFlight plus completions, compacted when the queue doubles.
        while let first = order.first {
            guard let entry = partials[first] else {
                order.removeFirst()
                continue
            }
            guard now - entry.started >= Self.lifetime else { break }
            partials[first] = nil
            order.removeFirst()
        }
        if order.count > 2 * Self.maxInFlight { order = Deque(order.filter { partials[$0] != nil }) }
    }
}
