import Foundation

/// RERR: a link broke, so routes through `unreachableID` must be dropped.
public struct RouteError: ControlContent {
    public static let formatID: FormatID = "blemesh.rerr"
    public static let controlType = ControlMessage.Kind.routeError

    public var errorID: UUID
    public var unreachableID: UUID
    /// The node that noticed the break.
    public var reporterID: UUID
    /// Every destination whose route used the broken link.
    public var affectedDestinations: [UUID]
    /// Seconds since 2001-01-01.
    public var timestamp: Double

    public init(errorID: UUID, unreachableID: UUID, reporterID: UUID, affectedDestinations: [UUID], timestamp: Double) {
        self.errorID = errorID
        self.unreachableID = unreachableID
        self.reporterID = reporterID
        self.affectedDestinations = affectedDestinations
        self.timestamp = timestamp
    }

    public init(fields f: JSONFields) throws(WireError) {
        errorID = try f.uuid("errorID")
        unreachableID = try f.uuid("unreachableID")
        reporterID = try f.uuid("reporterID")
        affectedDestinations = try f.uuidArray("affectedDestinations")
        timestamp = try f.double("timestamp")
    }

    public var neutral: JSONValue {
        .object([
            ("errorID", .uuid(errorID)),
            ("unreachableID", .uuid(unreachableID)),
            ("reporterID", .uuid(reporterID)),
            ("affectedDestinations", .array(affectedDestinations.map(JSONValue.uuid))),
            ("timestamp", .double(timestamp)),
        ])
    }
}
