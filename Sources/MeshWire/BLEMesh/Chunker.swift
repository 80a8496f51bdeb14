import Foundation

/// Splits an encoded message into `MessageChunk`s exactly as BLEMesh's `ChunkCreator` does,
/// so a tester's chunks are indistinguishable from the app's, and, for a link that carries
/// smaller values, into smaller pieces that fit it (BLEMESH-R3, BLEMESH-G3).
public enum Chunker {
    /// The MTU BLEMesh assumes; it never negotiates a different one.
    public static let mtu = 182
    /// The app's nominal "chunk header" budget. The real chunk is JSON and far larger, so the
    /// slice size is a historical constant, not a fit to the MTU.
    public static let headerBudget = 20
    public static let payloadPerChunk = mtu - headerBudget

    /// Empty data gives no chunks, as in the app (such a message is never sent). Data above
    /// `MessageChunk.maxTotalChunks` slices still gives every chunk: a tester needs those to
    /// check that a receiver refuses them. Slices of binary data rich in 0xFF can encode above
    /// `MessageChunk.maxSize` (each `/` of their base64 is escaped `\/`); envelope JSON is text
    /// and stays far below it.
    public static func chunks(messageID: UUID, data: [UInt8]) -> [MessageChunk] {
        chunks(messageID: messageID, data: data, pieceSize: payloadPerChunk)
    }

    /// `data` in consecutive pieces of `pieceSize` bytes (at least 1), flags 0x01 on the first
    /// and 0x02 on the last.
    public static func chunks(messageID: UUID, data: [UInt8], pieceSize: Int) -> [MessageChunk] {
        let size = max(1, pieceSize)
        let total = (data.count + size - 1) / size
        return (0..<total).map { index in
            let start = index * size
            let end = min(start + size, data.count)
            var flags: ChunkFlags = []
            if index == 0 { flags.insert(.first) }
            if index == total - 1 { flags.insert(.last) }
            return MessageChunk(
                messageID: messageID, chunkIndex: index, totalChunks: total, flags: flags,
                payload: Array(data[start..<end]))
        }
    }

    /// The chunks BLEMesh writes for an envelope: its JSON, keyed by its id.
    public static func chunks(of envelope: MessageEnvelope) -> [MessageChunk] {
        chunks(messageID: envelope.id, data: envelope.encoded())
    }

    /// The chunks of `envelope` for a link that carries at most `maxUnit` bytes in one value
    /// (a notification: ATT_MTU - 3, BLEMESH-G3): the largest pieces, 162 bytes at most, for
    /// which every chunk's JSON fits. Nil when none do: not even one-byte pieces fit (ATT_MTU
    /// below about 110), or they would need more than 1024 chunks.
    public static func chunks(of envelope: MessageEnvelope, fitting maxUnit: Int) -> [MessageChunk]? {
        let data = envelope.encoded()
        var piece = payloadPerChunk
        while piece >= 1 {
            let chunks = chunks(messageID: envelope.id, data: data, pieceSize: piece)
            let longest = chunks.lazy.map { $0.encoded().count }.max() ?? 0
            if longest <= maxUnit { return chunks.count <= MessageChunk.maxTotalChunks ? chunks : nil }
            // Three bytes of a piece are four base64 characters, eight at most once escaped
            // (`\/`): cutting 3/8 of the excess never cuts more than the fit needs.
            piece -= max(1, (longest - maxUnit) * 3 / 8)
        }
        return nil
    }
}
