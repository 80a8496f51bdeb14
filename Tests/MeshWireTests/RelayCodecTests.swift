import MeshNode
import Foundation
import Testing
@testable import MeshWire

/// The structs SwiftMeshRelay itself encodes (Frame/FrameHeader.swift, Model/Beacon.swift).
private struct AppFrameHeader: Codable { var origin: UUID; var dest: UUID; var ttl: UInt8; var seq: UInt64 }
private struct AppBeacon: Codable { var origin: UUID; var seqNo: UInt32; var ttl: UInt8; var hop: UInt8 }

@Suite("relay codecs")
struct RelayCodecTests {
    let sorted: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = .sortedKeys
        return e
    }()

    func uuid(_ rng: inout SeededRandom) -> UUID {
        let a = rng.next(), b = rng.next()
        return withUnsafeBytes(of: (a, b)) { raw in UUID(uuid: raw.load(as: uuid_t.self)) }
    }

    @Test func seqIsTheBitPatternOfTheCreationTime() {
        #expect(FrameHeader.seq(createdAt: 1_746_230_400.0) == 4_745_111_029_145_403_392)
        #expect(FrameHeader.seq(createdAt: 1_746_230_400.0) == 0x41DA_0557_2000_0000)
    }

    @Test func frameHeaderIsByteIdenticalToTheAppsEncoder() throws {
        var rng = SeededRandom(seed: 1)
        for _ in 0..<1_000 {
            let app = AppFrameHeader(origin: uuid(&rng), dest: uuid(&rng), ttl: UInt8(truncatingIfNeeded: rng.next()), seq: rng.next())
            let ours = FrameHeader(origin: app.origin, dest: app.dest, ttl: app.ttl, seq: app.seq)
            #expect(ours.encoded() == Array(try sorted.encode(app)))
            // The app does not sort keys: any order it writes must read back.
            #expect(try FrameHeader(decoding: Array(JSONEncoder().encode(app))) == ours)
        }
    }

    @Test func beaconIsByteIdenticalToTheAppsEncoder() throws {
        var rng = SeededRandom(seed: 2)
        for _ in 0..<1_000 {
            let app = AppBeacon(origin: uuid(&rng), seqNo: UInt32(truncatingIfNeeded: rng.next()),
                                ttl: UInt8(truncatingIfNeeded: rng.next()), hop: UInt8(truncatingIfNeeded: rng.next()))
            let ours = Beacon(origin: app.origin, seqNo: app.seqNo, ttl: app.ttl, hop: app.hop)
            #expect(ours.encoded() == Array(try sorted.encode(app)))
            #expect(try Beacon(decoding: Array(JSONEncoder().encode(app))) == ours)
        }
    }

    /// `bytes` with one byte (drawn from `edits`, at a random place) written over one
    /// (`way` 0), one removed (1) or one added (2): what the fast-path tests feed both readers.
    func edited(_ bytes: [UInt8], way: Int, with edits: [UInt8], _ rng: inout SeededRandom) -> [UInt8] {
        var bytes = bytes
        let at = Int(rng.next() % UInt64(bytes.count))
        let edit = edits[Int(rng.next() % UInt64(edits.count))]
        switch way {
        case 0: bytes[at] = edit
        case 1: bytes.remove(at: at)
        default: bytes.insert(edit, at: at)
        }
        return bytes
    }

    /// The canonical-form fast path of `Beacon(decoding:)` reads what the JSON parser reads, or
    /// declines: on canonical beacons and on canonical beacons with one byte changed, removed
    /// or added (digits, hex letters of both cases, punctuation, whitespace, leading zeros).
    @Test func beaconFastPathAgreesWithTheParser() throws {
        var rng = SeededRandom(seed: 5)
        let edits = Array("0019aAfF-,:}{\" \t".utf8)
        for i in 0..<3_000 {
            let beacon = Beacon(origin: uuid(&rng), seqNo: i % 3 == 0 ? UInt32.max - UInt32(i % 2) : UInt32(truncatingIfNeeded: rng.next()),
                                ttl: UInt8(truncatingIfNeeded: rng.next()), hop: i % 5 == 0 ? 255 : 0)
            let canonical = beacon.encoded()
            #expect(Beacon.canonical(canonical[...]) == beacon)
            let bytes = edited(canonical, way: i % 3, with: edits, &rng)
            let parsed = try? Beacon(neutral: JSONParser.parse(bytes[...]))
            if let fast = Beacon.canonical(bytes[...]) { #expect(fast == parsed, "\(String(decoding: bytes, as: UTF8.self))") }
            #expect((try? Beacon(decoding: bytes)) == parsed)
        }
    }

    /// The same for `FrameHeader(decoding:)`'s fast path: seq at its bounds (one digit, twenty
    /// digits, past UInt64.max by one), ttl at its bounds, and single-byte edits.
    @Test func frameHeaderFastPathAgreesWithTheParser() throws {
        var rng = SeededRandom(seed: 6)
        let edits = Array("0189aAfF-,:}{\" \t".utf8)
        for i in 0..<3_000 {
            let seq: UInt64 = switch i % 4 {
            case 0: UInt64.max - UInt64(i % 3)
            case 1: UInt64(i % 10)
            default: rng.next()
            }
            let header = FrameHeader(origin: uuid(&rng), dest: uuid(&rng), ttl: i % 5 == 0 ? 255 : UInt8(truncatingIfNeeded: rng.next()), seq: seq)
            let canonical = header.encoded()
            #expect(canonical.withUnsafeBufferPointer(FrameHeader.canonical) == header)
            let bytes = edited(canonical, way: i % 3, with: edits, &rng)
            let parsed = try? FrameHeader(fields: JSONFields(parsing: bytes[...], context: "FrameHeader"), .wire)
            if let fast = bytes.withUnsafeBufferPointer(FrameHeader.canonical) { #expect(fast == parsed, "\(String(decoding: bytes, as: UTF8.self))") }
            #expect((try? FrameHeader(decoding: bytes)) == parsed)
        }
        // One past UInt64.max, in canonical layout: declined by the fast path, refused by the parser.
        let tooLarge = Array(#"{"dest":"D4D7AF1F-9874-2067-1ADE-CAB16BFCEB6F","origin":"21CC33EA-A4B0-5A93-8550-3CABA9B95980","seq":18446744073709551616,"ttl":8}"#.utf8)
        #expect(tooLarge.withUnsafeBufferPointer(FrameHeader.canonical) == nil)
        #expect(throws: WireError.self) { try FrameHeader(decoding: tooLarge) }
    }

    /// The UUID text reader against the rule it implements (hyphens at 8, 13, 18, 23, a hex
    /// digit of either case everywhere else), with every byte value at every position.
    @Test func uuidTextReadsEveryByteAsTheRuleSays() {
        var rng = SeededRandom(seed: 7)
        for _ in 0..<4 {
            let id = uuid(&rng)
            let text = Array(UUIDText.format(id).utf8)
            #expect(UUIDText.format(id) == id.uuidString)
            #expect(UUIDText.parse(text[...]) == id)
            let lowercase = Array(id.uuidString.lowercased().utf8)
            #expect(UUIDText.parse(lowercase[...]) == id)
            // The unchecked reading (loads ahead) reads a UUID's text in either case as it is.
            for spelled in [text, lowercase] {
                #expect(UUIDText.uuid(spelled.withUnsafeBytes { UUIDText.unverifiedWords($0.baseAddress!) }) == id)
            }
            for position in 0..<36 {
                for value in 0...255 {
                    var edited = text
                    edited[position] = UInt8(value)
                    let hyphens = [8, 13, 18, 23]
                    let expected: UUID?
                    if hyphens.contains(position) {
                        expected = value == UInt8(ascii: "-") ? id : nil
                    } else if let digit = UInt8(String(UnicodeScalar(UInt8(value))), radix: 16) {
                        // The same UUID with this digit in place of the original one.
                        let hex = position - hyphens.filter { $0 < position }.count
                        var bytes = withUnsafeBytes(of: id.uuid) { Array($0) }
                        bytes[hex / 2] = hex % 2 == 0 ? bytes[hex / 2] & 0x0F | digit << 4 : bytes[hex / 2] & 0xF0 | digit
                        expected = bytes.withUnsafeBytes { UUID(uuid: $0.load(as: uuid_t.self)) }
                    } else {
                        expected = nil
                    }
                    #expect(UUIDText.parse(edited[...]) == expected, "byte \(value) at \(position)")
                }
            }
        }
    }

    /// The packet-level fast path for beacons (`RelayPacket.canonicalBeacon`, which the node's
    /// prefetch and `RelayPacket(decoding:)` use) reads what the general reading reads, or
    /// declines: canonical beacon packets with one byte of the type, the length field or the
    /// header changed, and with a byte added or cut at the end.
    @Test func beaconPacketFastPathAgreesWithTheGeneralReading() throws {
        var rng = SeededRandom(seed: 6)
        for i in 0..<3_000 {
            let beacon = Beacon(origin: uuid(&rng), seqNo: UInt32(truncatingIfNeeded: rng.next()), ttl: 8, hop: UInt8(i % 256))
            var bytes = RelayPacket.beacon(beacon).encoded()
            #expect(bytes.withUnsafeBufferPointer(RelayPacket.canonicalBeacon) == beacon)
            #expect(Self.hint(bytes) == Self.key(beacon))
            switch i % 4 {
            case 0: bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next())
            case 1: bytes[Int(rng.next() % 3)] ^= 1 << (rng.next() % 8)
            case 2: bytes.append(UInt8(ascii: " "))
            default: bytes.removeLast()
            }
            // The general reading, spelled out: type 'B', headerLen covering exactly the rest,
            // the header read by the JSON parser.
            let length = Int(bytes[1]) << 8 | Int(bytes[2])
            let general = bytes[0] == 0x42 && 3 + length == bytes.count ? try? Beacon(neutral: JSONParser.parse(bytes[3...])) : nil
            let fast = bytes.withUnsafeBufferPointer(RelayPacket.canonicalBeacon)
            if let fast {
                #expect(fast == general, "\(bytes)")
                #expect(Self.hint(bytes) == Self.key(fast), "\(bytes)")
            }
            #expect((try? RelayPacket(decoding: bytes)) == general.map(RelayPacket.beacon))
        }
    }

    /// What `RelayPacket.beaconKeyHint` (the node's loads ahead) reads, as origin and seqNo.
    static func hint(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBufferPointer(RelayPacket.beaconKeyHint).map { "\(UUIDText.uuid($0.origin)) \($0.seqNo)" }
    }

    static func key(_ beacon: Beacon) -> String { "\(beacon.origin) \(beacon.seqNo)" }

    @Test func packetsRoundTrip() throws {
        var rng = SeededRandom(seed: 3)
        for i in 0..<3_000 {
            let packet: RelayPacket
            switch i % 3 {
            case 0:
                let body = (0..<Int(rng.next() % 300)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                packet = .frame(FrameHeader(origin: uuid(&rng), dest: uuid(&rng), ttl: UInt8(truncatingIfNeeded: rng.next()), seq: rng.next()), body: body)
            case 1: packet = .ack(RelayAck(seq: rng.next()))
            default: packet = .beacon(Beacon(origin: uuid(&rng), seqNo: UInt32(truncatingIfNeeded: rng.next()), ttl: 8, hop: 0))
            }
            let bytes = packet.encoded()
            #expect(try RelayPacket(decoding: bytes) == packet)
            #expect(try RelayPacket(neutral: packet.neutral) == packet)
            // A cut anywhere before the body (which is "the rest") is refused, never trapped on.
            var bodyCount = 0
            if case .frame(_, let body) = packet { bodyCount = body.count }
            let cut = Int(rng.next() % UInt64(bytes.count - bodyCount))
            #expect(throws: WireError.self) { _ = try RelayPacket(decoding: bytes[..<cut]) }
        }
    }

    @Test func lengthFieldsArePrecise() throws {
        let header = FrameHeader(origin: UUID(), dest: UUID(), ttl: 8, seq: 1).encoded()
        var past = [UInt8(0x46), 0xff, 0xff] + header
        #expect(code { try RelayPacket(decoding: past) } == .truncated)
        past = [0x46, 0x00, UInt8(header.count - 1)] + header
        #expect(code { try RelayPacket(decoding: past) } == .lengthMismatch)
        #expect(code { try RelayPacket(decoding: [0x58, 0, 0, 0]) } == .unknownType)
        #expect(code { try RelayPacket(decoding: [0x61, 0, 7, 1, 2, 3, 4, 5, 6, 7]) } == .lengthMismatch)
        #expect(code { try RelayPacket(decoding: [0x61, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8, 9]) } == .trailingBytes)
    }

    @Test func sealedBodyOpensBothWaysAndRefusesTampering() throws {
        let alice = try RelayIdentity(privateKey: Array(repeating: 0x11, count: 32))
        let bob = try RelayIdentity(privateKey: Array(repeating: 0x22, count: 32))
        let aliceToBob = try SessionKey(privateKey: alice.privateKey, peerPublicKey: bob.publicKey)
        let bobToAlice = try SessionKey(privateKey: bob.privateKey, peerPublicKey: alice.publicKey)
        #expect(aliceToBob.bytes == bobToAlice.bytes)

        let nonce = Array(0..<12).map(UInt8.init)
        let sealed = try SealedBody.seal(Array("hello mesh".utf8), key: aliceToBob, nonce: nonce)
        #expect(sealed.encoded().count == 12 + 10 + 16)
        #expect(try SealedBody(decoding: sealed.encoded()).open(key: bobToAlice) == Array("hello mesh".utf8))

        for i in [0, 12, sealed.encoded().count - 1] {
            var tampered = sealed.encoded()
            tampered[i] ^= 0x01
            #expect(code { try SealedBody(decoding: tampered).open(key: bobToAlice) } == .authenticationFailed)
        }
        let eve = try RelayIdentity(privateKey: Array(repeating: 0x33, count: 32))
        let wrong = try SessionKey(privateKey: eve.privateKey, peerPublicKey: alice.publicKey)
        #expect(code { try sealed.open(key: wrong) } == .authenticationFailed)
        #expect(code { try SealedBody(decoding: Array(repeating: 0, count: 27)) } == .truncated)
        #expect(code { try SessionKey(privateKey: [1, 2, 3], peerPublicKey: bob.publicKey) } == .badKey)
    }

    @Test func nodeIDIsTheHashPrefixOfThePublicKey() throws {
        let id = try RelayIdentity(privateKey: Array(repeating: 0x11, count: 32))
        let digest = Array(SHA256Digest.of(id.publicKey).prefix(16))
        #expect(withUnsafeBytes(of: id.nodeID.uuid) { Array($0) } == digest)
    }
}

/// The WireError code `body` throws, or nil when it succeeds.
func code<T>(_ body: () throws -> T) -> WireError.Code? {
    do { _ = try body(); return nil } catch let error as WireError { return error.code } catch { return nil }
}

import Crypto
enum SHA256Digest { static func of(_ b: [UInt8]) -> [UInt8] { Array(SHA256.hash(data: b)) } }
