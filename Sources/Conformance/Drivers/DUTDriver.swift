import MeshNode

/// How the DUT is started for one check: its identity and dialect settings as the tester
/// assigns them (a DUT with its own identity declares it in its capabilities instead).
public struct DUTSetup: Sendable {
    public var dialect: DialectName
    public var address: NodeAddress
    /// `NodeConfig.dialectSettings` for the reference node; sent as `settings` in the stdio
    /// `start` frame (docs/stdio-dut.md).
    public var settings: [String: String]
    public var seed: UInt64

    public init(dialect: DialectName, address: NodeAddress, settings: [String: String], seed: UInt64) {
        self.dialect = dialect
        self.address = address
        self.settings = settings
        self.seed = seed
    }
}

/// Something the DUT did, with the session-clock time it was seen.
public struct DUTOutput: Sendable {
    public enum Kind: Sendable {
        case sent([UInt8], on: LinkID)
        case delivered(AppMessage)
        case acknowledged(messageID: String)
        case disconnected(LinkID)
        /// A line the DUT logged (process DUTs), kept as evidence.
        case log(String)
    }

    public var at: Instant
    public var kind: Kind

    public init(at: Instant, kind: Kind) {
        self.at = at
        self.kind = kind
    }
}

/// The DUT misbehaved at the transport level: the check FAILs with this reason.
public struct DUTFailure: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The tester could not set up or use a link to the DUT: a preamble or postamble step (connect,
/// MTU exchange, discovery, subscription, disconnect) or a write the DUT never answered failed
/// after the driver's bounded retries, or the driver stopped trying because the DUT became
/// unreachable. The check is INCONC with this reason, never FAIL: it says nothing about what
/// the DUT sent while links were up (docs/radio.md, "Verdicts").
public struct LinkFailure: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The tester could not do its part: the check is ERROR, which says nothing about the DUT.
public struct TesterError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The DUT cannot be started at all (its command is not found, not executable): the
/// invocation's fault, not the DUT's. A runner stops the whole run on it, so the user gets one
/// clear message instead of an ERROR per check.
public struct DUTUnavailable: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A running DUT for one check. Time is the session's: virtual for the built-in node (waits
/// cost nothing), the wall clock for processes and radios. Every call is bounded: `wait`
/// returns by its deadline whatever the DUT does, and outputs are capped per session.
public protocol DUTSession: AnyObject {
    var now: Instant { get }
    /// Gives the DUT an event: bytes on a link, a link change, an upper-tester command.
    /// Throws `DUTFailure` when the DUT is gone or will not take input.
    func apply(_ event: NodeEvent) throws
    /// Everything the DUT does until `deadline`, in time order. Throws `DUTFailure` when the
    /// DUT exits or floods the tester.
    func wait(until deadline: Instant) throws -> [DUTOutput]
    /// Stops the DUT. Returns diagnostics worth keeping (the tail of its stderr), if any.
    func close() -> String?
    /// Whether `linkUp(link, peer:)` tells the DUT who is on the link (default: true). Over the
    /// air it cannot: the tester introduces itself there (`DialectProbe.introduction`).
    var tellsPeers: Bool { get }
    /// Asked when a check is about to PASS or FAIL: nil when the DUT still answers (or the
    /// session cannot tell), else why it does not. Over the air a DUT can die or drift out of
    /// reach in the middle of a check, and what it then did not send says nothing about its
    /// behaviour: neither a missing answer (FAIL) nor a silence a check expects (PASS)
    /// (docs/radio.md, "Verdicts"). A process or in-memory DUT shows its death directly
    /// (`DUTFailure`): default nil.
    func unreachableReason() -> String?
    /// Whether the time the DUT takes to answer includes hosts and a transport whose delays
    /// grow with the machine's load beyond any page's window (over the air: default false).
    /// Then the tester measures the DUT's relay latency and widens its windows to cover it,
    /// and waits past a window for what the DUT owes before judging it missing
    /// (`RelayLatencyBook`, docs/radio.md "Verdicts"). The virtual radio is deterministic, and
    /// a process DUT's timing is its own (declared `timingSlackMs`, or the tester's clock).
    var latencyVaries: Bool { get }
    /// How `link` carries the DUT's values, when the transport decides it rather than the
    /// `maxUnit` the tester gave in `linkUp` (default nil: as given). Over the air the ATT_MTU
    /// exchange settles it, and on a link the DUT made the DUT writes.
    func carriage(of link: LinkID) -> LinkCarriage?
}

/// How one link carries the DUT's values (BLEMESH-G3).
public struct LinkCarriage: Sendable, Hashable, CustomStringConvertible {
    /// The link's ATT_MTU.
    public var attMTU: Int
    /// The DUT is the link's GATT server and sends by notification, each value fitting
    /// ATT_MTU - 3; false: it is the central and writes (long writes carry up to 512 bytes).
    public var dutNotifies: Bool
    /// The tester's own path to the DUT on this link, measured when it came up: one ATT
    /// request and its response through both hosts, their controllers and the air (nil where
    /// the tester has no request of its own to time, as on a link the DUT made).
    public var roundTrip: Duration?

    public init(attMTU: Int, dutNotifies: Bool, roundTrip: Duration? = nil) {
        self.attMTU = attMTU
        self.dutNotifies = dutNotifies
        self.roundTrip = roundTrip
    }

    /// The largest value the DUT may notify on the link.
    public var maxNotification: Int { attMTU - 3 }

    public var description: String {
        dutNotifies ? "ATT_MTU \(attMTU), the DUT notifies (at most \(maxNotification) bytes a value)"
            : "ATT_MTU \(attMTU), the DUT is the central and writes"
    }
}

extension DUTSession {
    public var tellsPeers: Bool { true }
    public var latencyVaries: Bool { false }
    public func unreachableReason() -> String? { nil }
    public func carriage(of link: LinkID) -> LinkCarriage? { nil }
}

/// Starts a fresh DUT session per check, so one check's state cannot leak into the next.
public protocol DUTDriver: Sendable {
    /// One line for the report header: "reference node", "mutant no-dedup", "process: CMD".
    var name: String { get }
    func start(_ setup: DUTSetup) throws -> any DUTSession
    /// True when `start` brings up a DUT in its initial state (default: false; see below).
    var startsFreshDUT: Bool { get }
}

/// The most outputs one session may produce on top of `outputsPerInput` for each value the
/// tester wrote; beyond it the DUT is flooding the tester.
public let maxOutputsPerSession = 20_000

/// Outputs a DUT may answer each written value with (a relay on each other link, an ack, a
/// confirmation), so a check that writes thousands of values (DDP/BV-14 overflows a cache of
/// 4096) is not taken for a flood when the DUT answers each of them.
public let outputsPerInput = 4

/// The flood bound of a session that has written `inputs` values to the DUT.
public func maxOutputs(afterInputs inputs: Int) -> Int { maxOutputsPerSession + outputsPerInput * inputs }

extension DUTDriver {
    /// Whether `start` brings up a DUT in its initial state (a fresh node, a new process), so a
    /// DUT that died can be replayed against from scratch. A device on the air is only
    /// reconnected: whatever state it is in (crashed included) carries over.
    public var startsFreshDUT: Bool { false }
}
