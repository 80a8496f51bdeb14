/// The `flags` byte of a `MessageChunk` (the app's `MessageFlags`).
///
/// BLEMesh only ever sets `first` and `last` and ignores all flags when reassembling, so
/// undefined bits are carried through untouched rather than refused: refusing them would make
/// a conforming receiver stricter than every deployed one.
public struct ChunkFlags: OptionSet, Hashable, Sendable {
    public var rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let first = ChunkFlags(rawValue: 0x01)
    public static let last = ChunkFlags(rawValue: 0x02)
    public static let requiresAck = ChunkFlags(rawValue: 0x04)
    public static let relayed = ChunkFlags(rawValue: 0x08)
    public static let encrypted = ChunkFlags(rawValue: 0x10)

    /// The bits BLEMesh names; the other three are reserved.
    public static let defined: ChunkFlags = [.first, .last, .requiresAck, .relayed, .encrypted]
}
