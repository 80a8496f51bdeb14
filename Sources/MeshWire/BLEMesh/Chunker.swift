import Foundation

/// Splits an encoded message into `MessageChunk`s exactly as BLEMesh's `ChunkCreator` does,
/// so a tester's chunks are indistinguishable from the app's.
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
        let total = (data.count + payloadPerChunk - 1) / payloadPerChunk
        return (0..<total).map { index in
            let start = index * payloadPerChunk
            let end = min(start + payloadPerChunk, data.count)
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
}
