/// One AD structure (Core Supplement Part A): length u8 (type + data), type u8, data.
public enum ADStructure: Hashable, Sendable {
    case flags(UInt8)                                         // 0x01, exactly 1 byte
    case uuids16(complete: Bool, [BluetoothUUID])             // 0x03 complete / 0x02 incomplete
    case uuids32(complete: Bool, [BluetoothUUID])             // 0x05 / 0x04
    case uuids128(complete: Bool, [BluetoothUUID])            // 0x07 / 0x06
    /// Names are bytes as sent (UTF-8 is not enforced: peers send anything); see `AdvertisingData.localName`.
    case localName(complete: Bool, [UInt8])                   // 0x09 complete / 0x08 shortened
    case txPower(Int8)                                        // 0x0A
    case serviceData(BluetoothUUID, [UInt8])                  // 0x16 / 0x20 / 0x21 by UUID size
    case manufacturerData(company: UInt16, [UInt8])           // 0xFF
    case unknown(type: UInt8, [UInt8])

    public var type: UInt8 {
        switch self {
        case .flags: 0x01
        case .uuids16(let c, _): c ? 0x03 : 0x02
        case .uuids32(let c, _): c ? 0x05 : 0x04
        case .uuids128(let c, _): c ? 0x07 : 0x06
        case .localName(let c, _): c ? 0x09 : 0x08
        case .txPower: 0x0A
        case .serviceData(let u, _): u.byteCount == 2 ? 0x16 : u.byteCount == 4 ? 0x20 : 0x21
        case .manufacturerData: 0xFF
        case .unknown(let t, _): t
        }
    }

    /// The data after the type byte.
    public var data: [UInt8] {
        switch self {
        case .flags(let f): [f]
        case .uuids16(_, let u), .uuids32(_, let u), .uuids128(_, let u): u.flatMap(\.littleEndianBytes)
        case .localName(_, let n): n
        case .txPower(let p): [UInt8(bitPattern: p)]
        case .serviceData(let u, let d): u.littleEndianBytes + d
        case .manufacturerData(let c, let d): [UInt8(c & 0xFF), UInt8(c >> 8)] + d
        case .unknown(_, let d): d
        }
    }

    init(type: UInt8, data: ArraySlice<UInt8>) throws(HostWireError) {
        func uuids(_ size: Int) throws(HostWireError) -> [BluetoothUUID] {
            guard data.count % size == 0 else {
                throw HostWireError(.lengthMismatch, "AD type 0x\([type].hostHex): \(data.count) byte(s) is not a list of \(size)-byte UUIDs")
            }
            var out: [BluetoothUUID] = []
            var i = data.startIndex
            while i < data.endIndex { out.append(try BluetoothUUID(littleEndian: data[i..<i + size])); i += size }
            return out
        }
        func exactly(_ n: Int) throws(HostWireError) {
            guard data.count == n else { throw HostWireError(.lengthMismatch, "AD type 0x\([type].hostHex) has \(data.count) byte(s), expected \(n)") }
        }
        func atLeast(_ n: Int) throws(HostWireError) {
            guard data.count >= n else { throw .truncated(need: n, have: data.count, at: 0) }
        }
        switch type {
        case 0x01: try exactly(1); self = .flags(data[data.startIndex])
        case 0x02, 0x03: self = .uuids16(complete: type == 0x03, try uuids(2))
        case 0x04, 0x05: self = .uuids32(complete: type == 0x05, try uuids(4))
        case 0x06, 0x07: self = .uuids128(complete: type == 0x07, try uuids(16))
        case 0x08, 0x09: self = .localName(complete: type == 0x09, Array(data))
        case 0x0A: try exactly(1); self = .txPower(Int8(bitPattern: data[data.startIndex]))
        case 0x16, 0x20, 0x21:
            let size = type == 0x16 ? 2 : type == 0x20 ? 4 : 16
            try atLeast(size)
            self = .serviceData(try BluetoothUUID(littleEndian: data.prefix(size)), Array(data.dropFirst(size)))
        case 0xFF:
            try atLeast(2)
            self = .manufacturerData(company: UInt16(data[data.startIndex]) | UInt16(data[data.startIndex + 1]) << 8, Array(data.dropFirst(2)))
        default: self = .unknown(type: type, Array(data))
        }
    }
}

/// Advertising data or scan response data: a sequence of AD structures.
///
/// A zero length byte ends the significant part (Core Supplement Part A 1.3); what follows must
/// be zero padding, which is kept as a count so the bytes round-trip. Legacy advertising carries
/// at most 31 bytes, extended up to 1650: the decoder accepts any size (it only reads forward).
public struct AdvertisingData: Hashable, Sendable {
    public var structures: [ADStructure]
    /// Zero bytes after the significant part, including the zero length byte.
    public var padding: Int

    public init(_ structures: [ADStructure] = [], padding: Int = 0) {
        self.structures = structures
        self.padding = padding
    }

    /// `truncated` (a structure runs past the end), `lengthMismatch` (a typed field of the wrong
    /// size), `badValue` (non-zero bytes after a zero length byte).
    public init(decoding bytes: ArraySlice<UInt8>) throws(HostWireError) {
        var r = HostReader(bytes)
        structures = []
        padding = 0
        while !r.isAtEnd {
            let at = r.offset
            let length = Int(try r.readU8())
            if length == 0 {
                let rest = r.readRest()
                guard rest.allSatisfy({ $0 == 0 }) else {
                    throw HostWireError(.badValue, "non-zero bytes after the zero length byte at offset \(at)")
                }
                padding = 1 + rest.count
                break
            }
            let type = try r.readU8()
            let data = try r.readBytes(length - 1)
            structures.append(try ADStructure(type: type, data: data))
        }
    }

    public init(decoding bytes: [UInt8]) throws(HostWireError) { try self.init(decoding: bytes[...]) }

    /// A structure's data longer than 254 bytes cannot be expressed; it is cut there (only a
    /// hand-built value can hold one).
    public func encoded() -> [UInt8] {
        var w = HostWriter(capacity: 31)
        for s in structures {
            let d = s.data.prefix(254)
            w.writeU8(UInt8(d.count + 1)); w.writeU8(s.type); w.write(d)
        }
        w.write(repeatElement(0, count: padding))
        return w.bytes
    }

    // MARK: Reading what a tester looks for

    /// Every service UUID listed (complete or incomplete lists, all sizes).
    public var serviceUUIDs: [BluetoothUUID] {
        structures.flatMap { s -> [BluetoothUUID] in
            switch s {
            case .uuids16(_, let u), .uuids32(_, let u), .uuids128(_, let u): u
            default: []
            }
        }
    }

    /// The complete local name if present, else the shortened one, decoded leniently as UTF-8.
    public var localName: String? {
        var short: [UInt8]?
        for s in structures {
            if case .localName(let complete, let n) = s {
                if complete { return String(decoding: n, as: UTF8.self) }
                short = short ?? n
            }
        }
        return short.map { String(decoding: $0, as: UTF8.self) }
    }

    public var flags: UInt8? {
        for s in structures { if case .flags(let f) = s { return f } }
        return nil
    }

    // MARK: Building the tester's own data

    /// LE General Discoverable, BR/EDR not supported: what a connectable tester advertises.
    public static let generalDiscoverableFlags: UInt8 = 0x06

    /// Flags + the complete list of one 128-bit (or 16-bit) service UUID + optionally a name,
    /// shortened (AD type 0x08) to what still fits `limit` bytes (31 for legacy advertising).
    /// Nil when even flags + UUID do not fit.
    public static func forService(_ uuid: BluetoothUUID, name: String? = nil, limit: Int = 31) -> AdvertisingData? {
        var ad = AdvertisingData([.flags(generalDiscoverableFlags)])
        switch uuid.byteCount {
        case 2: ad.structures.append(.uuids16(complete: true, [uuid]))
        case 4: ad.structures.append(.uuids32(complete: true, [uuid]))
        default: ad.structures.append(.uuids128(complete: true, [uuid]))
        }
        guard ad.encoded().count <= limit else { return nil }
        if let name, !name.isEmpty {
            let room = limit - ad.encoded().count - 2
            let bytes = Array(name.utf8)
            if room >= bytes.count {
                ad.structures.append(.localName(complete: true, bytes))
            } else if room > 0 {
                // Cut on a UTF-8 scalar boundary so the shortened name stays valid text.
                var cut = room
                while cut > 0, bytes[cut] & 0xC0 == 0x80 { cut -= 1 }
                if cut > 0 { ad.structures.append(.localName(complete: false, Array(bytes[..<cut]))) }
            }
        }
        return ad
    }
}
