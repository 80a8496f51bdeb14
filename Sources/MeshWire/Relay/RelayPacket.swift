import Foundation

/// A SwiftMeshRelay packet: `type u8 | headerLen u16 BE | header | body`.
public enum RelayPacket: WireFormat, NeutralForm {
    public static let formatID: FormatID = "relay.packet"

    public enum Kind: UInt8, Sendable, CaseIterable {
        case frame = 0x46   // 'F'
        case ack = 0x61     // 'a'
        case beacon = 0x42  // 'B'

        var name: String {
            switch self {
            case .frame: "frame"
            case .ack: "ack"
            case .beacon: "beacon"
            }
        }
    }

    /// A frame carries its (usually sealed) body; acks and beacons have none.
    case frame(FrameHeader, body: [UInt8])
    case ack(RelayAck)
    case beacon(Beacon)

    public var kind: Kind {
        switch self {
        case .frame: .frame
        case .ack: .ack
        case .beacon: .beacon
        }
    }

    public init(decoding bytes: ArraySlice<UInt8>) throws(WireError) {
        // Most packets a node hears are beacons in their canonical encoding: read in place. The
        // general reading below gives the same beacon for these bytes.
        if let beacon = bytes.withUnsafeBufferPointer(Self.canonicalBeacon) {
            self = .beacon(beacon)
            return
        }
        var r = ByteReader(bytes)
        let typeByte = try r.readU8()
        guard let kind = Kind(rawValue: typeByte) else {
            throw WireError(.unknownType, "packet type 0x\(Hex.encode([typeByte]))")
        }
        let headerLength = Int(try r.readU16BE())
        let header = try r.readBytes(headerLength)
        switch kind {
        case .frame:
            self = .frame(try Self.header(FrameHeader.self, header, headerLength), body: Array(r.readRest()))
        case .ack:
            let ack = try RelayAck(decoding: header)
            try r.expectEnd()
            self = .ack(ack)
        case .beacon:
            let beacon = try Self.header(Beacon.self, header, headerLength)
            try r.expectEnd()
            self = .beacon(beacon)
        }
    }

    /// The beacon when `packet` is a beacon packet whose header is exactly the canonical
    /// encoding and fills the rest of it, else nil (then the packet may still be a valid one).
    public static func canonicalBeacon(_ packet: UnsafeBufferPointer<UInt8>) -> Beacon? {
        guard packet.count > 3, packet[0] == Kind.beacon.rawValue, Int(packet[1]) << 8 | Int(packet[2]) == packet.count - 3 else { return nil }
        return Beacon.canonical(UnsafeBufferPointer(rebasing: packet[3...]))
    }

    /// A beacon's origin (its 16 bytes as `UUIDText.words` gives them) and seqNo read where a
    /// canonical encoding has them, without checking the rest of the packet or the UUID's
    /// digits: for a reader that only loads ahead what the beacon's reception will read
    /// (`Node.prefetch(for:)`), for which `canonicalBeacon` did twice the work. Equal to that
    /// beacon's origin and seqNo whenever `canonicalBeacon` reads one; on another packet, nil
    /// or any value (a wrong guess loads a wrong line).
    public static func beaconKeyHint(_ packet: UnsafeBufferPointer<UInt8>) -> (origin: (UInt64, UInt64), seqNo: UInt32)? {
        // 'B', length, {"hop":H,"origin":"<36>","seqNo":N,...
        guard packet.count > 64, let base = packet.baseAddress, base[0] == Kind.beacon.rawValue else { return nil }
        var at = 3 + 7
        while at < 13, base[at] &- UInt8(ascii: "0") < 10 { at += 1 }   // hop: 1 to 3 digits
        at += 11
        guard packet.count - at > 36 + 10 else { return nil }
        let origin = UUIDText.unverifiedWords(base + at)
        at += 36 + 10
        var seqNo: UInt32 = 0
        let end = min(at + 10, packet.count)
        while at < end, case let digit = base[at] &- UInt8(ascii: "0"), digit < 10 {
            seqNo = seqNo &* 10 &+ UInt32(digit)
            at += 1
        }
        return (origin, seqNo)
    }

    /// JSON that ends early inside a length-delimited header means headerLen was too short.
    private static func header<T: WireFormat>(_ type: T.Type, _ bytes: ArraySlice<UInt8>, _ length: Int) throws(WireError) -> T {
        do {
            return try T(decoding: bytes)
        } catch where error.code == .truncated {
            throw WireError(.lengthMismatch, "headerLen \(length) cuts the JSON header short (\(error.detail))")
        }
    }

    public func encoded() -> [UInt8] {
        // One buffer, the header written in place (beacons and frames are written again on
        // every relay).
        switch self {
        case .beacon(let beacon):
            return Self.written(kind: .beacon, headerRoom: Beacon.maxEncodedCount, body: []) { beacon.write(to: $0) }
        case .frame(let header, let body):
            return Self.written(kind: .frame, headerRoom: FrameHeader.maxEncodedCount, body: body) { header.write(to: $0) }
        case .ack(let ack):
            let header = ack.encoded()
            return Self.written(kind: .ack, headerRoom: header.count, body: []) { out in
                header.withUnsafeBytes { out.copyMemory(from: $0.baseAddress.unsafelyUnwrapped, byteCount: $0.count) }
                return header.count
            }
        }
    }

    /// `kind`, the length, the header `write` puts at the pointer it is given (at most
    /// `headerRoom` bytes; it returns how many), then `body`.
    ///
    /// Written on the stack, then appended to an array made by `reserveCapacity`: that path is
    /// specialized for `UInt8` in this module, while `Array(unsafeUninitializedCapacity:)` runs
    /// the standard library's generic allocation, which looks the array's storage type up in the
    /// runtime's metadata cache on every call (about 600 instructions a packet).
    private static func written(kind: Kind, headerRoom: Int, body: [UInt8], _ write: (UnsafeMutableRawPointer) -> Int) -> [UInt8] {
        withUnsafeTemporaryAllocation(byteCount: 3 + headerRoom, alignment: 1) { scratch in
            let out = scratch.baseAddress.unsafelyUnwrapped
            let length = write(out + 3)
            out.storeBytes(of: kind.rawValue, as: UInt8.self)
            out.storeBytes(of: UInt16(length).bigEndian, toByteOffset: 1, as: UInt16.self)
            var packet: [UInt8] = []
            packet.reserveCapacity(3 + length + body.count)
            packet.append(contentsOf: UnsafeBufferPointer(start: out.assumingMemoryBound(to: UInt8.self), count: 3 + length))
            if !body.isEmpty { packet.append(contentsOf: body) }   // a beacon's is (66 instructions a relay)
            return packet
        }
    }

    public init(neutral: JSONValue) throws(WireError) {
        let f = try JSONFields(neutral, context: "RelayPacket")
        let type = try f.string("type")
        let header = try f.required("header")
        switch type {
        case "frame": self = .frame(try FrameHeader(neutral: header), body: try f.optionalHex("body") ?? [])
        case "ack": self = .ack(try RelayAck(neutral: header))
        case "beacon": self = .beacon(try Beacon(neutral: header))
        default: throw WireError(.unknownType, "RelayPacket.type \"\(type)\"")
        }
    }

    public var neutral: JSONValue {
        switch self {
        case .frame(let h, let body): .object([("type", .string("frame")), ("header", h.neutral), ("body", .hex(body))])
        case .ack(let a): .object([("type", .string("ack")), ("header", a.neutral)])
        case .beacon(let b): .object([("type", .string("beacon")), ("header", b.neutral)])
        }
    }
}
