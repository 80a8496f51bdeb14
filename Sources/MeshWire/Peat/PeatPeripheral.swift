import Foundation

/// A peripheral (a wearable or sensor under a node), peat-btle `Peripheral`, little-endian:
/// `id u32 | parent u32 | type u8 | callsign[12] | health[4] | has_event u8 | event[9]? |
///  timestamp u64 ms | has_location u8 | location[9...17]?`. The `has_location` byte may be
/// absent (pre-rc.7 encoders): 34 bytes is the smallest peripheral.
public struct PeatPeripheral: WireFormat, NeutralForm {
    public static let formatID: FormatID = "peat.peripheral"
    public static let minimumSize = 34
    static let callsignSize = 12

    public enum Kind: UInt8, Sendable, CaseIterable { case unknown = 0, soldierSensor, fixedSensor, relay }
    public enum EventType: UInt8, Sendable, CaseIterable { case none = 0, ping, needAssist, emergency, moving, inPosition, ack }

    public struct Health: Hashable, Sendable {
        public var battery: UInt8      // 0...100 %
        public var activity: UInt8     // 0 still, 1 walking, 2 running, 3 vehicle
        public var alerts: UInt8       // bit flags, all defined by the app as "custom"
        public var heartRate: UInt8?   // 20...250 bpm; 0 on the wire = absent
    }

    public struct Event: Hashable, Sendable {
        public var type: EventType
        public var timestamp: UInt64   // ms since 1970; 0 = not set
    }

    public struct Location: Hashable, Sendable {
        public var latitude: Float
        public var longitude: Float
        public var altitude: Float?
        public var accuracy: Float?
    }

    public var id: UInt32
    public var parent: UInt32
    public var kind: Kind
    /// The callsign's UTF-8 bytes before the first NUL (at most 12).
    public var callsign: String
    public var health: Health
    public var event: Event?
    public var timestamp: UInt64
    /// nil with `hasLocationByte` false: the legacy 34-byte form without the byte.
    public var location: Location?
    public var hasLocationByte: Bool

    public init(decoding bytes: borrowing ArraySlice<UInt8>) throws(WireError) {
        try self.init(decoding: bytes.span)
    }

    /// The same decoder over borrowed bytes. A peripheral holds no reference to its input (the
    /// callsign, at most 12 bytes, is a small string stored inline), so this decode allocates nothing.
    public init(decoding bytes: Span<UInt8>) throws(WireError) {
        self = try bytes.read { r throws(WireError) in try PeatPeripheral(&r) }
    }

    /// Reads all of `r`.
    init(_ r: inout BorrowedByteReader) throws(WireError) {
        self.init(try Layout(&r), in: r)
    }

    /// The value of a checked layout, its callsign read from `r`'s bytes (checked UTF-8, so the
    /// text keeps them exactly).
    init(_ layout: Layout, in r: BorrowedByteReader) {
        id = layout.id
        parent = layout.parent
        kind = layout.kind
        callsign = r.withBytes(layout.callsign) { String(decoding: $0.assumingMemoryBound(to: UInt8.self), as: UTF8.self) }
        health = layout.health
        event = layout.event
        timestamp = layout.timestamp
        location = layout.location
        hasLocationByte = layout.hasLocationByte
    }

    /// A peripheral read and checked in place: its fields, and where its callsign's text lies
    /// (offsets from the start of the input). The same rules and errors as
    /// `PeatPeripheral(decoding:)`, which is built on it; a document's layout checks its
    /// peripheral section with it without making the callsign's string.
    struct Layout {
        var id: UInt32
        var parent: UInt32
        var kind: Kind
        /// The callsign's bytes before its NUL padding, well-formed UTF-8.
        var callsign: Range<Int>
        var health: Health
        var event: Event?
        var timestamp: UInt64
        var location: Location?
        var hasLocationByte: Bool

        /// Reads all of `r` (a document's peripheral section reads its section this way, inlined:
        /// the layout it only checks is never stored).
        @inline(__always)
        init(_ r: inout BorrowedByteReader) throws(WireError) {
            guard r.count >= PeatPeripheral.minimumSize else {
                throw WireError(.truncated, "peripheral is \(r.count) byte(s), at least \(PeatPeripheral.minimumSize) needed")
            }
            id = try PeatWire.nonZeroNode(try r.readU32LE(), "Peripheral.id")
            parent = try r.readU32LE()
            let k = try r.readU8()
            guard let kind = Kind(rawValue: k) else { throw WireError(.unknownType, "Peripheral.type \(k)") }
            self.kind = kind
            callsign = try PeatPeripheral.callsign(try r.readRange(PeatPeripheral.callsignSize), in: r)
            health = try PeatPeripheral.health(try r.readRange(4), in: r)
            switch try r.readU8() {
            case 0: event = nil
            case 1:
                let t = try r.readU8()
                guard let type = EventType(rawValue: t) else { throw WireError(.unknownType, "Peripheral.event.type \(t)") }
                event = Event(type: type, timestamp: try PeatWire.timestamp(try r.readU64LE(), "Peripheral.event.timestamp", allowZero: true))
            case let b: throw WireError(.valueOutOfRange, "Peripheral.has_event is \(b), must be 0 or 1")
            }
            timestamp = try PeatWire.timestamp(try r.readU64LE(), "Peripheral.timestamp", allowZero: true)
            hasLocationByte = !r.isAtEnd
            location = nil
            if hasLocationByte {
                switch try r.readU8() {
                case 0: break
                case 1: location = try PeatPeripheral.location(&r)
                case let b: throw WireError(.valueOutOfRange, "Peripheral.has_location is \(b), must be 0 or 1")
                }
            }
            try r.expectEnd()
        }
    }

    /// The callsign field's text: its bytes before the first NUL, checked.
    private static func callsign(_ field: Range<Int>, in r: BorrowedByteReader) throws(WireError) -> Range<Int> {
        var end = field.lowerBound
        while end < field.upperBound, r[end] != 0 { end += 1 }
        // NUL padding only: a byte after the first NUL would be lost on re-encoding.
        guard (end..<field.upperBound).allSatisfy({ r[$0] == 0 }) else {
            throw WireError(.valueOutOfRange, "Peripheral.callsign has bytes after its NUL padding")
        }
        // Checked without making a string (UTF8Span's validation, not generic, unlike
        // String(validating:as:), which looked up generic metadata on every decode): decoding
        // into a String would repair ill-formed bytes instead of refusing them.
        // ASCII (the usual callsign) is well-formed: the 12 bytes tested at once first.
        let wellFormed = r.withBytes(field) { raw in
            let highBits = raw.loadUnaligned(as: UInt64.self) | UInt64(raw.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
            return highBits & 0x8080_8080_8080_8080 == 0
        } || r.withBytes(field.lowerBound..<end) { raw in
            (try? UTF8Span(validating: raw.assumingMemoryBound(to: UInt8.self).span)) != nil
        }
        guard wellFormed else { throw WireError(.valueOutOfRange, "Peripheral.callsign is not UTF-8") }
        return field.lowerBound..<end
    }

    private static func health(_ b: Range<Int>, in r: BorrowedByteReader) throws(WireError) -> Health {
        let battery = r[b.lowerBound], activity = r[b.lowerBound + 1], alerts = r[b.lowerBound + 2], heartRate = r[b.lowerBound + 3]
        guard battery <= 100 else { throw WireError(.valueOutOfRange, "Peripheral.health.battery \(battery) % is above 100") }
        guard activity <= 3 else { throw WireError(.valueOutOfRange, "Peripheral.health.activity \(activity) is not 0...3") }
        guard heartRate == 0 || (20...250).contains(heartRate) else {
            throw WireError(.valueOutOfRange, "Peripheral.health.heart_rate \(heartRate) is outside 20...250")
        }
        return Health(battery: battery, activity: activity, alerts: alerts, heartRate: heartRate == 0 ? nil : heartRate)
    }

    private static func location(_ r: inout BorrowedByteReader) throws(WireError) -> Location {
        let lat = Float(bitPattern: try r.readU32LE()), lon = Float(bitPattern: try r.readU32LE())
        guard lat.isFinite, (-90...90).contains(lat) else { throw WireError(.valueOutOfRange, "Peripheral.location.latitude \(lat)") }
        guard lon.isFinite, (-180...180).contains(lon) else { throw WireError(.valueOutOfRange, "Peripheral.location.longitude \(lon)") }
        let flags = try PeatWire.flags(try r.readU8(), defined: 0x03, "Peripheral.location.flags")
        var loc = Location(latitude: lat, longitude: lon)
        if flags & 0x01 != 0 {
            let alt = Float(bitPattern: try r.readU32LE())
            guard alt.isFinite, (-1000...100_000).contains(alt) else { throw WireError(.valueOutOfRange, "Peripheral.location.altitude \(alt)") }
            loc.altitude = alt
        }
        if flags & 0x02 != 0 {
            let acc = Float(bitPattern: try r.readU32LE())
            guard acc.isFinite, acc >= 0 else { throw WireError(.valueOutOfRange, "Peripheral.location.accuracy \(acc)") }
            loc.accuracy = acc
        }
        return loc
    }

    public func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: 64)
        w.writeU32LE(id)
        w.writeU32LE(parent)
        w.writeU8(kind.rawValue)
        let name = Array(callsign.utf8.prefix(Self.callsignSize))
        w.write(name)
        w.write(repeatElement(0, count: Self.callsignSize - name.count))
        w.write([health.battery, health.activity, health.alerts, health.heartRate ?? 0])
        if let event {
            w.writeU8(1)
            w.writeU8(event.type.rawValue)
            w.writeU64LE(event.timestamp)
        } else {
            w.writeU8(0)
        }
        w.writeU64LE(timestamp)
        if let location {
            w.writeU8(1)
            w.writeU32LE(location.latitude.bitPattern)
            w.writeU32LE(location.longitude.bitPattern)
            w.writeU8((location.altitude == nil ? 0 : 1) | (location.accuracy == nil ? 0 : 2))
            if let a = location.altitude { w.writeU32LE(a.bitPattern) }
            if let a = location.accuracy { w.writeU32LE(a.bitPattern) }
        } else if hasLocationByte {
            w.writeU8(0)
        }
        return w.bytes
    }

    public init(neutral: JSONValue) throws(WireError) {
        let f = try JSONFields(neutral, context: "Peripheral")
        id = try f.peatNode("id")
        parent = try f.peatNode("parent")
        let k: UInt8 = try f.integer("type")
        guard let kind = Kind(rawValue: k) else { throw WireError(.unknownType, "Peripheral.type \(k)") }
        self.kind = kind
        callsign = try f.string("callsign")
        guard callsign.utf8.count <= Self.callsignSize, !callsign.utf8.contains(0) else {
            throw WireError(.valueOutOfRange, "Peripheral.callsign is longer than \(Self.callsignSize) bytes or holds a NUL")
        }
        let h = try JSONFields(try f.required("health"), context: "Peripheral.health")
        health = Health(battery: try h.integer("battery"), activity: try h.integer("activity"), alerts: try h.integer("alerts"),
                        heartRate: try h.optionalInteger("heartRate"))
        if let e = f.optional("event") {
            let ef = try JSONFields(e, context: "Peripheral.event")
            let t: UInt8 = try ef.integer("type")
            guard let type = EventType(rawValue: t) else { throw WireError(.unknownType, "Peripheral.event.type \(t)") }
            event = Event(type: type, timestamp: try ef.uint64Text("timestamp"))
        } else {
            event = nil
        }
        timestamp = try f.uint64Text("timestamp")
        if let l = f.optional("location") {
            let lf = try JSONFields(l, context: "Peripheral.location")
            let alt = lf.optional("altitude") == nil ? nil : Float(try lf.double("altitude"))
            let acc = lf.optional("accuracy") == nil ? nil : Float(try lf.double("accuracy"))
            location = Location(latitude: Float(try lf.double("latitude")), longitude: Float(try lf.double("longitude")), altitude: alt, accuracy: acc)
            hasLocationByte = true
        } else {
            location = nil
            hasLocationByte = f.optional("locationByte").map { $0 == .bool(true) } ?? true
        }
        _ = try PeatPeripheral(decoding: encoded())
    }

    public var neutral: JSONValue {
        var health: [(String, JSONValue)] = [("battery", .integer(self.health.battery)), ("activity", .integer(self.health.activity)),
                                             ("alerts", .integer(self.health.alerts))]
        if let hr = self.health.heartRate { health.append(("heartRate", .integer(hr))) }
        var m: [(String, JSONValue)] = [("id", .integer(id)), ("parent", .integer(parent)), ("type", .integer(kind.rawValue)),
                                        ("callsign", .string(callsign)), ("health", .object(health))]
        if let event { m.append(("event", .object([("type", .integer(event.type.rawValue)), ("timestamp", .uint64Text(event.timestamp))]))) }
        m.append(("timestamp", .uint64Text(timestamp)))
        if let location {
            var l: [(String, JSONValue)] = [("latitude", .double(Double(location.latitude))), ("longitude", .double(Double(location.longitude)))]
            if let a = location.altitude { l.append(("altitude", .double(Double(a)))) }
            if let a = location.accuracy { l.append(("accuracy", .double(Double(a)))) }
            m.append(("location", .object(l)))
        } else if !hasLocationByte {
            m.append(("locationByte", .bool(false)))
        }
        return .object(m)
    }
}
