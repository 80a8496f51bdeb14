import Foundation

/// RREP: the destination's (or a cache's) answer to an RREQ, sent back along its path.
public struct RouteReply: ControlContent {
    public static let formatID: FormatID = "blemesh.rrep"
    public static let controlType = ControlMessage.Kind.routeReply

    /// The RREQ this answers.
    public var requestID: UUID
    /// Who sent the RREQ: the node this reply travels to.
    public var originID: UUID
    /// The node that was found.
    public var destinationID: UUID
    /// "Cached" when an intermediate node answers from its routing table.
    public var destinationName: String
    public var hopCount: Int
    /// The RREQ's path reversed.
    public var hopPath: [UUID]
    /// Seconds since 2001-01-01.
    public var timestamp: Double

    public init(
        requestID: UUID, originID: UUID, destinationID: UUID, destinationName: String,
        hopCount: Int, hopPath: [UUID], timestamp: Double
    ) {
        self.requestID = requestID
        self.originID = originID
        self.destinationID = destinationID
        self.destinationName = destinationName
        self.hopCount = hopCount
        self.hopPath = hopPath
        self.timestamp = timestamp
    }

    public init(fields f: JSONFields) throws(WireError) {
        requestID = try f.uuid("requestID")
        originID = try f.uuid("originID")
        destinationID = try f.uuid("destinationID")
        destinationName = try f.string("destinationName")
        hopCount = try BLEMeshJSON.hop(f, "hopCount")
        hopPath = try f.uuidArray("hopPath")
        timestamp = try f.double("timestamp")
    }

    public var neutral: JSONValue {
        .object([
            ("requestID", .uuid(requestID)),
            ("originID", .uuid(originID)),
            ("destinationID", .uuid(destinationID)),
            ("destinationName", .string(destinationName)),
            ("hopCount", .integer(hopCount)),
            ("hopPath", .array(hopPath.map(JSONValue.uuid))),
            ("timestamp", .double(timestamp)),
        ])
    }
}
