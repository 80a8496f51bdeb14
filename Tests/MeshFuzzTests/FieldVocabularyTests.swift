import BLEHost
import Foundation
@testable import MeshFuzz
import MeshVectors
import MeshWire
import Testing

/// The values that break apps (docs/fuzzing.md, "Values that break apps"): which fields of
/// each format get which values, and that setting one leaves the layers around it valid.
@Suite("field vocabulary")
struct FieldVocabularyTests {
    static func vectors(_ format: FormatID, valid: Bool = true) -> [[UInt8]] {
        guard let file = try? VectorFile(contentsOf: Paths.root.appendingPathComponent("Vectors/\(format).json").path) else { return [] }
        return file.tests.filter { !valid || $0.result == .valid }.map(\.bytes)
    }

    /// The first valid vector of `format` that has the field `name`, and that field.
    static func site(_ format: FormatID, _ name: String) -> (input: [UInt8], site: FieldSite)? {
        for input in vectors(format) {
            if let site = FieldMutation.sites(of: format, in: input).first(where: { $0.name == name }) { return (input, site) }
        }
        return nil
    }

    static func json(_ bytes: [UInt8]) throws -> JSONObject {
        guard case .object(let o) = try JSONParser.parse(bytes[...]) else { throw WireError(.wrongType, "not an object") }
        return o
    }

    @Test("integer boundaries: 0, 1, -1, 2^7 ... 2^64 - 1 with neighbours, as JSON text and at every binary width")
    func boundaries() {
        let texts = Set(FieldVocabulary.integerBoundaries)
        for expected in ["0", "1", "-1", "128", "256", "32768", "65536", "2147483648", "4294967296", "9007199254740991", "9007199254740993",
                         "9223372036854775807", "9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616"] {
            #expect(texts.contains(expected), "\(expected)")
        }
        #expect(FieldVocabulary.unsignedValues(width: 1).sorted() == [0, 1, 2, 8, 9, 16, 17, 32, 33, 64, 65, 127, 128, 129, 254, 255])
        let u16 = Set(FieldVocabulary.unsignedValues(width: 2))
        #expect([0x7FFF, 0x8000, 0xFFFF, 0xFFFE, 255, 256, 1024].allSatisfy { u16.contains($0) })
        #expect(u16.allSatisfy { $0 <= 0xFFFF })
        let u64 = Set(FieldVocabulary.unsignedValues(width: 8))
        #expect([UInt64.max, 1 << 63, (1 << 53) + 1, (1 << 53) - 1, 1 << 32].allSatisfy { u64.contains($0) })
    }

    @Test("every catalog format and every BLE host parser declares its fields")
    func everyFormatDeclared() {
        let declared = Set(FormatFields.formats)
        for id in FormatCatalog.ids + HostParsers.all.map(\.id) { #expect(declared.contains(id), "\(id) has no declaration in FormatFields") }
    }

    /// Inputs the format's fuzz target decodes: its valid golden vectors (a sealed format's
    /// under the target's fixed key), or for a host parser (no vectors) its corpus seeds.
    static func validInputs(_ id: FormatID) -> [[UInt8]] {
        guard let target = FuzzRegistry.target(id) else { return [] }
        var inputs = vectors(id)
        if inputs.isEmpty, let store = try? CorpusStore(directory: Paths.root.appendingPathComponent("Corpus/\(id)").path) {
            inputs = store.names().sorted().compactMap(store.read)
        }
        return inputs.filter { (try? target.decode($0)) != nil }
    }

    /// The formats whose fields were declared last (session 7): each field's boundary values
    /// must reach the decoder, not be stopped by the layers around the field.
    static let declaredLast: [FormatID] = ["relay.sealed", "peat.device-name"] + HostParsers.all.map(\.id)

    @Test("each declared field's values reach the decoder: they change what it decodes, and one is decoded", arguments: declaredLast)
    func valuesReachTheDecoder(format: FormatID) throws {
        let target = try #require(FuzzRegistry.target(format))
        let inputs = Self.validInputs(format)
        #expect(!inputs.isEmpty, "\(format): no valid input to declare fields on")
        // Per field name over every input: whether a value changed the decoder's outcome, and
        // whether one was decoded (accepted) to another value than the input's.
        var changed: [String: Bool] = [:], accepted: [String: Bool] = [:]
        for input in inputs {
            let original = try target.decode(input)
            for site in FieldMutation.sites(of: format, in: input) {
                #expect(!site.values.isEmpty, "\(format) \(site.name): no values")
                // A length or count (resized values) is checked against the type's size by
                // the decoder itself: changing the outcome is reaching it.
                let number = site.values.allSatisfy { if case .unsigned = $0 { true } else { false } }
                for value in site.values {
                    guard let mutant = site.applying(value) else { continue }
                    let decoded = try? target.decode(mutant)
                    if decoded != original { changed[site.name] = true }
                    changed[site.name] = changed[site.name] ?? false
                    guard number else { continue }
                    if let decoded, decoded != original { accepted[site.name] = true }
                    accepted[site.name] = accepted[site.name] ?? false
                }
            }
        }
        #expect(!changed.isEmpty, "\(format): no field found in its valid inputs")
        for (name, yes) in changed { #expect(yes, "\(format) \(name): no value changes what the decoder returns") }
        // An enumerated type or code with the rest of the unit kept is often refused as a
        // whole (other fields belong to another type): those need only change the outcome; so
        // does every field of a sealed body (its tag covers every byte).
        for (name, yes) in accepted where format != "relay.sealed" && !Self.enumerated.contains(name.split(separator: ">").last.map(String.init) ?? name) {
            #expect(yes, "\(format) \(name): no value is decoded: the layers around the field stop every one")
        }
    }

    static let enumerated: Set<String> = ["code", "subevent", "opcode", "indicator", "channel", "requestOpcode", "reason", "result", "flags"]

    /// A key a vector uses that the declaration misses would be mutated by a guessed type:
    /// declarations follow the vectors.
    @Test("a JSON format declares every key its vectors use")
    func jsonDeclarationsCoverVectors() throws {
        for id in FormatCatalog.ids {
            guard case .json(let declared)? = FormatFields.declaration(of: id) else { continue }
            for input in Self.vectors(id) {
                for key in try Self.json(input).keys { #expect(declared[key] != nil, "\(id): key \(key) of a valid vector is not declared") }
            }
        }
    }

    @Test("every format's valid vectors have fields, and every value applies to one")
    func everyFormatHasFields() {
        for id in FormatCatalog.ids {
            let inputs = Self.vectors(id)
            let sites = inputs.flatMap { FieldMutation.sites(of: id, in: $0) }
            #expect(!sites.isEmpty, "\(id): no field found in its valid vectors")
            for site in sites.prefix(40) {
                #expect(!site.values.isEmpty, "\(id) \(site.name): no values")
                let applied = site.values.compactMap { site.applying($0) }
                #expect(!applied.isEmpty, "\(id) \(site.name): no value applies")
            }
        }
    }

    /// Per format, a field and values it must get, and what the mutant then holds. The
    /// table is the proof of which fields get which values.
    @Test("JSON integer fields get the boundaries as JSON numbers", arguments: [
        ("relay.frame-header", "seq"), ("relay.frame-header", "ttl"), ("relay.beacon", "seqNo"), ("blemesh.envelope", "sequenceNumber"),
        ("blemesh.envelope", "ttl"), ("blemesh.chunk", "chunkIndex"), ("blemesh.chunk", "totalChunks"), ("blemesh.rreq", "hopCount"),
        ("simple.message", "ttl"), ("simple.message", "relayCount"), ("camp.protocol", "version"),
    ])
    func jsonIntegers(format: FormatID, key: String) throws {
        let (_, site) = try #require(Self.site(format, key))
        for text in ["0", "-1", "128", "65536", "2147483648", "4294967296", "9007199254740993", "9223372036854775808", "18446744073709551615"] {
            let mutant = try #require(site.applying(.json(.number(text))), "\(format).\(key) = \(text)")
            #expect(try Self.json(mutant)[key] == .number(text))
        }
    }

    @Test("lists get lengths around small powers of two, strings too", arguments: [
        ("blemesh.envelope", "hopPath"), ("blemesh.rreq", "hopPath"), ("blemesh.rrep", "hopPath"), ("blemesh.rerr", "affectedDestinations"),
    ])
    func listLengths(format: FormatID, key: String) throws {
        let (input, site) = try #require(Self.site(format, key))
        for n in FieldVocabulary.lengths {
            #expect(site.values.contains(.listLength(n)))
            let mutant = try #require(site.applying(.listLength(n)))
            guard case .array(let items)? = try Self.json(mutant)[key] else { Issue.record("\(key) is no list"); continue }
            #expect(items.count == n)
            // Only that field changed.
            var rest = try Self.json(mutant), before = try Self.json(input)
            rest.members.removeAll { $0.key == key }
            before.members.removeAll { $0.key == key }
            #expect(rest == before)
        }
        let name = try #require(Self.site("blemesh.announce", "deviceName"))
        #expect(try Self.json(try #require(name.site.applying(.stringLength(256))))["deviceName"] == .string(String(repeating: "A", count: 256)))
    }

    @Test("enum fields get every value of the page and the nearest wrong ones")
    func enumerations() throws {
        let control = try #require(Self.site("blemesh.control", "type")).site
        // Every kind but the one the vector holds (a value is never offered again).
        #expect(ControlMessage.Kind.allCases.filter { !control.values.contains(.json(.string($0.rawValue))) }.count == 1)
        #expect(control.values.contains(.json(.string("rreq"))))
        let camp = try #require(Self.site("camp.message", "messageType")).site
        for kind in CampMessage.Kind.allCases where kind != .text { #expect(camp.values.contains(.json(.string(kind.rawValue)))) }
        let packet = try #require(Self.site("bitchat.packet", "type")).site
        let types = Set(BitchatMessageType.allCases.map { FieldValue.unsigned(UInt64($0.rawValue)) })
        #expect(types.subtracting(packet.values).count <= 1)   // the vector's own type is not offered again
        #expect(packet.values.contains(.unsigned(0xFF)))
    }

    @Test("UUID and base64 fields get their edge forms; the vectors' values are tokens")
    func uuidBase64AndTokens() throws {
        let id = try #require(Self.site("blemesh.envelope", "id")).site
        for form in ["00000000-0000-0000-0000-000000000000", "e621e1f8-c36c-495a-93fc-0c247a3e6e5f", "E621E1F8C36C495A93FC0C247A3E6E5F"] {
            #expect(id.values.contains(.json(.string(form))))
        }
        let payload = try #require(Self.site("blemesh.envelope", "payload")).site
        for form in ["", "AA=", "AA\nAA", "-_-_"] { #expect(payload.values.contains(.json(.string(form)))) }
        var tokens = FieldTokens()
        for input in Self.vectors("relay.frame-header", valid: false) { tokens.learn(from: input) }
        let withTokens = try #require(FieldMutation.sites(of: "relay.frame-header", in: Self.vectors("relay.frame-header")[0], tokens: tokens)
            .first { $0.name == "seq" })
        #expect(withTokens.values.count > (try #require(Self.site("relay.frame-header", "seq")).site.values.count))
    }

    @Test("binary fields: bitchat fragment total at its maximum, in binary")
    func bitchatFragmentTotal() throws {
        let (input, site) = try #require(Self.site("bitchat.fragment", "total"))
        #expect(site.values.contains(.unsigned(0xFFFF)) && site.values.contains(.unsigned(0x8000)))
        let mutant = try #require(site.applying(.unsigned(0xFFFF)))
        #expect(mutant[10] == 0xFF && mutant[11] == 0xFF)
        #expect(Array(mutant[..<10]) == Array(input[..<10]) && Array(mutant[12...]) == Array(input[12...]))
    }

    // MARK: nested units: the inner field set, the outer layer still valid

    @Test("a fragment's total inside a valid bitchat packet")
    func fragmentInsidePacket() throws {
        // A fragment vector in a fragment packet (v1, no recipient).
        let fragment = try #require(Self.vectors("bitchat.fragment").min { $0.count < $1.count })
        let carrier = BitchatPacket(type: BitchatMessageType.fragment.rawValue, ttl: 7, timestamp: 1_700_000_000_000,
                                    senderID: [1, 2, 3, 4, 5, 6, 7, 8], payload: fragment).encoded()
        let site = try #require(FieldMutation.sites(of: "bitchat.packet", in: carrier).first { $0.name == "payloadLength>total" })
        let mutant = try #require(site.applying(.unsigned(0xFFFF)))
        let packet = try BitchatPacket(decoding: mutant[...])   // the outer packet decodes
        #expect(packet.type == BitchatMessageType.fragment.rawValue)
        #expect(Array(packet.payload[10..<12]) == [0xFF, 0xFF])
        #expect(throws: WireError.self) { try BitchatFragment(decoding: packet.payload[...]) }
    }

    @Test("a relay frame header's seq past Int64 inside a packet whose headerLen is rewritten and sealed body kept")
    func relayHeaderInsidePacket() throws {
        let (input, site) = try #require(Self.site("relay.packet", "headerLen>seq"))
        let mutant = try #require(site.applying(.json(.number("9223372036854775808"))))
        let headerLength = Int(mutant[1]) << 8 | Int(mutant[2])
        let header = try Self.json(Array(mutant[3..<(3 + headerLength)]))
        #expect(header["seq"] == .number("9223372036854775808"))
        let oldLength = Int(input[1]) << 8 | Int(input[2])
        #expect(Array(mutant[(3 + headerLength)...]) == Array(input[(3 + oldLength)...]))   // the body, untouched
        #expect(try RelayPacket(decoding: mutant[...]).kind == .frame)
    }

    @Test("a peat document's entries resized inside a valid relay envelope")
    func documentInsideEnvelope() throws {
        let (_, site) = try #require(Self.site("peat.relay-envelope", "payload_len>num_entries"))
        for n in [0, 9, 33] {   // a peat value is at most 512 bytes (PEAT-W2)
            let mutant = try #require(site.applying(.resized(n)))
            let envelope = try PeatRelayEnvelope(decoding: mutant[...])   // the outer envelope decodes
            #expect(envelope.payload.count >= 12 + 12 * n)
            #expect(Array(envelope.payload[8..<12]) == [UInt8(n & 0xFF), UInt8(n >> 8), 0, 0])
        }
    }

    @Test("a control message's inner message: its fields set, base64 and the control message rebuilt")
    func controlInner() throws {
        let (_, site) = try #require(Self.site("blemesh.control", "payload>hopCount"))
        let mutant = try #require(site.applying(.json(.number("18446744073709551615"))))
        let outer = try Self.json(mutant)
        guard case .string(let text)? = outer["payload"], let data = Data(base64Encoded: text) else { Issue.record("payload is no base64"); return }
        #expect(try Self.json(Array(data))["hopCount"] == .number("18446744073709551615"))
    }

    @Test("the in-process mutator's field-value kind sets declared fields")
    func mutatorFieldValue() throws {
        let target = try #require(FuzzRegistry.target("relay.frame-header"))
        var mutator = Mutator(target: target)
        let seed = Self.vectors("relay.frame-header")[0]
        mutator.learn(from: seed)
        var rng = FuzzRandom(seed: 7)
        var seen = Set<String>()
        for _ in 0..<2000 {
            var bytes = seed
            guard mutator.apply(.fieldValue, to: &bytes, other: seed, rng: &rng), let o = try? Self.json(bytes) else { continue }
            if case .number(let t)? = o["seq"] { seen.insert(t) }
        }
        #expect(seen.contains("18446744073709551615") && seen.contains("9223372036854775808") && seen.contains("-1"))
    }
}
