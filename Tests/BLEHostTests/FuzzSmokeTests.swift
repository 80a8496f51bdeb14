import Testing
@testable import BLEHost
import MeshNode

/// The fuzz smoke that runs in `swift test`: every host parser over 100k mutated inputs from a
/// fixed seed. Oracles: no trap (the test process survives), and for every accepted input the
/// re-encoding is a fixed point (`roundTrip(roundTrip(x)) == roundTrip(x)`).
@Suite struct FuzzSmokeTests {
    static let runsPerParser = 100_000

    /// Valid seeds per parser; mutations start from these.
    static let seeds: [String: [[UInt8]]] = [
        "hci.event": [hex("0e 04 01 03 0c 00"), hex("0e 07 01 02 20 00 1b 00 40"), hex("3e13010001000101f5f4f3f2f1f00a0000000a0007"),
                      hex("3e2702010001f5f4f3f2f1f01b02010611070100000000000059414c45524853454d05096d657368ce"),
                      hex("3e350d01130001f5f4f3f2f1f001010000ce0000000000000000001b02010611070100000000000059414c45524853454d05096d657368"),
                      hex("1309020100030002000400"), hex("050400010013"), hex("0f 04 00 01 0d 20"), hex("0e 0a 01 09 10 00 01 00 00 dc 1b 00")],
        "hci.acl": [hex("01 20 03 00 aa bb cc"), hex("01 10 00 00"), hex("01 00 1b 00 2a 00 04 00") + Array(repeating: 1, count: 23)],
        "l2cap.frame": [hex("03 00 04 00 0a 03 00"), hex("0c 00 05 00 12 01 08 00 18 00 28 00 00 00 f4 01")],
        "att.pdu": [L2CAPAndATTTests.rbgt, hex("05 01 04 00 02 29"), hex("09 07 02 00 1c 03 00 02 29"), hex("0a 03 00"), hex("16 03 00 12 00 01 02"),
                    hex("18 01"), hex("1b 03 00 01 02 03"), hex("07 01 00 06 00"), hex("01 08 01 00 0a"), hex("10 01 00 ff ff 00 28")],
        "adv.data": [hex("02010611070100000000000059414c45524853454d05096d657368"), hex("020106 03 03 0d 18 02 0a fc 04 16 aa fe 01 04 ff 4c 00 09 00 00")],
        "hci.command": [HCICommand.reset.encoded(), HCICommand.leCreateConnection(CreateConnectionParameters(peer: peerAddress)).encoded(),
                        HCICommand.leSetAdvertisingData([2, 1, 6]).encoded(), HCICommand.leSetExtendedAdvertisingParameters(ExtendedAdvertisingParameters()).encoded()],
        "h4.packet": [hex("04 0e 04 01 03 0c 00"), hex("02 01 20 03 00 aa bb cc"), hex("01 03 0c 00")],
        "l2cap.le-signal": [hex("12 01 08 00 18 00 28 00 00 00 f4 01"), hex("01 01 02 00 00 00"), hex("13 02 02 00 00 00")],
    ]

    static func mutate(_ input: [UInt8], _ rng: inout SeededRandom, corpus: [[UInt8]]) -> [UInt8] {
        var b = input
        for _ in 0..<(1 + rng.below(4)) {
            switch rng.below(9) {
            case 0 where !b.isEmpty: b[rng.below(b.count)] ^= UInt8(1 << rng.below(8))
            case 1 where !b.isEmpty: b[rng.below(b.count)] = [0, 1, 0x7F, 0x80, 0xFF, 0x1B, 0x20][rng.below(7)]
            case 2: b.insert(UInt8(truncatingIfNeeded: rng.next()), at: rng.below(b.count + 1))
            case 3 where !b.isEmpty: b.remove(at: rng.below(b.count))
            case 4 where !b.isEmpty: b.removeLast(rng.below(b.count) + 1)
            case 5: b += (0..<rng.below(40)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            case 6 where b.count > 2:
                // Length-ish fields sit near the front in every layer here.
                let i = rng.below(min(b.count, 6))
                b[i] = UInt8(truncatingIfNeeded: Int(b[i]) + [-1, 1, -4, 4][rng.below(4)])
            case 7:
                let other = corpus[rng.below(corpus.count)]
                b = Array(b.prefix(rng.below(b.count + 1))) + other.suffix(rng.below(other.count + 1))
            default:
                if !b.isEmpty { b[rng.below(b.count)] = UInt8(truncatingIfNeeded: rng.next()) }
            }
        }
        return Array(b.prefix(600))
    }

    @Test(arguments: ["hci.event", "hci.acl", "l2cap.frame", "att.pdu", "adv.data", "hci.command", "h4.packet", "l2cap.le-signal"])
    func parserSurvivesMutationsAndRoundTrips(_ id: String) throws {
        let parser = try #require(HostParsers.parser(id: id))
        let corpus = try #require(Self.seeds[id])
        var rng = SeededRandom(seed: 0x5EED_0000 ^ UInt64(id.utf8.reduce(0) { $0 &* 31 &+ Int($1) } & 0xFFFF))
        var accepted = 0, refused: [HostWireError.Code: Int] = [:]
        for seed in corpus { #expect(parser.roundTrip(seed) == seed, "seed \(hexString(seed)) is canonical") }
        for _ in 0..<Self.runsPerParser {
            let input = Self.mutate(corpus[rng.below(corpus.count)], &rng, corpus: corpus)
            do {
                try parser.decode(input)
                accepted += 1
                guard let once = parser.roundTrip(input) else { Issue.record("decode accepted, roundTrip refused: \(hexString(input))"); continue }
                if parser.roundTrip(once) != once { Issue.record("\(id) not a fixed point: \(hexString(input))") }
            } catch {
                refused[error.code, default: 0] += 1
            }
        }
        // Both sides of the parser were exercised.
        #expect(accepted > 1_000)
        #expect(refused.values.reduce(0, +) > 1_000)
    }

    @Test func parserIdsAreTheDesignOnes() {
        let ids = Set(HostParsers.all.map(\.id))
        #expect(ids.isSuperset(of: ["hci.event", "hci.acl", "l2cap.frame", "att.pdu", "adv.data"]))
    }

    /// Random controller packets into a ready host with a connection: no trap, and its
    /// queues and timers stay bounded.
    @Test func hostSurvivesHostileController() throws {
        var config = LEHostConfig()
        config.maxQueuedACLPackets = 64
        var b = LEHostTests.ready(buffers: 4, config: config)
        _ = try b.host.registerService(GATTBinding.blemesh.serviceDefinition(nodeID: Array("X".utf8)))
        b.connection(1, role: .peripheral)
        b.autoAnswer = false
        var rng = SeededRandom(seed: 42)
        let aclSeeds: [[UInt8]] = [hex("01 20 07 00 03 00 04 00 0a 03 00"), hex("01 20 09 00 05 00 04 00 12 04 00 01 00"),
                                   hex("01 20 0b 00 07 00 04 00 16 03 00 00 00 aa bb"), hex("01 20 05 00 01 00 04 00 18"),
                                   hex("01 20 0b 00 07 00 04 00 10 01 00 ff ff 00 28")]
        let eventSeeds = FuzzSmokeTests.seeds["hci.event"]!
        for i in 0..<20_000 {
            let acl = rng.below(3) != 0
            let bytes = Self.mutate((acl ? aclSeeds : eventSeeds)[rng.below(acl ? aclSeeds.count : eventSeeds.count)], &rng, corpus: acl ? aclSeeds : eventSeeds)
            b.feed(.controller(acl ? .acl(bytes) : .event(bytes)))
            if i % 100 == 0 { b.events.removeAll(); b.acl.removeAll(); b.peerFrames.removeAll(); b.commands.removeAll() }
            #expect(b.host.queuedACLPackets <= 64)
            #expect(b.host.queuedCommands <= config.maxQueuedCommands)
        }
        #expect(b.host.pendingTimers < 100)
    }
}
