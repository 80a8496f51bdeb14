import Foundation

/// Reassembles BLEMesh messages from their chunks, in any order, with bounded memory.
///
/// Pure: no clock and no timers. Every call takes `now`, seconds on whatever clock the caller
/// runs (virtual in the simulator, monotonic on a radio), so expiry is deterministic in tests.
///
/// Stricter than the app, whose assembler trusts each chunk's `totalChunks`, lets a duplicate
/// index overwrite the first, and grows without limit until its 60 s sweep: here the first
/// chunk seen fixes a message's total, a chunk never replaces one already held, and every
/// dimension (chunks, bytes, messages, age) has a cap, so hostile input cannot grow state.
/// A rejected chunk leaves the assembler exactly as it was, so forged chunks cannot destroy
/// a genuine partial message. Flags are ignored, as in the app.
public struct ChunkAssembler: Sendable {
    public struct Limits: Hashable, Sendable {
        /// A chunk whose `totalChunks` is above this is refused outright.
        public var maxTotalChunks: Int
        /// Payload bytes one message may accumulate; caps memory per message whatever the
        /// chunk sizes are (the app's own chunks are 162 bytes).
        public var maxMessageBytes: Int
        /// Partial messages held at once (at least 1); a new one beyond this evicts the oldest.
        public var maxInFlight: Int
        /// Seconds a partial message may wait for its missing chunks, counted from its first
        /// chunk (not its latest, so trickling chunks cannot keep a slot alive forever).
        public var lifetime: Double

        public init(
            maxTotalChunks: Int = MessageChunk.maxTotalChunks,
            maxMessageBytes: Int = MessageChunk.maxTotalChunks * Chunker.payloadPerChunk,
            maxInFlight: Int = 64,
            lifetime: Double = 300
        ) {
            self.maxTotalChunks = maxTotalChunks
            self.maxMessageBytes = maxMessageBytes
            self.maxInFlight = maxInFlight
            self.lifetime = lifetime
        }
    }

    public enum Outcome: Hashable, Sendable {
        /// The last missing chunk arrived: the payloads joined in index order.
        case completed(messageID: UUID, bytes: [UInt8])
        /// Stored; more chunks are needed.
        case incomplete
        /// The same index with the same payload is already held: ignored.
        case duplicate
        case rejected(Rejection)
    }

    public enum Rejection: Hashable, Sendable {
        /// `totalChunks` is below 1 or above `Limits.maxTotalChunks`.
        case totalOutOfRange(Int)
        /// `chunkIndex` is negative or not below `totalChunks`.
        case indexOutOfRange(index: Int, total: Int)
        /// The first chunk seen for this message announced another total.
        case totalMismatch(expected: Int, got: Int)
        /// The index is already held with a different payload.
        case conflictingPayload(index: Int)
        /// The message would grow beyond `Limits.maxMessageBytes`.
        case messageTooLarge(bytes: Int)
    }

    private struct Partial: Sendable {
        let total: Int
        let startedAt: Double
        /// Arrival order of first chunks: the eviction order, immune to a clock that steps back.
        let serial: UInt64
        /// Keyed by index, never preallocated from `total`: memory follows bytes received.
        var payloads: [Int: [UInt8]] = [:]
        var byteCount = 0
    }

    public let limits: Limits
    private var partials: [UUID: Partial] = [:]
    private var nextSerial: UInt64 = 0

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Messages waiting for chunks.
    public var inFlightCount: Int { partials.count }

    public var inFlightIDs: Set<UUID> { Set(partials.keys) }

    public mutating func add(_ chunk: MessageChunk, now: Double) -> Outcome {
        expire(now: now)
        let id = chunk.messageID
        let total = chunk.totalChunks
        let index = chunk.chunkIndex
        guard total >= 1, total <= limits.maxTotalChunks else { return .rejected(.totalOutOfRange(total)) }
        guard index >= 0, index < total else { return .rejected(.indexOutOfRange(index: index, total: total)) }

        guard var partial = partials[id] else {
            guard chunk.payload.count <= limits.maxMessageBytes else {
                return .rejected(.messageTooLarge(bytes: chunk.payload.count))
            }
            // A one-chunk message never takes a slot, so it cannot evict anyone.
            if total == 1 { return .completed(messageID: id, bytes: chunk.payload) }
            if partials.count >= max(limits.maxInFlight, 1) { evictOldest() }
            var fresh = Partial(total: total, startedAt: now, serial: nextSerial)
            nextSerial &+= 1
            fresh.payloads[index] = chunk.payload
            fresh.byteCount = chunk.payload.count
            partials[id] = fresh
            return .incomplete
        }

        guard partial.total == total else { return .rejected(.totalMismatch(expected: partial.total, got: total)) }
        if let held = partial.payloads[index] {
            return held == chunk.payload ? .duplicate : .rejected(.conflictingPayload(index: index))
        }
        // byteCount <= maxMessageBytes always holds, so this subtraction cannot overflow.
        guard chunk.payload.count <= limits.maxMessageBytes - partial.byteCount else {
            return .rejected(.messageTooLarge(bytes: partial.byteCount + chunk.payload.count))
        }
        partial.payloads[index] = chunk.payload
        partial.byteCount += chunk.payload.count
        guard partial.payloads.count == partial.total else {
            partials[id] = partial
            return .incomplete
        }
        partials[id] = nil
        var bytes: [UInt8] = []
        bytes.reserveCapacity(partial.byteCount)
        for i in 0..<partial.total {
            // Every index in 0..<total is present: count == total and each key is in range.
            bytes += partial.payloads[i] ?? []
        }
        return .completed(messageID: id, bytes: bytes)
    }

    /// Drops partial messages older than `Limits.lifetime` and returns their ids, oldest
    /// first (their missing chunks timed out). Also runs on every `add`, so a caller without
    /// timers stays bounded.
    @discardableResult
    public mutating func expire(now: Double) -> [UUID] {
        let stale = partials.filter { now - $0.value.startedAt > limits.lifetime }
            .sorted { $0.value.serial < $1.value.serial }
            .map(\.key)
        for id in stale { partials[id] = nil }
        return stale
    }

    private mutating func evictOldest() {
        guard let oldest = partials.min(by: { $0.value.serial < $1.value.serial })?.key else { return }
        partials[oldest] = nil
    }
}
