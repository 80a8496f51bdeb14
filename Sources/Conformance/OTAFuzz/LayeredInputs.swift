import Foundation
import MeshFuzz
import MeshWire

/// A message the over-the-air fuzzer mutates from the inside: the innermost bytes, their
/// format (for the field vocabulary and the byte mutators), and how the layers around them
/// are rebuilt so that a mutant reaches the code behind those layers: a blemesh envelope or
/// control message re-chunked into valid chunks, a bitchat packet re-fragmented, a relay
/// header over a valid sealed body, a peat document in a valid envelope.
struct LayeredSeed {
    /// What is mutated and what carries it, for the tests and the docs: "envelope in chunks".
    let name: String
    let format: FormatID
    let inner: [UInt8]
    /// Makes the inner message new to the DUT before it is mutated (a fresh id, sequence
    /// number or timestamp): a DUT drops a duplicate before the code behind de-duplication.
    let refresh: (_ inner: [UInt8], _ serial: UInt64) -> [UInt8]
    /// The units a tester writes for `inner`, all of their layers valid.
    let wrap: (_ inner: [UInt8], _ rng: inout FuzzRandom) -> [[UInt8]]
    /// The largest inner message the layers can carry validly (a peat envelope's 512 bytes),
    /// and that keeps a mutant to a few dozen units.
    var maxInner = OTAInputs.maxInner
}

/// The layered seeds of a dialect, built from the probe's messages and the golden vectors
/// of the dialect's inner formats.
enum LayeredInputs {
    static func seeds(messages: [ProbeMessage], vectors: [FormatID: [[UInt8]]]) -> [LayeredSeed] {
        var seeds: [LayeredSeed] = []
        if case .bitchat(let packet)? = messages.first?.value {
            for variant in bitchatVariants(of: packet, vectors: vectors[BitchatPacket.formatID] ?? []) { seeds += bitchat(variant) }
        }
        for message in messages {
            switch message.value {
            case .blemesh(let envelope): seeds += blemesh(envelope, vectors: vectors)
            case .bitchat(let packet): seeds += bitchat(packet)
            case .relay(.frame(let header, let body)): seeds.append(relay(header.encoded(), format: FrameHeader.formatID, type: 0x46, body: body))
            case .relay(.beacon(let beacon)): seeds.append(relay(beacon.encoded(), format: Beacon.formatID, type: 0x42, body: []))
            case .peatEnvelope(let envelope): seeds.append(peat(envelope))
            case .camp(let m): seeds.append(single(m.encoded(), format: CampMessage.formatID, idKey: "id"))
            case .simple(let m): seeds.append(single(m.encoded(), format: SimpleMessage.formatID, idKey: "id"))
            default: break
            }
        }
        return seeds
    }

    // MARK: blemesh: envelope JSON in base64 slices of chunks; a control message in an envelope

    /// Pieces other than the app's 162 bytes: receivers must take any split (BLEMESH-R3).
    static let chunkPieces = [Chunker.payloadPerChunk, Chunker.payloadPerChunk, Chunker.payloadPerChunk, 100, 40]

    static func blemesh(_ envelope: MessageEnvelope, vectors: [FormatID: [[UInt8]]]) -> [LayeredSeed] {
        func chunked(_ data: [UInt8], _ rng: inout FuzzRandom) -> [[UInt8]] {
            // Keyed by the mutant's own id when it still has one, so the chunk set and the
            // envelope agree as a sender's would.
            let id = jsonString(data, key: "id").flatMap(UUID.init(uuidString:)) ?? randomUUID(&rng)
            return BLEMeshProbe.split(data, messageID: id, pieceSize: rng.pick(chunkPieces)).map { $0.encoded() }
        }
        func refreshed(_ data: [UInt8], _ serial: UInt64) -> [UInt8] {
            setJSON(data, [("id", .string(serialUUID(serial).uuidString)), ("sequenceNumber", .integer(serial))])
        }
        var seeds = [LayeredSeed(name: "blemesh envelope in chunks", format: MessageEnvelope.formatID, inner: envelope.encoded(),
                                 refresh: refreshed, wrap: chunked)]
        // Control messages (a probe's own, and the vectors'), in a control envelope of this origin.
        var control = envelope
        control.isControlMessage = true
        control.destinationID = nil
        let inners = (envelope.isControlMessage ? [envelope.payload] : []) + (vectors[ControlMessage.formatID] ?? [])
        for inner in inners {
            seeds.append(LayeredSeed(name: "blemesh control message in an envelope in chunks", format: ControlMessage.formatID, inner: inner,
                                     refresh: { bytes, _ in bytes }) { inner, rng in
                var e = control
                e.id = randomUUID(&rng)
                e.sequenceNumber = UInt64(1 << 30) + UInt64(rng.below(1 << 20))
                e.payload = inner
                return chunked(e.encoded(), &rng)
            })
        }
        return seeds
    }

    // MARK: bitchat: a packet, fragmented when large (or by chance); a fragment among valid siblings

    static func bitchat(_ packet: BitchatPacket) -> [LayeredSeed] {
        func refreshed(_ bytes: [UInt8], _ serial: UInt64) -> [UInt8] {
            // BITCHAT-R3: sender and timestamp are the de-duplication key; a few ms later
            // stays inside the DUT's 120 s window (BITCHAT-R4).
            guard bytes.count >= 11 else { return bytes }
            var out = bytes
            var ts: UInt64 = 0
            for k in 3..<11 { ts = ts << 8 | UInt64(out[k]) }
            ts &+= serial % 100_000
            for k in 0..<8 { out[3 + k] = UInt8(truncatingIfNeeded: ts >> (8 * UInt64(7 - k))) }
            return out
        }
        func fragmented(_ frame: [UInt8], chunk: Int, _ rng: inout FuzzRandom) -> [[UInt8]] {
            let id = (0..<8).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let pieces = BitchatFragment.split(frame, fragmentID: id, originalType: packet.type, chunkSize: chunk) ?? []
            return pieces.map {
                BitchatPacket(type: BitchatMessageType.fragment.rawValue, ttl: packet.ttl, timestamp: packet.timestamp,
                              senderID: packet.senderID, recipientID: packet.recipientID, payload: $0.encoded()).encoded()
            }
        }
        let whole = LayeredSeed(name: "bitchat packet, re-fragmented when over one value", format: BitchatPacket.formatID,
                                inner: packet.encoded(), refresh: refreshed) { inner, rng in
            // BITCHAT-R7: a frame over one characteristic value goes in fragments; smaller
            // ones are sometimes fragmented too, to reach the reassembly behind.
            if inner.count > BitchatProbe.maxUnit || rng.oneIn(4) {
                return fragmented(inner, chunk: inner.count > BitchatProbe.maxUnit ? BitchatProbe.fragmentChunk : 8 + rng.below(max(1, inner.count / 2)), &rng)
            }
            return [inner]
        }
        // One fragment mutated (its header: index, total, original type; its data), in a
        // valid packet, among its valid siblings, in a set with a fresh fragment id.
        let frame = packet.encoded()
        let chunk = max(1, (frame.count + 2) / 3)
        func fragmentPacket(_ payload: [UInt8]) -> [UInt8] {
            BitchatPacket(type: BitchatMessageType.fragment.rawValue, ttl: packet.ttl, timestamp: packet.timestamp, senderID: packet.senderID,
                          recipientID: packet.recipientID, payload: payload).encoded()
        }
        let first = BitchatFragment.split(frame, fragmentID: Array(repeating: 0, count: 8), originalType: packet.type, chunkSize: chunk)?.first
        let fragmentSeed = LayeredSeed(name: "bitchat fragment in a valid packet among valid siblings", format: BitchatFragment.formatID,
                                       inner: first?.encoded() ?? [], refresh: { bytes, _ in bytes }) { inner, rng in
            let id = (0..<8).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            var pieces = (BitchatFragment.split(frame, fragmentID: id, originalType: packet.type, chunkSize: chunk) ?? []).map { $0.encoded() }
            guard !pieces.isEmpty else { return [] }
            // The mutant takes the set's fragment id where it still has one, and the place of the piece it came from.
            var mutant = inner
            if mutant.count >= 8 { mutant.replaceSubrange(0..<8, with: id) }
            pieces[rng.below(pieces.count)] = mutant
            return pieces.map(fragmentPacket)
        }
        return [whole, fragmentSeed]
    }

    /// More bitchat packets from one of the probe's: v2 with a route of two hops (BITCHAT-W5),
    /// and the vectors' packets (compressed, signed, routed ...) on the probe's sender and
    /// clock, so the DUT neither drops them as stale (BITCHAT-R4) nor as duplicates.
    static func bitchatVariants(of packet: BitchatPacket, vectors: [[UInt8]]) -> [BitchatPacket] {
        var variants = [BitchatPacket(version: 2, type: packet.type, ttl: packet.ttl, timestamp: packet.timestamp, senderID: packet.senderID,
                                      recipientID: packet.recipientID, route: [packet.senderID, Array(repeating: 0x5E, count: 8)], payload: packet.payload)]
        for bytes in vectors {
            guard var v = try? BitchatPacket(decoding: bytes[...]), v.type != BitchatMessageType.fragment.rawValue else { continue }
            v.timestamp = packet.timestamp
            v.senderID = packet.senderID
            variants.append(v)
        }
        return variants
    }

    // MARK: relay: a header over a valid sealed body

    static func relay(_ header: [UInt8], format: FormatID, type: UInt8, body: [UInt8]) -> LayeredSeed {
        LayeredSeed(name: "relay \(format == Beacon.formatID ? "beacon" : "frame") header over a valid body", format: format, inner: header,
                    refresh: { bytes, serial in format == FrameHeader.formatID ? setJSON(bytes, [("seq", .integer(UInt64(1) << 41 + serial))]) : bytes }) { inner, _ in
            guard inner.count <= 0xFFFF else { return [] }
            return [[type, UInt8(inner.count >> 8), UInt8(inner.count & 0xFF)] + inner + body]
        }
    }

    // MARK: peat: a document in a valid relay envelope

    static func peat(_ envelope: PeatRelayEnvelope) -> LayeredSeed {
        var seed = LayeredSeed(name: "peat document in a valid relay envelope", format: PeatDocument.formatID, inner: envelope.payload,
                    refresh: { bytes, _ in bytes }) { inner, rng in
            var e = envelope
            // PEAT-R3: the message id is the de-duplication key: one per mutant.
            e.messageID = (0..<16).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            e.payload = inner
            return [e.encoded()]
        }
        // PEAT-W2: a value is at most 512 bytes, the envelope's 28 included.
        seed.maxInner = PeatWire.maxValueSize - PeatRelayEnvelope.headerSize
        return seed
    }

    // MARK: single-layer dialects (camp, simple): the unit is the message

    static func single(_ unit: [UInt8], format: FormatID, idKey: String) -> LayeredSeed {
        LayeredSeed(name: "\(format) message", format: format, inner: unit,
                    refresh: { bytes, serial in setJSON(bytes, [(idKey, .string(serialUUID(serial).uuidString))]) }) { inner, _ in [inner] }
    }

    // MARK: helpers

    /// A UUID no seed or probe uses: FF5EED.. and the serial.
    static func serialUUID(_ serial: UInt64) -> UUID {
        var b: [UInt8] = [0xFF, 0x5E, 0xED, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, 0]
        for k in 0..<6 { b[10 + k] = UInt8(truncatingIfNeeded: serial >> (8 * UInt64(5 - k))) }
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }

    static func randomUUID(_ rng: inout FuzzRandom) -> UUID {
        let a = rng.next(), b = rng.next()
        func byte(_ v: UInt64, _ k: Int) -> UInt8 { UInt8(truncatingIfNeeded: v >> (8 * UInt64(k))) }
        return UUID(uuid: (byte(a, 0), byte(a, 1), byte(a, 2), byte(a, 3), byte(a, 4), byte(a, 5), byte(a, 6) & 0x0F | 0x40, byte(a, 7),
                           byte(b, 0) & 0x3F | 0x80, byte(b, 1), byte(b, 2), byte(b, 3), byte(b, 4), byte(b, 5), byte(b, 6), byte(b, 7)))
    }

    static func jsonString(_ bytes: [UInt8], key: String) -> String? {
        guard case .object(let o)? = try? JSONParser.parse(bytes[...]), case .string(let s)? = o[key] else { return nil }
        return s
    }

    /// `bytes` (a JSON object) with the keys it has set to new values; as it was otherwise.
    static func setJSON(_ bytes: [UInt8], _ values: [(String, JSONValue)]) -> [UInt8] {
        guard case .object(var o)? = try? JSONParser.parse(bytes[...]) else { return bytes }
        for (key, value) in values {
            if let i = o.members.firstIndex(where: { $0.key == key }) { o.members[i].value = value }
        }
        return JSONWriter.write(.object(o))
    }
}

/// Orderings of a message's units that a stateful receiver must survive: reversed, one
/// repeated, one dropped, two swapped, or the units of two messages interleaved.
enum UnitOrderings {
    static func perturb(_ units: [[UInt8]], with other: [[UInt8]], rng: inout FuzzRandom) -> [[UInt8]] {
        guard units.count >= 2 || !other.isEmpty else { return units }
        var out = units
        switch rng.below(5) {
        case 0: out.reverse()
        case 1: out.insert(out[rng.below(out.count)], at: rng.below(out.count + 1))
        case 2: if out.count >= 2 { out.remove(at: rng.below(out.count)) }
        case 3: if out.count >= 2 { out.swapAt(rng.below(out.count), rng.below(out.count)) }
        default:
            var merged: [[UInt8]] = []
            for i in 0..<max(out.count, other.count) {
                if i < out.count { merged.append(out[i]) }
                if i < other.count { merged.append(other[i]) }
            }
            out = merged
        }
        return out
    }
}

/// Where an over-the-air campaign's inputs come from: mutants of the dialect's units as
/// they are (generic and format-aware byte mutations, the field vocabulary of the unit
/// format), and mutants of inner messages with their layers rebuilt (`LayeredSeed`), some
/// with their units reordered.
struct OTAInputs {
    let units: [[UInt8]]
    let layered: [LayeredSeed]
    private var unitMutator: Mutator
    private var innerMutators: [FormatID: Mutator] = [:]
    private var serial: UInt64 = 0
    /// An inner message is kept to this size, so that its units stay a few dozen.
    static let maxInner = 12_288

    init(units: [[UInt8]], layered: [LayeredSeed], unitFormat: FormatID?, maxUnit: Int, vectors: [FormatID: [[UInt8]]]) {
        self.units = units
        self.layered = layered
        unitMutator = unitFormat.flatMap(FuzzRegistry.target).map { Mutator(target: $0, maxLength: maxUnit + 64) } ?? Mutator(maxLength: maxUnit + 64)
        for unit in units { unitMutator.learn(from: unit) }
        for seed in layered where innerMutators[seed.format] == nil {
            var mutator = FuzzRegistry.target(seed.format).map { Mutator(target: $0, maxLength: Self.maxInner) } ?? Mutator(maxLength: Self.maxInner)
            for bytes in (vectors[seed.format] ?? []) + layered.filter({ $0.format == seed.format }).map(\.inner) { mutator.learn(from: bytes) }
            innerMutators[seed.format] = mutator
        }
    }

    /// Whole mutants until there are at least `count` units (a mutant's units stay together
    /// in one batch, so a death's batch holds every layer of what killed it).
    mutating func batch(atLeast count: Int, rng: inout FuzzRandom) -> [[UInt8]] {
        var batch: [[UInt8]] = []
        while batch.count < count { batch += next(rng: &rng) }
        return batch
    }

    /// One mutant: a unit (a third of the time; half of those by the field vocabulary) or the
    /// units of a layered message.
    mutating func next(rng: inout FuzzRandom) -> [[UInt8]] {
        guard !layered.isEmpty, units.isEmpty || !rng.oneIn(3) else {
            let unit = rng.pick(units)
            if rng.oneIn(2), let format = unitMutator.format,
               let m = FieldMutation.mutate(unit, format: format, tokens: unitMutator.tokens, maxLength: unitMutator.maxLength, rng: &rng) {
                return [m]
            }
            return [unitMutator.mutate(unit, other: rng.pick(units), rng: &rng).bytes]
        }
        serial += 1
        let seed = rng.pick(layered)
        let fresh = seed.refresh(seed.inner, serial)
        var mutant: [UInt8]
        let mutator = innerMutators[seed.format]!
        if rng.oneIn(2), let m = FieldMutation.mutate(fresh, format: seed.format, tokens: mutator.tokens, maxLength: seed.maxInner, rng: &rng) {
            mutant = m
        } else {
            mutant = Array(innerMutators[seed.format]!.mutate(fresh, other: rng.pick(layered.filter { $0.format == seed.format }).inner, rng: &rng).bytes
                .prefix(seed.maxInner))
        }
        var out = seed.wrap(mutant, &rng)
        if out.isEmpty { out = [mutant] }
        // Stateful: now and then the units in another order, or among another message's.
        if rng.oneIn(6) {
            let partner = rng.pick(layered)
            serial += 1
            let other = rng.oneIn(2) ? partner.wrap(partner.refresh(partner.inner, serial), &rng) : []
            out = UnitOrderings.perturb(out, with: other, rng: &rng)
        }
        return out
    }
}
