import Foundation

/// RREQ: a flood looking for a path to `destinationID`, collecting the path as it goes.
public struct RouteRequest: ControlContent {
    public static let formatID: FormatID = "blemesh.rreq"
    public static let controlType = ControlMessage.Kind.routeRequest

    public var requestID: UUID
    public var originID: UUID
    public var destinationID: UUID
    public var originName: String
    /// Hops taken so far; forwarded only while below `ttl`.
    public var hopCount: Int
    /// The reverse route the RREP will follow.
    public var hopPath: [UUID]
    /// Seconds since 2001-01-01 (Foundation's default `Date` encoding).
    public var timestamp: Double
    public var ttl: Int

    public init(
        requestID: UUID, originID: UUID, destinationID: UUID, originName: String,
        hopCount: Int, hopPath: [UUID], timestamp: Double, ttl: Int
    ) {
        self.requestID = requestID
        self.originID = originID
        self.destinationID = destinationID
        self.originName = originName
        self.hopCount = hopCount
        self.hopPath = hopPath
        self.timestamp = timestamp
        self.ttl = ttl
    }

    public init(fields f: JSONFields) throws(WireError) {
        requestID = try f.uuid("requestID")
        originID = try f.uuid("originID")
        destinationID = try f.uuid("destinationID")
        originName = try f.string("originName")
        hopCount = try BLEMeshJSON.hop(f, "hopCount")
        hopPath = try f.uuidArray("hopPath")
        timestamp = try f.double("timestamp")
        ttl = try BLEMeshJSON.hop(f, "ttl")
    }

    public var neutral: JSONValue {
        .object([
            ("requestID", .uuid(requestID)),
            ("originID", .uuid(originID)),
            ("destinationID", .uuid(destinationID)),
            ("originName", .string(originName)),
            ("hopCount", .integer(hopCount)),
            ("hopPath", .array(hopPath.map(JSONValue.uuid))),
            ("timestamp", .double(timestamp)),
            ("ttl", .integer(ttl)),
        ])
    }
}
