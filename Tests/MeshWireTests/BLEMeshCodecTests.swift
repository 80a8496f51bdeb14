import MeshNode
import Foundation
import Testing
@testable import MeshWire

// The structs BLEMesh itself encodes (UpwanSingh/BLEMesh: Models/Message.swift,
// Models/Routing/MessageEnvelope.swift, Models/Routing/RouteMessages.swift), field for field.
private struct AppMessageChunk: Codable {
    let messageID: UUID
    let chunkIndex: Int
    let totalChunks: Int
    let flags: UInt8
    let payload: Data
}

private struct AppMessageEnvelope: Codable {
    let id: UUID
    let originID: UUID
    let originName: String
    let destinationID: UUID?
    let conversationID: UUID?
    let timestamp: Date
    let sequenceNumber: UInt64
    var ttl: Int
    var hopPath: [UUID]
    let isControlMessage: Bool
    let isEncrypted: Bool
    let isGroupMessage: Bool
    let payload: Data
    let signature: Data?
}

private enum AppControlMessageType: String, Codable {
    case routeRequest = "RREQ", routeReply = "RREP", routeError = "RERR"
    case peerAnnounce = "ANNOUNCE", ack = "ACK", readReceipt = "READ"
}

private struct AppControlMessage: Codable {
    let type: AppControlMessageType
    let payload: Data
}

private struct AppRouteRequest: Codable {
    let requestID: UUID
    let originID: UUID
    let destinationID: UUID
    let originName: String
    var hopCount: Int
    var hopPath: [UUID]
    let timestamp: Date
    let ttl: Int
}

private struct AppRouteReply: Codable {
    let requestID: UUID
    let originID: UUID
    let destinationID: UUID
    let destinationName: String
    var hopCount: Int
    var hopPath: [UUID]
    let timestamp: Date
}

private struct AppRouteError: Codable {
    let errorID: UUID
    let unreachableID: UUID
    let reporterID: UUID
    let affectedDestinations: [UUID]
    let timestamp: Date
}

private struct AppPeerAnnounce: Codable {
    let deviceID: UUID
    let deviceName: String
    let timestamp: Date
    var hopCount: Int
}

private struct AppDeliveryAck: Codable {
    let messageID: UUID
    let receiverID: UUID
    let timestamp: Date
}

private struct AppReadReceipt: Codable {
    let messageID: UUID
    let readerID: UUID
    let originalSenderID: UUID
    let timestamp: Date
}

private let sampleIDText = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"

@Suite("blemesh codecs")
struct BLEMeshCodecTests {
    // MARK: helpers

    /// What the test compares against: the app's encoder with keys sorted (our canonical order).
    static func foundation<T: Encodable>(_ value: T, iso8601: Bool = false) throws -> [UInt8] {
        let e = JSONEncoder()
        e.outputFormatting = .sortedKeys
        if iso8601 { e.dateEncodingStrategy = .iso8601 }
        return Array(try e.encode(value))
    }

    /// Exactly what the app writes: no sorting, so keys come in whatever order Foundation picks.
    static func appEncoder<T: Encodable>(_ value: T, iso8601: Bool = false) throws -> [UInt8] {
        let e = JSONEncoder()
        if iso8601 { e.dateEncodingStrategy = .iso8601 }
        return Array(try e.encode(value))
    }

    static func uuid(_ rng: inout SeededRandom) -> UUID {
        let a = rng.next(), b = rng.next()
        return withUnsafeBytes(of: (a, b)) { raw in UUID(uuid: raw.load(as: uuid_t.self)) }
    }

    static func bytes(_ count: Int, _ rng: inout SeededRandom) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    }

    /// Names that exercise the JSON string escapes: quotes, backslash, slash, controls, non-ASCII.
    static let names = ["Alice", "iPhone de Zoé", "a/b \"q\" \\ \n\t\u{01}", "📱 Møller", ""]

    /// Timestamps (seconds since 2001) that stress Double formatting, plus realistic ones.
    static let timestamps: [Double] = [767_923_200, 767_923_200.5, 767_923_200.123456, 0, -1.25, 1e-7, 0.1, 1e21, 123_456_789.987_654_3]

    static func code(_ body: () throws(WireError) -> Void) -> WireError.Code? {
        do { try body() } catch { return error.code }
        return nil
    }

    static func chunkJSON(_ members: String) -> [UInt8] { Array("{\(members)}".utf8) }

    static let idText = sampleIDText
    static let id = UUID(uuidString: sampleIDText)!

    // MARK: MessageChunk

    @Test func chunkRoundTripsAndKeepsReservedFlags() throws {
        var rng = SeededRandom(seed: 10)
        for i in 0..<500 {
            let total = Int(rng.next() % 1024) + 1
            let chunk = MessageChunk(
                messageID: Self.uuid(&rng), chunkIndex: Int(rng.next() % UInt64(total)), totalChunks: total,
                flags: ChunkFlags(rawValue: UInt8(truncatingIfNeeded: i)), payload: Self.bytes(Int(rng.next() % 163), &rng))
            let bytes = chunk.encoded()
            guard bytes.count <= MessageChunk.maxSize else { continue }
            #expect(try MessageChunk(decoding: bytes) == chunk)
            #expect(try MessageChunk(neutral: chunk.neutral) == chunk)
        }
        let reserved = try MessageChunk(decoding: Self.chunkJSON(
            #""messageID":"\#(Self.idText)","chunkIndex":0,"totalChunks":1,"flags":227,"payload":"AA==""#))
        #expect(reserved.flags == ChunkFlags(rawValue: 0xE3))
        #expect(reserved.flags.contains([.first, .last]))
        #expect(!reserved.flags.isSubset(of: .defined))
    }

    @Test func chunkNeutralFormIsHexWithUppercaseUUID() throws {
        let chunk = MessageChunk(messageID: Self.id, chunkIndex: 0, totalChunks: 1, flags: [.first, .last], payload: [0xFF, 0x00, 0x7B])
        let expected = try JSONParser.parse(#"{"messageID":"\#(Self.idText)","chunkIndex":0,"totalChunks":1,"flags":3,"payload":"ff007b"}"#)
        #expect(chunk.neutral.isEquivalent(to: expected))
        #expect(String(decoding: chunk.encoded(), as: UTF8.self)
            == #"{"chunkIndex":0,"flags":3,"messageID":"\#(Self.idText)","payload":"\/wB7","totalChunks":1}"#)
        // Lowercase UUIDs are read (Foundation accepts them) and written uppercase.
        let lower = try MessageChunk(decoding: Self.chunkJSON(
            #""messageID":"\#(Self.idText.lowercased())","chunkIndex":0,"totalChunks":1,"flags":3,"payload":"/wB7""#))
        #expect(lower == chunk)
    }

    @Test(arguments: [
        (#""messageID":"X","chunkIndex":0,"totalChunks":1,"flags":300,"payload":"AA==""#, WireError.Code.badUUID),
        (#""messageID":"\#(sampleIDText)","chunkIndex":0,"totalChunks":1,"flags":256,"payload":"AA==""#, .valueOutOfRange),
        (#""messageID":"\#(sampleIDText)","chunkIndex":0,"totalChunks":1,"flags":-1,"payload":"AA==""#, .valueOutOfRange),
        (#""messageID":"\#(sampleIDText)","chunkIndex":0,"totalChunks":0,"flags":3,"payload":"AA==""#, .chunkIndexOutOfRange),
        (#""messageID":"\#(sampleIDText)","chunkIndex":0,"totalChunks":1025,"flags":3,"payload":"AA==""#, .chunkIndexOutOfRange),
        (#""messageID":"\#(sampleIDText)","chunkIndex":-1,"totalChunks":2,"flags":3,"payload":"AA==""#, .chunkIndexOutOfRange),
        (#""messageID":"\#(sampleIDText)","chunkIndex":2,"totalChunks":2,"flags":3,"payload":"AA==""#, .chunkIndexOutOfRange),
        (#""messageID":"\#(sampleIDText)","chunkIndex":1,"totalChunks":-5,"flags":3,"payload":"AA==""#, .chunkIndexOutOfRange),
        // Fields are read before the cross-check, in declaration order.
        (#""messageID":"\#(sampleIDText)","chunkIndex":5,"totalChunks":2,"flags":3,"payload":"A""#, .badBase64),
        (#""messageID":"\#(sampleIDText)","chunkIndex":0.5,"totalChunks":1,"flags":3,"payload":"AA==""#, .wrongType),
        (#""messageID":"\#(sampleIDText)","chunkIndex":99999999999999999999,"totalChunks":1,"flags":3,"payload":"AA==""#, .valueOutOfRange),
        (#""messageID":"\#(sampleIDText)","chunkIndex":0,"flags":3,"payload":"AA==""#, .missingField),
        (#""messageID":"\#(sampleIDText)","chunkIndex":0,"totalChunks":1,"flags":3,"payload":null"#, .wrongType),
    ])
    func chunkRefuses(_ members: String, _ code: WireError.Code) {
        #expect(Self.code { () throws(WireError) in _ = try MessageChunk(decoding: Self.chunkJSON(members)) } == code)
    }

    @Test func chunkSizeIsCheckedFirst() {
        // 513 bytes of garbage: tooLarge, not badJSON.
        #expect(Self.code { () throws(WireError) in _ = try MessageChunk(decoding: [UInt8](repeating: 0x7B, count: 513)) } == .tooLarge)
        // 512 bytes of valid JSON (padded with whitespace) is fine.
        var exact = Self.chunkJSON(#""messageID":"\#(Self.idText)","chunkIndex":0,"totalChunks":1,"flags":3,"payload":"AA==""#)
        exact += [UInt8](repeating: 0x20, count: 512 - exact.count)
        #expect((try? MessageChunk(decoding: exact)) != nil)
        #expect(Self.code { () throws(WireError) in _ = try MessageChunk(decoding: exact + [0x20]) } == .tooLarge)
        #expect(Self.code { () throws(WireError) in _ = try MessageChunk(decoding: []) } == .truncated)
    }

    // MARK: MessageEnvelope

    static func envelope(_ rng: inout SeededRandom, optionals: Bool) -> MessageEnvelope {
        MessageEnvelope(
            id: uuid(&rng), originID: uuid(&rng), originName: names[Int(rng.next() % UInt64(names.count))],
            destinationID: optionals ? uuid(&rng) : nil, conversationID: optionals ? uuid(&rng) : nil,
            timestamp: Int64(rng.next() % 4_000_000_000), sequenceNumber: rng.next(), ttl: Int(rng.next() % 256),
            hopPath: (0..<Int(rng.next() % 5)).map { _ in uuid(&rng) },
            isControlMessage: rng.next() & 1 == 0, isEncrypted: rng.next() & 1 == 0, isGroupMessage: rng.next() & 1 == 0,
            payload: bytes(Int(rng.next() % 300), &rng), signature: optionals ? bytes(64, &rng) : nil)
    }

    @Test func envelopeRoundTrips() throws {
        var rng = SeededRandom(seed: 20)
        for i in 0..<400 {
            let e = Self.envelope(&rng, optionals: i % 2 == 0)
            #expect(try MessageEnvelope(decoding: e.encoded()) == e)
            #expect(try MessageEnvelope(neutral: e.neutral) == e)
        }
    }

    @Test func envelopeNeutralFormAndOptionals() throws {
        let e = MessageEnvelope(
            id: Self.id, originID: Self.id, originName: "n", timestamp: 1_735_732_800, sequenceNumber: UInt64.max,
            ttl: 3, hopPath: [Self.id], payload: [0xAB])
        let expected = try JSONParser.parse("""
            {"id":"\(Self.idText)","originID":"\(Self.idText)","originName":"n","timestamp":"2025-01-01T12:00:00Z",
             "sequenceNumber":"18446744073709551615","ttl":3,"hopPath":["\(Self.idText)"],"isControlMessage":false,
             "isEncrypted":false,"isGroupMessage":false,"payload":"ab"}
            """)
        #expect(e.neutral.isEquivalent(to: expected))
        let wire = String(decoding: e.encoded(), as: UTF8.self)
        #expect(!wire.contains("destinationID") && !wire.contains("signature") && !wire.contains("null"))
        #expect(wire.contains(#""sequenceNumber":18446744073709551615"#))
        // Explicit null is the same as absent, as with decodeIfPresent.
        let withNulls = Array(wire.dropLast().utf8) + Array(#","destinationID":null,"conversationID":null,"signature":null}"#.utf8)
        #expect(try MessageEnvelope(decoding: withNulls) == e)
    }

    @Test func envelopeRefuses() throws {
        let e = MessageEnvelope(id: Self.id, originID: Self.id, originName: "n", timestamp: 0, sequenceNumber: 1, ttl: 3, hopPath: [], payload: [])
        func wire(_ changes: [String: JSONValue?]) throws -> [UInt8] {
            guard case .object(var o) = try JSONParser.parse(e.encoded()[...]) else { return [] }
            for (key, value) in changes {
                o.members.removeAll { $0.key == key }
                if let value { o.members.append(.init(key: key, value: value)) }
            }
            return JSONWriter.write(.object(o))
        }
        func refusal(_ changes: [String: JSONValue?]) throws -> WireError.Code? {
            let bytes = try wire(changes)
            return Self.code { () throws(WireError) in _ = try MessageEnvelope(decoding: bytes) }
        }
        #expect(try MessageEnvelope(decoding: wire(["ttl": .integer(255)])).ttl == 255)
        #expect(try refusal(["ttl": .integer(256)]) == .ttlOutOfRange)
        #expect(try refusal(["ttl": .integer(-1)]) == .ttlOutOfRange)
        #expect(try refusal(["ttl": .number("1e30")]) == .ttlOutOfRange)
        #expect(try refusal(["ttl": .number("3.5")]) == .wrongType)
        #expect(try refusal(["timestamp": .string("2025-01-01T12:00:00.5Z")]) == .badDate)
        #expect(try refusal(["timestamp": .number("767923200")]) == .wrongType)
        #expect(try refusal(["sequenceNumber": .number("18446744073709551616")]) == .valueOutOfRange)
        #expect(try refusal(["sequenceNumber": .number("-1")]) == .valueOutOfRange)
        #expect(try refusal(["sequenceNumber": .string("1")]) == .wrongType)
        #expect(try refusal(["hopPath": .array([.string("nope")])]) == .badUUID)
        #expect(try refusal(["isGroupMessage": JSONValue?.none]) == .missingField)
        #expect(try refusal(["isEncrypted": .number("0")]) == .wrongType)
        #expect(try refusal(["destinationID": .string("zz")]) == .badUUID)
        #expect(try refusal(["signature": .string("!!")]) == .badBase64)
        #expect(try refusal(["originName": .null]) == .wrongType)
        // The first bad field in declaration order is the one reported (ttl before hopPath).
        #expect(try refusal(["ttl": .integer(999), "hopPath": .number("1"), "payload": .string("*")]) == .ttlOutOfRange)
        #expect(try refusal(["hopPath": .number("1"), "payload": .string("*")]) == .wrongType)
        let unchanged = try wire([:])
        #expect(Self.code { () throws(WireError) in _ = try MessageEnvelope(decoding: unchanged + [UInt8](repeating: 0x20, count: 65537 - unchanged.count)) } == .tooLarge)
        #expect(Self.code { () throws(WireError) in _ = try MessageEnvelope(decoding: unchanged + [0x7B]) } == .badJSON)
        #expect(Self.code { () throws(WireError) in _ = try MessageEnvelope(decoding: Array(#"["not","an","object"]"#.utf8)) } == .wrongType)
    }

    @Test func envelopeCarriesItsControlMessage() throws {
        let ack = ControlMessage.deliveryAck(DeliveryAck(messageID: Self.id, receiverID: Self.id, timestamp: 767_923_200.25))
        let e = MessageEnvelope(
            id: Self.id, originID: Self.id, originName: "n", timestamp: 0, sequenceNumber: 1, ttl: 2, hopPath: [Self.id],
            isControlMessage: true, payload: ack.encoded())
        #expect(try MessageEnvelope(decoding: e.encoded()).controlMessage() == ack)
        var user = e
        user.isControlMessage = false
        #expect(try user.controlMessage() == nil)
    }

    // MARK: control messages

    static func controlMessages(_ rng: inout SeededRandom) -> [ControlMessage] {
        let t = timestamps[Int(rng.next() % UInt64(timestamps.count))]
        let name = names[Int(rng.next() % UInt64(names.count))]
        let path = (0..<Int(rng.next() % 4)).map { _ in uuid(&rng) }
        let hop = Int(rng.next() % 256)
        return [
            .routeRequest(RouteRequest(requestID: uuid(&rng), originID: uuid(&rng), destinationID: uuid(&rng), originName: name,
                                       hopCount: hop, hopPath: path, timestamp: t, ttl: 255 - hop)),
            .routeReply(RouteReply(requestID: uuid(&rng), originID: uuid(&rng), destinationID: uuid(&rng), destinationName: name,
                                   hopCount: hop, hopPath: path, timestamp: t)),
            .routeError(RouteError(errorID: uuid(&rng), unreachableID: uuid(&rng), reporterID: uuid(&rng),
                                   affectedDestinations: path, timestamp: t)),
            .peerAnnounce(PeerAnnounce(deviceID: uuid(&rng), deviceName: name, timestamp: t, hopCount: hop)),
            .deliveryAck(DeliveryAck(messageID: uuid(&rng), receiverID: uuid(&rng), timestamp: t)),
            .readReceipt(ReadReceipt(messageID: uuid(&rng), readerID: uuid(&rng), originalSenderID: uuid(&rng), timestamp: t)),
        ]
    }

    @Test func controlMessagesRoundTrip() throws {
        var rng = SeededRandom(seed: 30)
        for _ in 0..<100 {
            for m in Self.controlMessages(&rng) {
                #expect(try ControlMessage(decoding: m.encoded()) == m)
                #expect(try ControlMessage(neutral: m.neutral) == m)
                let inner = m.content
                #expect(try type(of: inner).init(decoding: inner.encoded()).neutral == inner.neutral)
                #expect(try type(of: inner).init(neutral: inner.neutral).encoded() == inner.encoded())
                guard case .object(let o) = m.neutral else { Issue.record("neutral is not an object"); continue }
                #expect(o.keys == ["type", "message"])
                #expect(o["type"] == .string(m.kind.rawValue))
            }
        }
    }

    @Test func controlNeutralFormMatchesTheContract() throws {
        let rreq = RouteRequest(requestID: Self.id, originID: Self.id, destinationID: Self.id, originName: "A",
                                hopCount: 1, hopPath: [Self.id], timestamp: 767_923_200.5, ttl: 3)
        let expected = try JSONParser.parse("""
            {"type":"RREQ","message":{"requestID":"\(Self.idText)","originID":"\(Self.idText)","destinationID":"\(Self.idText)",
             "originName":"A","hopCount":1,"hopPath":["\(Self.idText)"],"timestamp":767923200.5,"ttl":3}}
            """)
        #expect(ControlMessage.routeRequest(rreq).neutral.isEquivalent(to: expected))
        #expect(try ControlMessage(neutral: expected) == .routeRequest(rreq))
    }

    @Test func controlRefuses() throws {
        func control(_ type: String, _ inner: String) -> [UInt8] {
            JSONWriter.write(.object([("type", .string(type)), ("payload", .base64(Array(inner.utf8)))]))
        }
        func refusal(_ bytes: [UInt8]) -> WireError.Code? {
            Self.code { () throws(WireError) in _ = try ControlMessage(decoding: bytes) }
        }
        let ack = #"{"messageID":"\#(Self.idText)","receiverID":"\#(Self.idText)","timestamp":1}"#
        #expect(refusal(control("ACK", ack)) == nil)
        #expect(refusal(control("GKD", ack)) == .unknownType)
        #expect(refusal(control("ack", ack)) == .unknownType)
        // Inner errors keep their own code.
        #expect(refusal(control("ACK", #"{"messageID":"x","receiverID":"\#(Self.idText)","timestamp":1}"#)) == .badUUID)
        #expect(refusal(control("ACK", #"{"messageID":"\#(Self.idText)","receiverID":"\#(Self.idText)"}"#)) == .missingField)
        #expect(refusal(control("ACK", #"{"messageID":"\#(Self.idText)","receiverID":"\#(Self.idText)","timestamp":"2025"}"#)) == .wrongType)
        #expect(refusal(control("ACK", #"{"messageID":"#)) == .truncated)
        #expect(refusal(control("ACK", "not json")) == .badJSON)
        #expect(refusal(control("READ", ack)) == .missingField)
        #expect(refusal(control("ANNOUNCE", #"{"deviceID":"\#(Self.idText)","deviceName":"d","timestamp":1,"hopCount":256}"#)) == .ttlOutOfRange)
        #expect(refusal(control("ANNOUNCE", #"{"deviceID":"\#(Self.idText)","deviceName":"d","timestamp":1,"hopCount":-1}"#)) == .ttlOutOfRange)
        #expect(refusal(control("ANNOUNCE", #"{"deviceID":"\#(Self.idText)","deviceName":"d","timestamp":1e999,"hopCount":1}"#)) == .valueOutOfRange)
        #expect(refusal(Array(#"{"type":"ACK","payload":"A"}"#.utf8)) == .badBase64)
        #expect(refusal(Array(#"{"type":1,"payload":""}"#.utf8)) == .wrongType)
        #expect(refusal(Array(#"{"payload":""}"#.utf8)) == .missingField)
        #expect(refusal([UInt8](repeating: 0x20, count: 65537)) == .tooLarge)
        // The type is read (and refused) before the payload.
        #expect(refusal(Array(#"{"type":"GKD","payload":"A"}"#.utf8)) == .unknownType)
        // Inner types enforce their own limits when used directly.
        #expect(Self.code { () throws(WireError) in _ = try DeliveryAck(decoding: [UInt8](repeating: 0x20, count: 65537)) } == .tooLarge)
        #expect(Self.code { () throws(WireError) in
            _ = try RouteRequest(decoding: Array(#"{"requestID":"\#(Self.idText)","originID":"\#(Self.idText)","destinationID":"\#(Self.idText)","originName":"A","hopCount":1,"hopPath":[],"timestamp":0,"ttl":300}"#.utf8))
        } == .ttlOutOfRange)
        #expect(Self.code { () throws(WireError) in _ = try ControlMessage(neutral: .object([("type", .string("GKD")), ("message", .object([]))])) } == .unknownType)
    }

    // MARK: differential against Foundation

    @Test func chunkIsByteIdenticalToFoundation() throws {
        var rng = SeededRandom(seed: 40)
        for _ in 0..<500 {
            let total = Int(rng.next() % 1024) + 1
            let app = AppMessageChunk(
                messageID: Self.uuid(&rng), chunkIndex: Int(rng.next() % UInt64(total)), totalChunks: total,
                flags: UInt8(truncatingIfNeeded: rng.next()), payload: Data(Self.bytes(Int(rng.next() % 163), &rng)))
            let ours = MessageChunk(messageID: app.messageID, chunkIndex: app.chunkIndex, totalChunks: app.totalChunks,
                                    flags: ChunkFlags(rawValue: app.flags), payload: Array(app.payload))
            #expect(ours.encoded() == (try Self.foundation(app)))
            let appBytes = try Self.appEncoder(app)
            if appBytes.count <= MessageChunk.maxSize { #expect(try MessageChunk(decoding: appBytes) == ours) }
            // And Foundation reads ours back to the same struct.
            let back = try JSONDecoder().decode(AppMessageChunk.self, from: Data(ours.encoded()))
            #expect(back.messageID == app.messageID && back.payload == app.payload && back.flags == app.flags)
        }
    }

    @Test func envelopeIsByteIdenticalToFoundation() throws {
        var rng = SeededRandom(seed: 41)
        for i in 0..<400 {
            let e = Self.envelope(&rng, optionals: i % 3 == 0)
            let app = AppMessageEnvelope(
                id: e.id, originID: e.originID, originName: e.originName, destinationID: e.destinationID,
                conversationID: e.conversationID, timestamp: Date(timeIntervalSince1970: Double(e.timestamp)),
                sequenceNumber: e.sequenceNumber, ttl: e.ttl, hopPath: e.hopPath, isControlMessage: e.isControlMessage,
                isEncrypted: e.isEncrypted, isGroupMessage: e.isGroupMessage, payload: Data(e.payload),
                signature: e.signature.map { Data($0) })
            #expect(e.encoded() == (try Self.foundation(app, iso8601: true)))
            #expect(try MessageEnvelope(decoding: Self.appEncoder(app, iso8601: true)) == e)
        }
    }

    /// The app's ControlMessage(type:content:): inner JSON from a plain encoder, default dates.
    private static func appControl<T: Encodable>(_ type: AppControlMessageType, _ content: T, sorted: Bool) throws -> [UInt8] {
        let inner = sorted ? try foundation(content) : try appEncoder(content)
        let outer = AppControlMessage(type: type, payload: Data(inner))
        return sorted ? try foundation(outer) : try appEncoder(outer)
    }

    @Test func controlMessagesAreByteIdenticalToFoundation() throws {
        var rng = SeededRandom(seed: 42)
        for _ in 0..<100 {
            for m in Self.controlMessages(&rng) {
                for sorted in [true, false] {
                    let app: [UInt8]
                    switch m {
                    case .routeRequest(let r):
                        app = try Self.appControl(.routeRequest, AppRouteRequest(
                            requestID: r.requestID, originID: r.originID, destinationID: r.destinationID, originName: r.originName,
                            hopCount: r.hopCount, hopPath: r.hopPath, timestamp: Date(timeIntervalSinceReferenceDate: r.timestamp),
                            ttl: r.ttl), sorted: sorted)
                    case .routeReply(let r):
                        app = try Self.appControl(.routeReply, AppRouteReply(
                            requestID: r.requestID, originID: r.originID, destinationID: r.destinationID,
                            destinationName: r.destinationName, hopCount: r.hopCount, hopPath: r.hopPath,
                            timestamp: Date(timeIntervalSinceReferenceDate: r.timestamp)), sorted: sorted)
                    case .routeError(let r):
                        app = try Self.appControl(.routeError, AppRouteError(
                            errorID: r.errorID, unreachableID: r.unreachableID, reporterID: r.reporterID,
                            affectedDestinations: r.affectedDestinations, timestamp: Date(timeIntervalSinceReferenceDate: r.timestamp)),
                            sorted: sorted)
                    case .peerAnnounce(let a):
                        app = try Self.appControl(.peerAnnounce, AppPeerAnnounce(
                            deviceID: a.deviceID, deviceName: a.deviceName, timestamp: Date(timeIntervalSinceReferenceDate: a.timestamp),
                            hopCount: a.hopCount), sorted: sorted)
                    case .deliveryAck(let a):
                        app = try Self.appControl(.ack, AppDeliveryAck(
                            messageID: a.messageID, receiverID: a.receiverID, timestamp: Date(timeIntervalSinceReferenceDate: a.timestamp)),
                            sorted: sorted)
                    case .readReceipt(let r):
                        app = try Self.appControl(.readReceipt, AppReadReceipt(
                            messageID: r.messageID, readerID: r.readerID, originalSenderID: r.originalSenderID,
                            timestamp: Date(timeIntervalSinceReferenceDate: r.timestamp)), sorted: sorted)
                    }
                    if sorted { #expect(m.encoded() == app, "\(m.kind)") }
                    #expect(try ControlMessage(decoding: app) == m, "\(m.kind)")
                }
            }
        }
    }

    // MARK: Chunker

    @Test func chunkerSlicesLikeTheApp() throws {
        var rng = SeededRandom(seed: 50)
        #expect(Chunker.payloadPerChunk == 162)
        #expect(Chunker.chunks(messageID: Self.id, data: []).isEmpty)
        for (size, expectedTotal) in [(1, 1), (161, 1), (162, 1), (163, 2), (324, 2), (325, 3), (1000, 7)] {
            let data = Self.bytes(size, &rng)
            let chunks = Chunker.chunks(messageID: Self.id, data: data)
            #expect(chunks.count == expectedTotal)
            #expect(chunks.allSatisfy { $0.totalChunks == expectedTotal && $0.messageID == Self.id })
            #expect(chunks.map(\.chunkIndex) == Array(0..<expectedTotal))
            #expect(chunks.dropLast().allSatisfy { $0.payload.count == 162 })
            #expect(chunks.flatMap(\.payload) == data)
            if expectedTotal == 1 {
                #expect(chunks[0].flags.rawValue == 3)
            } else {
                #expect(chunks.first?.flags == .first)
                #expect(chunks.last?.flags == .last)
                #expect(chunks.dropFirst().dropLast().allSatisfy { $0.flags.isEmpty })
            }
        }
        let e = Self.envelope(&rng, optionals: true)
        let chunks = Chunker.chunks(of: e)
        #expect(chunks.allSatisfy { $0.messageID == e.id && $0.encoded().count <= MessageChunk.maxSize })
        #expect(chunks.flatMap(\.payload) == e.encoded())
    }

    /// BLEMESH-R3, G3: fitted to a link, every chunk fits, the pieces are the largest that do
    /// (one byte more and some chunk would not), and they join into the envelope; a limit below
    /// the smallest chunk (110 bytes) gives none.
    @Test(arguments: [130, 179, 244, 330, 512])
    func chunksFitALink(limit: Int) throws {
        var rng = SeededRandom(seed: 51)
        let e = Self.envelope(&rng, optionals: true)
        let chunks = try #require(Chunker.chunks(of: e, fitting: limit))
        #expect(chunks.allSatisfy { $0.encoded().count <= limit && $0.messageID == e.id })
        #expect(chunks.flatMap(\.payload) == e.encoded())
        let piece = chunks[0].payload.count
        #expect(piece <= Chunker.payloadPerChunk)
        if piece < Chunker.payloadPerChunk {
            let bigger = Chunker.chunks(messageID: e.id, data: e.encoded(), pieceSize: piece + 1)
            #expect(bigger.contains { $0.encoded().count > limit }, "\(piece)-byte pieces are not the largest that fit \(limit)")
        }
        #expect(Chunker.chunks(of: e, fitting: 109) == nil)
    }

    /// The app's chunk JSON outgrows the ATT limit when a slice's base64 is rich in `/`
    /// (escaped `\/`): binary slices can, envelope JSON (text) cannot.
    @Test func fullBinaryChunkCanExceedTheATTLimit() {
        let worst = Chunker.chunks(messageID: Self.id, data: [UInt8](repeating: 0xFF, count: 162))[0]
        #expect(worst.encoded().count > MessageChunk.maxSize)
        // Written without slash escapes (as non-Foundation encoders do) the same chunk fits and
        // decodes, but its canonical form does not fit: the neutral form refuses to encode it.
        let unescaped = Array(String(decoding: worst.encoded(), as: UTF8.self).replacingOccurrences(of: "\\/", with: "/").utf8)
        #expect(unescaped.count <= MessageChunk.maxSize)
        #expect((try? MessageChunk(decoding: unescaped)) == worst)
        #expect(Self.code { () throws(WireError) in _ = try MessageChunk(neutral: worst.neutral) } == .tooLarge)
        let text = Chunker.chunks(messageID: Self.id, data: [UInt8](repeating: UInt8(ascii: "?"), count: 162))[0]
        #expect(text.encoded().count <= MessageChunk.maxSize)
    }

    // MARK: ChunkAssembler

    static func message(_ size: Int, seed: UInt64) -> (UUID, [UInt8], [MessageChunk]) {
        var rng = SeededRandom(seed: seed)
        let id = uuid(&rng)
        let data = bytes(size, &rng)
        return (id, data, Chunker.chunks(messageID: id, data: data))
    }

    static func feed(_ chunks: [MessageChunk], into a: inout ChunkAssembler, now: Double = 0) -> [ChunkAssembler.Outcome] {
        chunks.map { a.add($0, now: now) }
    }

    @Test(arguments: ["in order", "reversed", "shuffled"])
    func assemblesInAnyOrder(_ order: String) {
        for seed in UInt64(0)..<20 {
            let (id, data, chunks) = Self.message(162 * 9 + Int(seed), seed: seed)
            var rng = SeededRandom(seed: seed)
            let arranged = switch order {
            case "reversed": Array(chunks.reversed())
            case "shuffled": chunks.shuffled(using: &rng)
            default: chunks
            }
            var a = ChunkAssembler()
            let outcomes = Self.feed(arranged, into: &a)
            #expect(outcomes.dropLast().allSatisfy { $0 == .incomplete })
            #expect(outcomes.last == .completed(messageID: id, bytes: data))
            #expect(a.inFlightCount == 0)
        }
    }

    @Test func singleChunkCompletesAtOnce() {
        let (id, data, chunks) = Self.message(10, seed: 1)
        var a = ChunkAssembler()
        #expect(a.add(chunks[0], now: 0) == .completed(messageID: id, bytes: data))
        #expect(a.inFlightCount == 0)
    }

    @Test func duplicatesAreIgnored() {
        let (id, data, chunks) = Self.message(162 * 3, seed: 2)
        var a = ChunkAssembler()
        #expect(a.add(chunks[0], now: 0) == .incomplete)
        #expect(a.add(chunks[0], now: 1) == .duplicate)
        #expect(a.add(chunks[2], now: 2) == .incomplete)
        #expect(a.add(chunks[2], now: 3) == .duplicate)
        // Flags play no part in assembly, as in the app.
        var relayed = chunks[0]
        relayed.flags.insert(.relayed)
        #expect(a.add(relayed, now: 4) == .duplicate)
        // A different payload at a held index is refused and the first one kept.
        var forged = chunks[2]
        forged.payload[0] ^= 0xFF
        #expect(a.add(forged, now: 5) == .rejected(.conflictingPayload(index: 2)))
        #expect(a.add(chunks[1], now: 6) == .completed(messageID: id, bytes: data))
    }

    @Test func conflictingTotalIsRejectedWithoutHarm() {
        let (id, data, chunks) = Self.message(162 * 3, seed: 3)
        var a = ChunkAssembler()
        #expect(a.add(chunks[0], now: 0) == .incomplete)
        var forged = chunks[1]
        forged.totalChunks = 4
        #expect(a.add(forged, now: 1) == .rejected(.totalMismatch(expected: 3, got: 4)))
        // Even a one-chunk claim for a message already under way.
        var solo = chunks[0]
        solo.totalChunks = 1
        #expect(a.add(solo, now: 1) == .rejected(.totalMismatch(expected: 3, got: 1)))
        #expect(a.inFlightCount == 1)
        #expect(Self.feed(Array(chunks.dropFirst()), into: &a, now: 2).last == .completed(messageID: id, bytes: data))
    }

    @Test func indexAndTotalOutOfRangeAreRejected() {
        var a = ChunkAssembler()
        let bad = [
            (MessageChunk(messageID: Self.id, chunkIndex: 3, totalChunks: 3, flags: [], payload: [1]),
             ChunkAssembler.Rejection.indexOutOfRange(index: 3, total: 3)),
            (MessageChunk(messageID: Self.id, chunkIndex: -1, totalChunks: 3, flags: [], payload: [1]), .indexOutOfRange(index: -1, total: 3)),
            (MessageChunk(messageID: Self.id, chunkIndex: 0, totalChunks: 0, flags: [], payload: [1]), .totalOutOfRange(0)),
            (MessageChunk(messageID: Self.id, chunkIndex: 0, totalChunks: 1025, flags: [], payload: [1]), .totalOutOfRange(1025)),
            (MessageChunk(messageID: Self.id, chunkIndex: Int.max, totalChunks: Int.min, flags: [], payload: [1]), .totalOutOfRange(Int.min)),
        ]
        for (chunk, why) in bad { #expect(a.add(chunk, now: 0) == .rejected(why)) }
        #expect(a.inFlightCount == 0)
        // The decoder refuses the same chunks on the wire.
        #expect(Self.code { () throws(WireError) in _ = try MessageChunk(decoding: bad[0].0.encoded()) } == .chunkIndexOutOfRange)
    }

    @Test func bytesPerMessageAreCapped() {
        var a = ChunkAssembler(limits: .init(maxMessageBytes: 300))
        let (_, _, chunks) = Self.message(162 * 3, seed: 4)
        #expect(a.add(chunks[0], now: 0) == .incomplete)
        #expect(a.add(chunks[1], now: 0) == .rejected(.messageTooLarge(bytes: 324)))
        #expect(a.inFlightCount == 1)
        let big = MessageChunk(messageID: Self.id, chunkIndex: 0, totalChunks: 2, flags: [], payload: [UInt8](repeating: 0, count: 301))
        #expect(a.add(big, now: 0) == .rejected(.messageTooLarge(bytes: 301)))
    }

    @Test func theOldestPartialIsEvictedWhenFull() {
        var a = ChunkAssembler(limits: .init(maxInFlight: 3))
        let messages = (UInt64(0)..<4).map { Self.message(200, seed: 100 + $0) }
        for (i, m) in messages.enumerated() { #expect(a.add(m.2[0], now: Double(i)) == .incomplete) }
        #expect(a.inFlightCount == 3)
        #expect(a.inFlightIDs == Set(messages.dropFirst().map(\.0)))
        // A one-chunk message never takes a slot, so it evicts nobody.
        let (soloID, solo, soloChunks) = Self.message(5, seed: 200)
        #expect(a.add(soloChunks[0], now: 5) == .completed(messageID: soloID, bytes: solo))
        #expect(a.inFlightIDs == Set(messages.dropFirst().map(\.0)))
        // The survivors still complete; the evicted one starts over.
        #expect(a.add(messages[1].2[1], now: 6) == .completed(messageID: messages[1].0, bytes: messages[1].1))
        #expect(a.add(messages[0].2[1], now: 7) == .incomplete)
    }

    @Test func stalePartialsExpire() {
        var a = ChunkAssembler()
        let (first, _, firstChunks) = Self.message(200, seed: 7)
        let (second, secondData, secondChunks) = Self.message(200, seed: 8)
        #expect(a.add(firstChunks[0], now: 1000) == .incomplete)
        #expect(a.add(secondChunks[0], now: 1200) == .incomplete)
        // The lifetime runs from the first chunk, however recent the last one.
        #expect(a.expire(now: 1300).isEmpty)
        #expect(a.expire(now: 1300.5) == [first])
        #expect(a.inFlightIDs == [second])
        // Lazily on add, too: the late chunk finds its message gone and starts over.
        #expect(a.add(firstChunks[1], now: 1501) == .incomplete)
        #expect(a.inFlightIDs == [first])
        #expect(a.add(secondChunks[1], now: 1501) == .incomplete)
        var b = ChunkAssembler(limits: .init(lifetime: 10))
        #expect(b.add(secondChunks[0], now: 0) == .incomplete)
        #expect(b.add(secondChunks[1], now: 10) == .completed(messageID: second, bytes: secondData))
    }

    @Test func aFloodOfMessageIDsStaysBounded() {
        var a = ChunkAssembler()
        var rng = SeededRandom(seed: 9)
        var peak = 0, unexpected = 0
        for i in 0..<100_000 {
            let chunk = MessageChunk(messageID: Self.uuid(&rng), chunkIndex: 0, totalChunks: 1024, flags: .first,
                                     payload: Self.bytes(8, &rng))
            if a.add(chunk, now: Double(i) * 0.001) != .incomplete { unexpected += 1 }
            peak = max(peak, a.inFlightCount)
        }
        #expect(unexpected == 0)
        #expect(peak == 64)
    }

    // MARK: hostile input

    /// Mutated encodings never trap, and whatever decodes re-encodes to the same value.
    @Test func mutatedInputNeverTraps() throws {
        var rng = SeededRandom(seed: 60)
        var seeds: [(FormatID, [UInt8])] = []
        for m in Self.controlMessages(&rng) {
            seeds.append((ControlMessage.formatID, m.encoded()))
            seeds.append((type(of: m.content).formatID, m.content.encoded()))
        }
        seeds.append((MessageEnvelope.formatID, Self.envelope(&rng, optionals: true).encoded()))
        seeds.append((MessageChunk.formatID, Self.message(100, seed: 1).2[0].encoded()))
        let decoders: [FormatID: ([UInt8]) throws(WireError) -> [UInt8]] = [
            MessageChunk.formatID: { b throws(WireError) in try MessageChunk(decoding: b).encoded() },
            MessageEnvelope.formatID: { b throws(WireError) in try MessageEnvelope(decoding: b).encoded() },
            ControlMessage.formatID: { b throws(WireError) in try ControlMessage(decoding: b).encoded() },
            RouteRequest.formatID: { b throws(WireError) in try RouteRequest(decoding: b).encoded() },
            RouteReply.formatID: { b throws(WireError) in try RouteReply(decoding: b).encoded() },
            RouteError.formatID: { b throws(WireError) in try RouteError(decoding: b).encoded() },
            PeerAnnounce.formatID: { b throws(WireError) in try PeerAnnounce(decoding: b).encoded() },
            DeliveryAck.formatID: { b throws(WireError) in try DeliveryAck(decoding: b).encoded() },
            ReadReceipt.formatID: { b throws(WireError) in try ReadReceipt(decoding: b).encoded() },
        ]
        let interesting = Array("0-1e9\".{}[],:nulltruefalse/=\\ ".utf8)
        for (format, original) in seeds {
            guard let decode = decoders[format] else { Issue.record("no decoder for \(format)"); continue }
            for _ in 0..<300 {
                var b = original
                for _ in 0..<Int(rng.next() % 4) + 1 where !b.isEmpty {
                    let at = Int(rng.next() % UInt64(b.count))
                    switch rng.next() % 4 {
                    case 0: b[at] ^= UInt8(1 << (rng.next() % 8))
                    case 1: b[at] = interesting[Int(rng.next() % UInt64(interesting.count))]
                    case 2: b.remove(at: at)
                    default: b.insert(interesting[Int(rng.next() % UInt64(interesting.count))], at: at)
                    }
                }
                guard let canonical = try? decode(b) else { continue }
                #expect(try decode(canonical) == canonical, "\(format): \(String(decoding: b, as: UTF8.self))")
            }
        }
    }
}
