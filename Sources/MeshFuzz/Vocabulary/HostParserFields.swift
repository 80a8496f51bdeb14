import MeshWire

/// The BLE host parsers' fields (`HostParsers.all`), from the Bluetooth Core specification
/// (Vol 4 Part E for HCI, Vol 3 Part A for L2CAP, Part F for ATT, Vol 3 Part C 11 for
/// advertising data; /work/shared/HCI-NOTES.md): all little-endian. A length that frames an
/// inner unit is `nested`, so the inner unit's fields are mutated inside a valid outer one.
extension FormatFields {
    static let hostParsers: [FormatID: Declaration] = [
        "hci.event": .binary(hciEvent),
        "hci.acl": .binary(hciACL),
        "hci.command": .binary(hciCommand),
        "h4.packet": .binary(h4Packet),
        "l2cap.frame": .binary(l2capFrame),
        "l2cap.le-signal": .binary(l2capSignal),
        "att.pdu": .binary(attPDU),
        "adv.data": .binary(advertisingData),
    ]

    /// A connection handle's valid range ends at 0x0EFF; 0x0FFF is the 12-bit field's top.
    static let handleLimits = [0x0EFF, 0x0FFF]

    /// event code | parameter length u8 | parameters, by event.
    static func hciEvent(_ b: [UInt8]) -> [BinarySlot] {
        guard b.count >= 2 else { return [] }
        var slots = [le("code", 0, 1, .enumeration([0x05, 0x0E, 0x0F, 0x10, 0x13, 0x3E]))]
        guard 2 + Int(b[1]) == b.count else { return slots + [le("parameterLength", 1, 1)] }
        slots.append(le("parameterLength", 1, 1, .length(data: 2..<b.count)))
        let fields: [BinarySlot] = switch b[0] {
        case 0x05: [le("status", 2, 1), le("handle", 3, 2, limits: handleLimits), le("reason", 5, 1)]
        case 0x0E: [le("numCommandPackets", 2, 1), le("opcode", 3, 2)]
        case 0x0F: [le("status", 2, 1), le("numCommandPackets", 3, 1), le("opcode", 4, 2)]
        case 0x10: [le("hardwareCode", 2, 1)]
        case 0x13: [le("handle[0]", 3, 2, limits: handleLimits), le("count[0]", 5, 2)]
        case 0x3E:
            [le("subevent", 2, 1, .enumeration([0x01, 0x02, 0x03, 0x0A, 0x12]))] + (b.count > 2 && b[2] == 0x03
                ? [le("status", 3, 1), le("handle", 4, 2, limits: handleLimits), le("interval", 6, 2, limits: [6, 3200]),
                   le("latency", 8, 2, limits: [499]), le("supervisionTimeout", 10, 2, limits: [10, 3200])]
                : [])
        default: []
        }
        return slots + fields.filter { $0.offset + $0.width <= b.count }
    }

    /// handle (12 bits) with packet-boundary and broadcast flags u16 | data length u16 | an
    /// L2CAP frame (or a piece of one).
    static func hciACL(_ b: [UInt8]) -> [BinarySlot] {
        guard b.count >= 4 else { return [] }
        let slots = [le("handle+flags", 0, 2, limits: handleLimits + [0x2000 | 0x0EFF, 0xC000])]
        guard let length = read(b, 2, 2, bigEndian: false), 4 + length == b.count else { return slots + [le("dataLength", 2, 2)] }
        let data = 4..<b.count
        return slots + [le("dataLength", 2, 2, length >= 4 ? .nested("l2cap.frame", data: data) : .length(data: data))]
    }

    /// opcode u16 (OGF 6 bits, OCF 10) | parameter length u8 | parameters.
    static func hciCommand(_ b: [UInt8]) -> [BinarySlot] {
        guard b.count >= 3 else { return [] }
        let slots = [le("opcode", 0, 2, .enumeration([0x0C03, 0x0C01, 0x1001, 0x1009, 0x2001, 0x2002, 0x2005, 0x2006, 0x2008, 0x200A, 0x200B, 0x200C, 0x200D, 0x200E, 0x0406]))]
        guard 3 + Int(b[2]) == b.count else { return slots + [le("parameterLength", 2, 1)] }
        return slots + [le("parameterLength", 2, 1, .length(data: 3..<b.count))]
    }

    /// packet indicator | the HCI packet of that type (its fields shifted by one).
    static func h4Packet(_ b: [UInt8]) -> [BinarySlot] {
        guard !b.isEmpty else { return [] }
        let inner: (([UInt8]) -> [BinarySlot])? = switch b[0] {
        case 0x01: hciCommand
        case 0x02: hciACL
        case 0x04: hciEvent
        default: nil
        }
        return [le("indicator", 0, 1, .enumeration([1, 2, 3, 4, 5]))] + (inner?(Array(b.dropFirst())).map { $0.shifted(by: 1) } ?? [])
    }

    /// length u16 | channel id u16 | payload: ATT on 0x0004, LE signalling on 0x0005.
    static func l2capFrame(_ b: [UInt8]) -> [BinarySlot] {
        guard b.count >= 4, let length = read(b, 0, 2, bigEndian: false), let channel = read(b, 2, 2, bigEndian: false) else { return [] }
        let slots = [le("channel", 2, 2, .enumeration([0x0004, 0x0005, 0x0006, 0x0040]))]
        guard 4 + length == b.count else { return slots + [le("length", 0, 2)] }
        let payload = 4..<b.count
        let inner: FormatID? = length == 0 ? nil : channel == 4 ? "att.pdu" : channel == 5 ? "l2cap.le-signal" : nil
        return [le("length", 0, 2, inner.map { .nested($0, data: payload) } ?? .length(data: payload))] + slots
    }

    /// code | identifier (0 is invalid) | length u16 | data, by code.
    static func l2capSignal(_ b: [UInt8]) -> [BinarySlot] {
        guard b.count >= 4 else { return [] }
        var slots = [le("code", 0, 1, .enumeration([0x01, 0x06, 0x07, 0x12, 0x13, 0x14, 0x15, 0x16])), le("identifier", 1, 1)]
        guard let length = read(b, 2, 2, bigEndian: false), 4 + length == b.count else { return slots + [le("length", 2, 2)] }
        slots.append(le("length", 2, 2, .length(data: 4..<b.count)))
        switch b[0] {
        case 0x01: slots.append(le("reason", 4, 2, .enumeration([0, 1, 2])))
        case 0x12:
            slots += [le("intervalMin", 4, 2, limits: [6, 3200]), le("intervalMax", 6, 2, limits: [6, 3200]), le("latency", 8, 2, limits: [499]),
                      le("timeout", 10, 2, limits: [10, 3200])]
        case 0x13: slots.append(le("result", 4, 2, .enumeration([0, 1])))
        default: break
        }
        return slots.filter { $0.offset + $0.width <= b.count }
    }

    /// opcode | parameters: handles, handle ranges, offsets and the MTU where the opcode has them.
    static func attPDU(_ b: [UInt8]) -> [BinarySlot] {
        guard !b.isEmpty else { return [] }
        let opcodes: [UInt64] = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x10, 0x11, 0x12, 0x13,
                                 0x16, 0x17, 0x18, 0x19, 0x1B, 0x1D, 0x1E, 0x52, 0xD2]
        let handle = [0x0001, 0xFFFF]
        let fields: [BinarySlot] = switch b[0] {
        case 0x01: [le("requestOpcode", 1, 1, .enumeration(opcodes)), le("handle", 2, 2, limits: handle), le("error", 4, 1)]
        case 0x02, 0x03: [le("mtu", 1, 2, limits: [23, 517])]
        case 0x04, 0x06, 0x08, 0x10: [le("start", 1, 2, limits: handle), le("end", 3, 2, limits: handle)]
        case 0x0A, 0x12, 0x1B, 0x1D, 0x52: [le("handle", 1, 2, limits: handle)]
        case 0x0C, 0x16, 0x17: [le("handle", 1, 2, limits: handle), le("offset", 3, 2, limits: [512])]
        case 0x18: [le("flags", 1, 1, .enumeration([0, 1]))]
        default: []
        }
        return [le("opcode", 0, 1, .enumeration(opcodes))] + fields.filter { $0.offset + $0.width <= b.count }
    }

    /// AD structures: length u8 (of type and data) | AD type | data, to the end.
    static func advertisingData(_ b: [UInt8]) -> [BinarySlot] {
        var slots: [BinarySlot] = []
        var at = 0
        while at + 2 <= b.count, b[at] > 0, at + 1 + Int(b[at]) <= b.count {
            let end = at + 1 + Int(b[at])
            slots += [le("ad@\(at).length", at, 1, .length(data: (at + 1)..<end)),
                      le("ad@\(at).type", at + 1, 1, .enumeration([0x01, 0x02, 0x03, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x16, 0xFF]))]
            at = end
        }
        return slots
    }
}

extension BinarySlot {
    /// The slot of a unit that starts `by` bytes into the input (an HCI packet after its H4 indicator).
    func shifted(by delta: Int) -> BinarySlot {
        var slot = self
        slot.offset += delta
        switch kind {
        case .count(let itemsAt, let itemSize): slot.kind = .count(itemsAt: itemsAt + delta, itemSize: itemSize)
        case .length(let data): slot.kind = .length(data: (data.lowerBound + delta)..<(data.upperBound + delta))
        case .nested(let format, let data): slot.kind = .nested(format, data: (data.lowerBound + delta)..<(data.upperBound + delta))
        case .implied(let data): slot.kind = .implied(data: (data.lowerBound + delta)..<(data.upperBound + delta))
        default: break
        }
        return slot
    }
}
