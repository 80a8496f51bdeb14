import BLEHost
import BLERadio
import Conformance
import Foundation
import HCITransport
import MeshNode
import MeshWire

/// A DUT on the air: a device that serves the dialect's GATT binding (docs/dialects/<d>.md),
/// reached through one HCI adapter per tester identity (docs/radio.md, "The GATT DUT driver").
///
/// Adapter n plays link n of every check: `linkUp(n)` connects it to the target as central,
/// and the DUT's notifications on that connection (and its writes into the tester's own
/// service, when the DUT connects out as a central) are what the DUT sent on link n. The
/// adapters are powered on once per run, not per check: controller bring-up is the slow part.
///
/// Not thread-safe: the runner drives it from one thread, one session at a time.
public final class GATTDriver: DUTDriver, @unchecked Sendable {
    public struct Options: Sendable {
        /// Who opens a link (docs/radio.md, "Links").
        public enum LinkSetup: Sendable, Equatable {
            /// The tester connects to the DUT as central.
            case testerConnects
            /// The tester identity advertises and waits for the DUT to connect to it as central.
            case dutConnects
        }
        /// How long a connection to the DUT may take (the DUT's advertising interval, and
        /// one retry's worth of slack).
        public var connectTimeout: Duration = .seconds(5)
        /// How long an identity advertises for the DUT to connect to it and subscribe (the
        /// DUT's scan interval, its connection, MTU exchange, discovery and subscription).
        public var dutConnectTimeout: Duration = .seconds(10)
        /// How long after the DUT subscribed to a tester identity its connection becomes the
        /// link, unless the DUT writes on it first (docs/radio.md, "Links").
        public var dutLinkSettle: Duration = .milliseconds(250)
        /// MTU exchange, discovery, subscribe, one write, one disconnect.
        public var operationTimeout: Duration = .seconds(5)
        /// Controller bring-up (HCI reset and initialisation).
        public var powerOnTimeout: Duration = .seconds(10)
        /// The ways a link is tried, in order, until one works: at most this many attempts.
        public var linkSetup: [LinkSetup] = [.testerConnects, .dutConnects, .testerConnects]
        /// After this many consecutive checks whose links could not be brought up, the DUT is
        /// unreachable: every later check is INCONC at once. 0: never (over-the-air fuzzing,
        /// where a DUT that cannot be linked is the finding).
        public var unreachableAfter = 2
        /// Write a value that fits ATT_MTU - 3 as a Write Command whenever the DUT's packet
        /// characteristic declares Write Without Response, whatever write the binding's apps
        /// use: no ATT round trip per value (over-the-air fuzzing's throughput). The DUT's
        /// answer to a write request (an ATT error) is then not seen.
        public var writeCommandsWhereAllowed = false
        /// Tester identities asked of each adapter with LE extended advertising (one per
        /// advertising set and own address), and links planned in all: the catalog's largest
        /// check needs 6 links, and every link is one more central the DUT must hold.
        public var identitiesPerAdapter = 6
        public var maxLinks = 6
        public init() {}

        /// Waiting for the DUT to connect first (`run --dut-connects`): for a DUT that connects
        /// out readily but is slow or unwilling to accept connections (a phone app in the background).
        public static let dutConnectsFirst: [LinkSetup] = [.dutConnects, .testerConnects, .dutConnects]
    }

    public let binding: GATTBinding
    public let dialect: DialectName
    public let adapters: [TesterAdapter]
    /// The link plan: link n of every check is `identities[n - 1]`, spread over the adapters in
    /// turn (adapter 1's first identity, adapter 2's first, adapter 1's second, ...), so checks
    /// with few links use separate radios as before. `measureLinks` keeps the ones that work.
    public private(set) var identities: [TesterIdentity] = []
    /// What `measureLinks` found, per adapter (for the report and the NA reasons).
    public private(set) var linkNotes: [Int: String] = [:]
    /// The DUT, with the address type it advertises with (set by `locate`).
    public private(set) var target: BluetoothAddress?
    /// Set when a tester adapter failed (transport closed, controller error): every later
    /// check is ERROR and the CLI stops with exit 2 and this text.
    public private(set) var adapterFailure: String?
    /// Why the DUT is unreachable, once `unreachableAfter` checks in a row could not bring
    /// their links up or found it no longer answering: every later check is INCONC without
    /// being tried, and the CLI ends with one summary line and exit 1.
    public private(set) var unreachable: String?
    /// Checks in a row whose links could not be brought up (or whose DUT stopped answering).
    private var linkSetupFailures = 0
    /// The DUT's service layout, learnt by the first discovery and reused (GATT handles of a
    /// device do not change while it runs; a stale cache shows as a failed subscribe and is redone).
    var discovered: DiscoveredService?

    public var options: Options

    init(binding: GATTBinding, dialect: DialectName, adapters: [TesterAdapter], options: Options) {
        self.binding = binding
        self.dialect = dialect
        self.adapters = adapters
        self.options = options
        plan(adapters.map(\.capacity))
    }

    public var name: String {
        "GATT device \(target?.description ?? "?") via \(adapters.count) adapter\(adapters.count == 1 ? "" : "s") (\(adapters.map(\.runtime.transport.name).joined(separator: ", ")); \(identities.count) tester link\(identities.count == 1 ? "" : "s"))"
    }

    /// Links 1, 2, ... over the adapters in turn, `counts[a]` identities on adapter a.
    private func plan(_ counts: [Int]) {
        identities.removeAll()
        for set in 0..<(counts.max() ?? 0) {
            for adapter in adapters where set < counts[adapter.index] && identities.count < options.maxLinks {
                identities.append(TesterIdentity(link: LinkID(identities.count + 1), adapter: adapter.index, set: UInt8(set),
                                                 address: adapter.address(ofIdentity: set)))
            }
        }
        for adapter in adapters { adapter.identities = identities.filter { $0.adapter == adapter.index } }
    }

    /// The adapter playing an identity.
    func adapter(of identity: TesterIdentity) -> TesterAdapter { adapters[identity.adapter] }

    /// Links each adapter gives, and why (one line per adapter), for the report.
    public var linkSummary: [TesterLinks] {
        adapters.map { TesterLinks(adapter: $0.name, identities: $0.capacity, links: $0.identities.count, note: note($0)) }
    }

    private func note(_ a: TesterAdapter) -> String {
        [a.capacityReason, linkNotes[a.index]].compactMap { $0 }.joined(separator: "; ")
    }

    /// Why the run has `identities.count` links and not more (the NA reason of a check that needs more).
    public var linkLimitReason: String {
        "tester links per adapter: " + adapters.map { "\($0.name): \($0.identities.count) (\(note($0)))" }.joined(separator: "; ")
    }

    /// Connects every planned identity to the target at once, in link order, and keeps the plan
    /// to those that got a link: a controller may refuse a second link to the same peer
    /// (Connection Already Exists) and a DUT may accept only so many centrals. Every link is
    /// closed again before the checks start. A refused identity ends its adapter's list; a DUT
    /// that stops accepting (a connect timeout) ends the measurement.
    public func measureLinks() throws(GATTDriverError) {
        guard let target else { throw .setup("no target located") }
        var held: [(TesterIdentity, UInt16)] = []
        var refused: Set<Int> = []
        var full: String?
        for identity in identities where !refused.contains(identity.adapter) && full == nil {
            let adapter = adapter(of: identity)
            do {
                let result = try adapter.runtime.perform(.connect(target, timeout: options.connectTimeout, ownAddress: identity.address),
                                                         until: .now + options.connectTimeout + .seconds(1))
                if case .connected(let handle) = result { held.append((identity, handle)) }
            } catch .operationFailed(_, .timeout), .timeout {
                full = "the DUT accepted no further central after \(held.count) link(s) (a connect from \(identity.address.string) timed out)"
            } catch .operationFailed(_, let why) {
                refused.insert(identity.adapter)
                linkNotes[identity.adapter] = "the controller refused a link from identity \(Int(identity.set) + 1) (\(identity.address.string)) while holding \(identity.set): \(why)"
            } catch {
                throw adapterError(adapter, error)
            }
        }
        // A link counts when the DUT answers ATT on it, not when its controller merely accepts the
        // connection: the controller under a crashed app still accepts links and answers nothing,
        // and a plan of one such link would make every multi-link check NA instead of letting the
        // link set-up find the DUT unreachable. The first link that does not answer ends the probe.
        var answering: [(TesterIdentity, UInt16)] = []
        for (identity, handle) in held {
            let adapter = adapter(of: identity)
            do {
                _ = try adapter.runtime.perform(.exchangeMTU(handle: handle, mtu: binding.requestedMTU), until: .now + options.operationTimeout)
                answering.append((identity, handle))
            } catch {
                if error.isAdapterFailure { throw adapterError(adapter, error) }
                break
            }
        }
        for (identity, handle) in held {
            _ = try? adapter(of: identity).runtime.perform(.disconnect(handle: handle), until: .now + options.operationTimeout)
        }
        if !held.isEmpty, answering.isEmpty, options.unreachableAfter > 0 {
            // Its controller links but nothing behind it answers: no check could decide anything,
            // and each would spend its link set-up attempts finding that out again.
            unreachable = "it accepted a connection but did not answer the MTU exchange within \(options.operationTimeout) (the app or its host stack is not running)"
        }
        guard !answering.isEmpty else {
            // A DUT that only connects out (or is slow to accept) gets the plan unmeasured: each
            // link is then set up as "Links" says, and one that cannot be is INCONC.
            let why = held.isEmpty ? "the DUT accepted no connection from a tester identity within \(options.connectTimeout)"
                : "the DUT accepted a connection but did not answer the MTU exchange within \(options.operationTimeout)"
            for adapter in adapters { linkNotes[adapter.index] = "not measured: \(why)" }
            return
        }
        held = answering
        var counts = Array(repeating: 0, count: adapters.count)
        for (identity, _) in held { counts[identity.adapter] += 1 }
        for adapter in adapters where linkNotes[adapter.index] == nil {
            if let full, counts[adapter.index] < adapter.capacity { linkNotes[adapter.index] = full }
            else {
                let capped = held.count == options.maxLinks ? " (the run plans \(options.maxLinks) links in all: the most a check needs)" : ""
                linkNotes[adapter.index] = "\(counts[adapter.index]) simultaneous link(s) to the DUT measured\(capped)"
            }
        }
        plan(counts)
    }

    /// Opens the tester identities: one per transport, link n = transport n, each with its own
    /// random static address (from `seed`) and the tester's GATT service. Throws with the
    /// adapter's name when one cannot be brought up; already opened ones are closed.
    public static func open(transports: [any HCITransport], dialect: DialectName, seed: UInt64 = 1,
                            options: Options = Options()) throws(GATTDriverError) -> GATTDriver {
        guard let binding = GATTBinding.forDialect(dialect.rawValue) else {
            throw .setup("dialect \(dialect.rawValue) has no GATT binding")
        }
        guard let probe = dialect.makeProbe() else { throw .setup("dialect \(dialect.rawValue) has no conformance probe") }
        var adapters: [TesterAdapter] = []
        for (i, transport) in transports.enumerated() {
            // The adapter's GATT service names its first identity's tester (link i + 1 of the plan).
            let nodeID = GATTNodeBridge.nodeIDValue(probe.address(of: .tester(i + 1)), dialect: dialect)
            do {
                adapters.append(try TesterAdapter.open(transport: transport, index: i, binding: binding, nodeID: nodeID,
                                                       seed: seed, wanted: max(1, options.identitiesPerAdapter),
                                                       timeout: options.powerOnTimeout))
            } catch {
                adapters.forEach { $0.runtime.close() }
                transports[i...].forEach { $0.close() }
                throw .adapter(transport.name, error)
            }
        }
        return GATTDriver(binding: binding, dialect: dialect, adapters: adapters, options: options)
    }

    /// Closes every adapter's transport.
    public func close() {
        adapters.forEach { $0.runtime.close() }
    }

    // MARK: finding the DUT

    public struct Advertiser: Hashable, Sendable {
        public var address: BluetoothAddress
        public var name: String?
        public var rssi: Int8
        public var extended: Bool
    }

    /// Scans from the first adapter for `duration` and returns the devices that advertise the
    /// dialect's service (not the tester's own adapters), strongest first.
    public func scan(for duration: Duration) throws(GATTDriverError) -> [Advertiser] {
        var found: [BluetoothAddress: Advertiser] = [:]
        try scanning(until: .now + duration) { report in
            guard report.ad?.serviceUUIDs.contains(where: { $0.matches(binding.service) }) == true else { return false }
            var entry = found[report.address] ?? Advertiser(address: report.address, name: nil, rssi: report.rssi, extended: report.extended)
            entry.name = entry.name ?? report.ad?.localName
            entry.rssi = max(entry.rssi, report.rssi)
            found[report.address] = entry
            return false
        }
        return found.values.sorted { ($0.rssi, $1.address.string) > ($1.rssi, $0.address.string) }
    }

    /// Waits up to `timeout` for an advertisement from `address` (its six bytes; the type is
    /// taken from the advertisement) and makes it the target. False when it was not heard.
    public func locate(_ address: BluetoothAddress, within timeout: Duration) throws(GATTDriverError) -> Bool {
        var seen: BluetoothAddress?
        try scanning(until: .now + timeout) { report in
            guard report.address.bytes == address.bytes, report.connectable else { return false }
            seen = report.address
            return true
        }
        target = seen
        return seen != nil
    }

    /// Runs a scan on the first adapter until `stop` says so or `deadline`; always stops the scan.
    private func scanning(until deadline: ContinuousClock.Instant, _ stop: (AdvertisementReport) -> Bool) throws(GATTDriverError) {
        guard let adapter = adapters.first else { throw .setup("no adapter") }
        let runtime = adapter.runtime
        let own = Set(adapters.flatMap { a in (0..<a.capacity).map { a.address(ofIdentity: $0).bytes } })
        do {
            _ = try runtime.perform(.startScanning(ScanRequest(active: false)), until: .now + options.operationTimeout)
            defer { _ = try? runtime.perform(.stopScanning, until: .now + options.operationTimeout) }
            while let event = try runtime.nextEvent(until: deadline) {
                if case .advertisement(let report) = event, !own.contains(report.address.bytes), stop(report) { return }
            }
        } catch {
            throw adapterError(adapter, error)
        }
    }

    /// Connects the first adapter to the target and reads the dialect's node id characteristic
    /// (relay: 16 raw bytes; blemesh: the device id as a 36-character UUID string; camp: the
    /// presence JSON's userID; peat: the document's node_id). nil where the binding has no node
    /// id characteristic (bitchat, simple).
    public func readNodeID() throws(GATTDriverError) -> NodeAddress? {
        guard let nodeID = binding.nodeID else { return nil }
        guard let target, let adapter = adapters.first else { throw .setup("no target located") }
        let runtime = adapter.runtime
        var value: [UInt8] = []
        // Two attempts: one lost connection or ATT timeout on the air is not the device's answer.
        for attempt in 1...2 { do {
            guard case .connected(let handle) = try runtime.perform(.connect(target, timeout: options.connectTimeout), until: .now + options.connectTimeout + .seconds(1)) else {
                throw GATTDriverError.setup("connect answered something else")
            }
            defer {
                _ = try? runtime.perform(.disconnect(handle: handle), until: .now + options.operationTimeout)
            }
            let service = try discover(runtime, handle)
            guard let characteristic = service.characteristic(nodeID.uuid) else {
                throw GATTDriverError.setup("the DUT's \(binding.dialect) service has no node id characteristic \(nodeID.uuid)")
            }
            guard case .value(let v) = try runtime.perform(.read(handle: handle, attribute: characteristic.valueHandle), until: .now + options.operationTimeout) else {
                throw GATTDriverError.setup("read answered something else")
            }
            value = v
            break
        } catch let error as GATTDriverError {
            throw error
        } catch let error as RadioError {
            if attempt == 2 || error.isAdapterFailure { throw adapterError(adapter, error) }
        } catch {
            throw .setup("\(error)")
        } }
        switch dialect {
        case .blemesh:
            guard let uuid = UUID(uuidString: String(decoding: value, as: UTF8.self)) else {
                throw .setup("the DUT's device id characteristic holds \(value.count) bytes that are not a UUID string")
            }
            return NodeAddress(uuid)
        case .relay:
            guard value.count == 16 else { throw .setup("the DUT's node id characteristic holds \(value.count) bytes, not 16") }
            return NodeAddress(bytes: value)
        case .camp:
            // CAMP-G1: the presence characteristic's JSON names the user id (CAMP-R1).
            guard let presence = try? JSONFields(parsing: value[...], context: "presence"),
                  let user = try? presence.string("userID"), !user.isEmpty else {
                throw .setup("the DUT's presence characteristic holds \(value.count) bytes that are not JSON with a userID")
            }
            return NodeAddress(campUserID: user)
        case .peat:
            guard let address = GATTNodeBridge.peatAddress(fromNodeIDValue: value) else {
                throw .setup("the DUT's document characteristic holds \(value.count) bytes that are not a plain peat document")
            }
            return address
        default:
            throw .setup("meshconform has no GATT binding for \(dialect.rawValue) yet")
        }
    }

    /// The DUT's service (discovered once per run).
    func discover(_ runtime: HostRuntime, _ handle: UInt16, again: Bool = false) throws -> DiscoveredService {
        if let discovered, !again { return discovered }
        guard case .service(let service) = try runtime.perform(.discover(handle: handle, service: binding.service), until: .now + options.operationTimeout) else {
            throw GATTDriverError.setup("discovery answered something else")
        }
        discovered = service
        return service
    }

    /// A runtime failure is the adapter's (environment) or, for operation-level errors, the
    /// peer's; the caller decides for the latter.
    func adapterError(_ adapter: TesterAdapter, _ error: RadioError) -> GATTDriverError {
        .adapter(adapter.runtime.transport.name, error)
    }

    func markFailed(_ text: String) { if adapterFailure == nil { adapterFailure = text } }

    /// A session's end: counts checks in a row whose links could not be brought up or whose
    /// DUT stopped answering (`GATTSession.unreachableReason`).
    func checkEnded(linkSetupFailure: String?, linkCameUp: Bool) {
        if let linkSetupFailure {
            linkSetupFailures += 1
            if options.unreachableAfter > 0, linkSetupFailures >= options.unreachableAfter, unreachable == nil {
                unreachable = "\(linkSetupFailures) checks in a row could not reach the DUT (their links could not be brought up, or it stopped answering); the last: \(linkSetupFailure)"
            }
        } else if linkCameUp {
            linkSetupFailures = 0
        }
    }

    // MARK: DUTDriver

    public func start(_ setup: DUTSetup) throws -> any DUTSession {
        if let adapterFailure { throw TesterError("a tester adapter failed earlier in the run: \(adapterFailure)") }
        guard let target else { throw TesterError("no target: locate the DUT before the run") }
        if unreachable != nil {
            throw LinkFailure("not run: the DUT became unreachable (the run's last line says why)")
        }
        let session = GATTSession(driver: self, target: target)
        try session.startClean()
        return session
    }
}

/// Why the driver could not be set up or lost an adapter.
public enum GATTDriverError: Error, CustomStringConvertible {
    case adapter(String, RadioError)
    case setup(String)

    public var description: String {
        switch self {
        case .adapter(let name, let e): "adapter \(name): \(e)"
        case .setup(let text): text
        }
    }

    /// Environment trouble with an adapter (the CLI says how to fix it and exits 2).
    public var isAdapterFailure: Bool {
        if case .adapter(_, let e) = self { return e.isAdapterFailure }
        return false
    }
}

extension RadioError {
    /// The adapter's own trouble (transport closed, controller failed, event flood), as
    /// against an operation the peer did not complete.
    var isAdapterFailure: Bool {
        switch self {
        case .transport, .controllerFailed, .eventFlood: true
        case .operationFailed, .timeout: false
        }
    }
}
