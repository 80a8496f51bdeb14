import Foundation

/// ANNOUNCE: "I am here", sent on every new connection and forwarded while `hopCount` < 2.
public struct PeerAnnounce: ControlContent {
    public static let formatID: FormatID = "blemesh.announce"
    public static let controlType = ControlMessage.Kind.peerAnnounce

    public var deviceID: UUID
    public var deviceName: String
    /// Seconds since 2001-01-01.
    public var timestamp: Double
    public var hopCount: Int

    public init(deviceID: UUID, deviceName: String, timestamp: Double, hopCount: Int) {
        self.deviceID = deviceID
        self.deviceName = deviceName
        self.timestamp = timestamp
        self.hopCount = hopCount
    }

    public init(fields f: JSONFields) throws(WireError) {
        deviceID = try f.uuid("deviceID")
        deviceName = try f.string("deviceName")
        timestamp = try f.double("timestamp")
        hopCount = try BLEMeshJSON.hop(f, "hopCount")
    }

    public var neutral: JSONValue {
        .object([
            ("deviceID", .uuid(deviceID)),
            ("deviceName", .string(deviceName)),
            ("timestamp", .double(timestamp)),
            ("hopCount", .integer(hopCount)),
        ])
    }
}
