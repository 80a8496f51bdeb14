import Foundation
import MeshNode

/// What the DUT declares it supports, loaded from `--capabilities FILE` (JSON, docs/checks.md
/// says every key). A check that needs a feature the DUT does not declare is NA, not FAIL.
public struct Capabilities: Codable, Sendable, Equatable {
    public var dialect: DialectName
    /// Relays messages addressed to others.
    public var relay: Bool
    /// Sends acks for messages addressed to it.
    public var acks: Bool
    /// Sends beacons (dialects that have them).
    public var beacons: Bool
    /// Takes part in route discovery (blemesh RREQ / RREP / RERR / ANNOUNCE).
    public var routing: Bool
    /// Reports app deliveries and accepts "send" commands from the tester (stdio `deliver` /
    /// `send` frames, or the built-in node). Without it, checks that look at the app are NA.
    public var upperTester: Bool
    /// Links the DUT accepts at once; checks needing more are NA.
    public var maxLinks: Int
    /// Why `maxLinks` is what it is when the tester, not the DUT's declaration, bounds it (over
    /// the air: the links each adapter gave); quoted in the NA reason. Not read from files.
    public var maxLinksReason: String?
    /// The DUT's own mesh id when it cannot take the one the tester assigns (see
    /// docs/stdio-dut.md): a UUID string.
    public var address: String?
    /// The DUT keeps an identity of its own and ignores the one the tester assigns (a device on
    /// the air, an app). Without `address`, the tester learns it from the DUT's own traffic
    /// (relay beacon origin, blemesh ANNOUNCE, bitchat announce sender, camp senderID, peat
    /// document node id, simple sender); until then a check that needs it is NA, never FAIL.
    public var keepsOwnIdentity: Bool
    /// The DUT takes the tester's `epoch` setting as its date (the built-in node, a process
    /// the tester starts). False for a device on the air, which runs on the real date: the
    /// tester then stamps what it sends (bitchat timestamps, BITCHAT-R4; peat emergencies)
    /// with its own wall clock.
    public var takesEpoch: Bool
    /// relay: the DUT's X25519 public key (hex) when it keeps its own key.
    public var publicKey: String?
    /// Entries the DUT's de-duplication cache holds. Below the page's minimum DDP/BV-06 fails;
    /// DDP/BV-14 overflows a cache of exactly this size to see which entries go (NA without it).
    public var dedupCapacity: Int?
    /// Added to every timing window of the dialect page (milliseconds), for transports that add
    /// latency (process pipes, radios). Widening is recorded in the report.
    public var timingSlackMs: Int
    /// The longest a single check may run, in seconds of the session's clock. A check that
    /// needs longer waits (retention windows) is INCONC with the reason.
    public var checkBudgetSeconds: Double
    /// Whose clock a process DUT runs its timers on: its own (`wall`, the default) or the
    /// time the tester sends it (`tester`, docs/stdio-dut.md section 6), where waits cost
    /// no wall time. Devices on the air always keep their own.
    public var clock: DUTClock
    /// The DUT can be told how much a link carries in one value (stdio `maxUnit` in `link-up`,
    /// docs/stdio-dut.md; over the air the tester sets the link's ATT_MTU), and fits what it
    /// sends to it. Without it, checks on a small link (FRG/BV-08) are NA.
    public var linkMaxUnit: Bool

    public init(dialect: DialectName, relay: Bool = true, acks: Bool = true, beacons: Bool = true, routing: Bool = true,
                upperTester: Bool = false, maxLinks: Int = 7, address: String? = nil, keepsOwnIdentity: Bool = false, takesEpoch: Bool = true, publicKey: String? = nil,
                dedupCapacity: Int? = nil, timingSlackMs: Int = 0, checkBudgetSeconds: Double = 30, clock: DUTClock = .wall,
                linkMaxUnit: Bool = false) {
        self.dialect = dialect
        self.relay = relay
        self.acks = acks
        self.beacons = beacons
        self.routing = routing
        self.upperTester = upperTester
        self.maxLinks = maxLinks
        self.address = address
        self.keepsOwnIdentity = keepsOwnIdentity
        self.takesEpoch = takesEpoch
        self.publicKey = publicKey
        self.dedupCapacity = dedupCapacity
        self.timingSlackMs = timingSlackMs
        self.checkBudgetSeconds = checkBudgetSeconds
        self.clock = clock
        self.linkMaxUnit = linkMaxUnit
    }

    /// What the built-in reference node supports: everything its dialect has, on a virtual
    /// clock, so no check is ever out of budget.
    public static func referenceNode(_ dialect: DialectName) -> Capabilities {
        Capabilities(dialect: dialect, beacons: dialect == .relay, routing: dialect == .blemesh,
                     upperTester: true, dedupCapacity: dialect.referenceDedupCapacity, checkBudgetSeconds: 3600, linkMaxUnit: true)
    }

    /// The reference node's, or what a capabilities file for the app profile the selection
    /// names would declare (bitchat iOS: the 750 entries its trim leaves).
    public static func referenceNode(_ dialect: DialectName, as mutants: MutantSelection) -> Capabilities {
        var caps = referenceNode(dialect)
        if let capacity = mutants.appProfile(for: dialect)?.dedupCapacity { caps.dedupCapacity = capacity }
        return caps
    }

    /// The DUT's id is not known before the run: it keeps its own and none was declared.
    public var learnsIdentity: Bool { keepsOwnIdentity && address == nil }

    public func has(_ need: Capability) -> Bool {
        switch need {
        case .relay: relay
        case .acks: acks
        case .beacons: beacons
        case .routing: routing
        case .upperTester: upperTester
        case .links(let n): maxLinks >= n
        case .linkMaxUnit: linkMaxUnit
        }
    }

    enum CodingKeys: String, CodingKey {
        case dialect, relay, acks, beacons, routing, upperTester, maxLinks, address, keepsOwnIdentity, takesEpoch, publicKey, dedupCapacity, timingSlackMs, checkBudgetSeconds, clock, linkMaxUnit
    }

    /// Absent keys take the defaults above, so a file only says what differs.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let dialectName = try c.decode(String.self, forKey: .dialect)
        guard let dialect = DialectName(rawValue: dialectName) else {
            throw DecodingError.dataCorruptedError(forKey: .dialect, in: c, debugDescription: "unknown dialect \"\(dialectName)\" (known: \(DialectName.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        self.init(dialect: dialect)
        relay = try c.decodeIfPresent(Bool.self, forKey: .relay) ?? relay
        acks = try c.decodeIfPresent(Bool.self, forKey: .acks) ?? acks
        beacons = try c.decodeIfPresent(Bool.self, forKey: .beacons) ?? (dialect == .relay)
        routing = try c.decodeIfPresent(Bool.self, forKey: .routing) ?? (dialect == .blemesh)
        upperTester = try c.decodeIfPresent(Bool.self, forKey: .upperTester) ?? upperTester
        maxLinks = try c.decodeIfPresent(Int.self, forKey: .maxLinks) ?? maxLinks
        address = try c.decodeIfPresent(String.self, forKey: .address)
        keepsOwnIdentity = try c.decodeIfPresent(Bool.self, forKey: .keepsOwnIdentity) ?? keepsOwnIdentity
        takesEpoch = try c.decodeIfPresent(Bool.self, forKey: .takesEpoch) ?? takesEpoch
        publicKey = try c.decodeIfPresent(String.self, forKey: .publicKey)
        dedupCapacity = try c.decodeIfPresent(Int.self, forKey: .dedupCapacity)
        timingSlackMs = try c.decodeIfPresent(Int.self, forKey: .timingSlackMs) ?? timingSlackMs
        clock = try c.decodeIfPresent(DUTClock.self, forKey: .clock) ?? clock
        linkMaxUnit = try c.decodeIfPresent(Bool.self, forKey: .linkMaxUnit) ?? linkMaxUnit
        // On the tester's clock a wait costs no wall time: the budget defaults to the built-in
        // node's, so the retention checks are decided without raising it.
        checkBudgetSeconds = try c.decodeIfPresent(Double.self, forKey: .checkBudgetSeconds)
            ?? (clock == .tester ? Capabilities.referenceNode(dialect).checkBudgetSeconds : checkBudgetSeconds)
        if let address, UUID(uuidString: address) == nil {
            throw DecodingError.dataCorruptedError(forKey: .address, in: c, debugDescription: "address must be a UUID string")
        }
    }

    public static func load(_ path: String) throws -> Capabilities {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try JSONDecoder().decode(Capabilities.self, from: data)
    }
}

/// A feature a check needs from the DUT.
public enum Capability: Hashable, Sendable, CustomStringConvertible {
    case relay, acks, beacons, routing, upperTester
    /// At least this many simultaneous links.
    case links(Int)
    /// Takes a link's unit limit (`Capabilities.linkMaxUnit`).
    case linkMaxUnit

    public var description: String {
        switch self {
        case .relay: "relay"
        case .acks: "acks"
        case .beacons: "beacons"
        case .routing: "routing"
        case .upperTester: "upperTester"
        case .links(let n): "maxLinks>=\(n)"
        case .linkMaxUnit: "linkMaxUnit"
        }
    }
}

extension DialectName: Codable {}

/// Whose clock runs a process DUT's timers (the capabilities' `clock`).
public enum DUTClock: String, Codable, Sendable, CaseIterable {
    /// The DUT's own monotonic clock, in real time (the default; the only one on the air).
    case wall
    /// The time the tester sends in `time` lines: a virtual clock, as the built-in node's.
    case tester
}

extension Capabilities {
    /// Defaults for a process DUT without a capabilities file: the dialect's features, no upper
    /// tester (the program may not report deliveries), and 100 ms of slack for pipes and the
    /// program's scheduler on top of the page's windows.
    public static func process(_ dialect: DialectName) -> Capabilities {
        Capabilities(dialect: dialect, beacons: dialect == .relay, routing: dialect == .blemesh, timingSlackMs: 100)
    }
}
