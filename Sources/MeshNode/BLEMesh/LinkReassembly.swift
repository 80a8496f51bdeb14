import DequeModule
import Foundation
import MeshWire

/// Chunk reassembly keyed by (link, messageID) (BLEMESH-R4): the first chunk fixes the total,
/// a chunk with another total is discarded, a repeated index is ignored, and the pieces are
/// joined in index order once every index is present. Bounded node-wide: at most 64
/// reassemblies in flight (a 65th evicts the oldest), 1024 x 162 bytes each, and one not
/// complete 300 s after its first chunk is discarded.
///
/// The blemesh app's reassembly (app bug 7) differs in four ways; each is a named mutant here,
/// one visible condition apiece, so the FRG checks can show that they catch it.
struct LinkReassembly {
    struct Key: Hashable {
        var link: LinkID
        var messageID: UUID
    }

    private struct Partial {
        var total: Int
        let started: Instant
        /// Tells this reassembly from an earlier one under the same key in `order`.
        let serial: UInt64
        /// Keyed by index, never preallocated from `total`: memory follows bytes received.
        var pieces: [Int: [UInt8]] = [:]
        var byteCount = 0
    }

    static let maxInFlight = 64
    static let lifetime: Duration = .seconds(300)
    static let maxBytes = MessageChunk.maxTotalChunks * Chunker.payloadPerChunk

    private let faults: Set<Fault>
    private var partials: [Key: Partial] = [:]
    /// First-chunk order, for eviction and expiry; may hold entries already completed.
    private var order: Deque<(key: Key, serial: UInt64)> = []
    private var nextSerial: UInt64 = 0

    init(faults: Set<Fault> = []) { self.faults = faults }

    var count: Int { partials.count }

    /// The envelope bytes when `chunk` completes one, nil otherwise. The decoder has already
    /// checked 0 <= chunkIndex < totalChunks <= 1024.
    mutating func add(_ chunk: MessageChunk, on link: LinkID, at now: Instant) -> [UInt8]? {
        expire(at: now)
        // Mutant reassemble-by-message-id: one reassembly per messageID, whatever the link.
        let key = Key(link: faults.contains(.reassembleByMessageID) ? LinkID(0) : link, messageID: chunk.messageID)
        let isNew = partials[key] == nil
        var partial = partials[key] ?? Partial(total: chunk.totalChunks, started: now, serial: nextSerial)
        if chunk.totalChunks != partial.total {
            // Another total than the first chunk's: discarded. Mutant trust-chunk-total: the
            // arriving chunk's total wins.
            guard faults.contains(.trustChunkTotal) else { return nil }
            partial.total = chunk.totalChunks
        }
        // Mutant in-order-chunks-only: anything but the next index is dropped.
        if faults.contains(.inOrderChunksOnly), chunk.chunkIndex != partial.pieces.count { return nil }
        let held = partial.pieces[chunk.chunkIndex]
        // A repeated index is ignored. Mutant overwrite-chunks: the later piece replaces it.
        if held != nil, !faults.contains(.overwriteChunks) { return nil }
        let byteCount = partial.byteCount - (held?.count ?? 0) + chunk.payload.count
        guard byteCount <= Self.maxBytes else {
            partials[key] = nil   // beyond 1024 x 162 bytes: discard that reassembly
            return nil
        }
        partial.pieces[chunk.chunkIndex] = chunk.payload
        partial.byteCount = byteCount
        // `>=` only matters under trust-chunk-total, where held indices may exceed a new total.
        guard partial.pieces.count >= partial.total else {
            if isNew {
                // A 65th reassembly evicts the oldest.
                while partials.count >= Self.maxInFlight, let oldest = order.popFirst() {
                    if isLive(oldest) { partials[oldest.key] = nil }
                }
                order.append((key, partial.serial))
                nextSerial &+= 1
            }
            partials[key] = partial
            return nil
        }
        partials[key] = nil
        var bytes: [UInt8] = []
        bytes.reserveCapacity(partial.byteCount)
        for index in 0..<partial.total { bytes += partial.pieces[index] ?? [] }
        return bytes
    }

    /// Frees the state of a link that went down.
    mutating func drop(link: LinkID) {
        for key in partials.keys where key.link == link { partials[key] = nil }
    }

    private mutating func expire(at now: Instant) {
        guard !faults.contains(.noReassemblyExpiry) else { return }   // mutant
        while let first = order.first {
            guard let partial = partials[first.key], partial.serial == first.serial else {
                order.removeFirst()   // completed or evicted already
                continue
            }
            guard now - partial.started >= Self.lifetime else { break }
            partials[first.key] = nil
            order.removeFirst()
        }
        // Completed entries behind a live head stay queued: compact when they pile up.
        if order.count > 2 * Self.maxInFlight { order = Deque(order.filter(isLive)) }
    }

    private func isLive(_ entry: (key: Key, serial: UInt64)) -> Bool { partials[entry.key]?.serial == entry.serial }
}
