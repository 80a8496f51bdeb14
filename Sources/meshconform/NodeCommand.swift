import ArgumentParser
import BLEHost
import BLERadio
import Conformance
import Foundation
import HCITransport
import MeshNode
import MeshWire

/// `meshconform node`: the reference node (or a mutant) on a radio, in the apps' dual role on
/// the dialect's GATT binding (peripheral, and central to the peers it hears), so phones,
/// other stacks, other nodes and the conformance suite can talk to it.
struct NodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "node",
        abstract: "Run the reference mesh node on an HCI adapter, in the apps' dual role on the dialect's GATT binding.",
        discussion: """
            Each central that connects and subscribes to the packet characteristic is one link of the node. \
            The node advertises the dialect's service (docs/dialects/<dialect>.md, GATT binding) every 20 ms, \
            and, as the apps do, scans for it and connects out to the peers it hears (one link per peer, at most \
            --max-central-links, retried with backoff); --no-central turns that off. \
            As the apps, it names itself on its own: relay beacons every 2 s, blemesh ANNOUNCE on each new link, \
            bitchat announce on each new link and every 15 s, camp announcement on each new link and every 300 s, \
            peat document every 2 s (simple has no such traffic). \
            Exit status: 0 after --duration, 1 when the controller or transport fails on the way, 2 bad use or \
            an adapter that cannot be opened (the message says how to fix it).
            """)

    @Option(help: "Dialect: \(DialectName.allCases.map(\.rawValue).joined(separator: ", ")).")
    var dialect: String

    @Option(help: "HCI adapter: hciN, tcp:HOST:PORT or unix:PATH.")
    var adapter: String

    @Option(help: "Run a named mutant of the reference node (see `meshconform list --mutants`); comma-separate to combine; `app`: the dialect's main app profile, `app-ios`, `app-android`: bitchat's (`meshconform list --apps`).")
    var mutant: String?

    @Option(help: "Write a btsnoop capture of the adapter's HCI traffic into this directory.")
    var btsnoop: String?

    @Option(help: "Seconds to run (default: until interrupted).")
    var duration: Double?

    @Option(help: "The node's mesh identity, a UUID (default: derived from --seed).")
    var address: String?

    @Option(help: "The random static BLE address to use, AA:BB:CC:DD:EE:FF (default: derived from --seed).")
    var bleAddress: String?

    @Option(help: "Seed for the node's random choices and the default identities.")
    var seed: UInt64 = 1

    @Option(name: .customLong("setting"), help: "A dialect setting of the node, KEY=VALUE (repeatable), as a process DUT gets them in its start frame (docs/stdio-dut.md), e.g. privateKey=HEX.")
    var settings: [String] = []

    @Flag(help: "Take the identity and settings the conformance suite assigns its DUT (relay: its X25519 key and the testers' contacts; blemesh: device id DD000000-...), so `meshconform run --adapter` can address it without a capabilities file.")
    var conformanceDUT = false

    @Flag(help: "Peripheral only: do not scan for and connect out to peers advertising the service.")
    var noCentral = false

    @Option(help: "Outgoing (central) links at most.")
    var maxCentralLinks = 3

    @Flag(help: "A test aid, no real device does it: start afresh (same identity, empty caches and routes) whenever its last link, in either role, goes.")
    var freshWhenIdle = false

    func run() throws {
        let dialectName = try parseDialect(dialect)
        guard let binding = GATTBinding.forDialect(dialectName.rawValue) else {
            throw UsageError("dialect \(dialectName.rawValue) has no GATT binding; known: \(GATTBinding.all.map(\.dialect).joined(separator: ", "))")
        }
        let mutants = try parseMutants(mutant)
        if let problem = mutants.appProblem(for: dialectName) { throw UsageError("--mutant: \(problem)") }
        let faults = mutants.faults(for: dialectName)
        let endpoint: HCIEndpoint
        do {
            switch try AdapterMoniker(parsing: adapter) {
            case .virtual: throw UsageError("`node` needs a radio: --adapter hciN, tcp:HOST:PORT or unix:PATH (the virtual radio has no outside peers)")
            case .radio(let e): endpoint = e
            }
        } catch let error as MonikerError {
            throw UsageError(error.description)
        }
        if let duration, !(duration > 0) { throw UsageError("--duration must be a positive number of seconds") }
        guard (1...7).contains(maxCentralLinks) else { throw UsageError("--max-central-links must be 1 to 7 (the host holds 8 connections); use --no-central for none") }
        var rng = SeededRandom(seed: seed)
        var nodeAddress: NodeAddress
        if let address {
            guard let uuid = UUID(uuidString: address) else { throw UsageError("--address must be a UUID, e.g. 6B1E2C4A-0000-4000-8000-000000000001") }
            nodeAddress = NodeAddress(uuid)
        } else {
            nodeAddress = NodeAddress(bytes: (0..<16).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        }
        var dialectSettings: [String: String] = [:]
        if conformanceDUT {
            if address != nil { throw UsageError("--conformance-dut takes the suite's DUT identity; it cannot be combined with --address") }
            guard let probe = dialectName.makeProbe() else {
                throw UsageError("--conformance-dut: the suite has no tester side for \(dialectName.rawValue) yet; drop the flag")
            }
            let setup = try probe.setup(capabilities: .referenceNode(dialectName), seed: seed)
            nodeAddress = setup.address
            dialectSettings = setup.settings
        }
        // On the air a node runs on the real date, as the apps do (the tester stamps what it
        // sends by its wall clock there: Capabilities.takesEpoch); --setting epoch=S overrides.
        dialectSettings["epoch"] = String(Int(Date().timeIntervalSince1970))
        for setting in settings {
            guard let eq = setting.firstIndex(of: "="), eq != setting.startIndex else {
                throw UsageError("--setting must be KEY=VALUE, e.g. privateKey=0123...; got '\(setting)'")
            }
            dialectSettings[String(setting[..<eq])] = String(setting[setting.index(after: eq)...])
        }
        let bdaddr: BluetoothAddress
        do {
            if let bleAddress {
                bdaddr = try BluetoothAddress(string: bleAddress, type: .random)
                guard bdaddr.isRandomStatic else { throw UsageError("--ble-address must be a random static address: its first byte C0 to FF, e.g. C0:11:22:33:44:55") }
            } else {
                var bytes = (0..<6).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                bytes[0] |= 0xC0   // random static (Core Vol 6 Part B 1.3.2.1)
                bdaddr = try BluetoothAddress(bytes: bytes, type: .random)
            }
        } catch let error as HostWireError {
            throw UsageError("--ble-address: \(error)")
        }

        var transport: any HCITransport
        do {
            transport = try endpoint.open()
        } catch {
            throw UsageError(error.description)
        }
        if let btsnoop {
            do {
                transport = try CapturingTransport(transport, directory: btsnoop)
            } catch {
                transport.close()
                throw UsageError("--btsnoop: \(error)")
            }
        }
        let runtime = HostRuntime(transport: transport)
        defer { runtime.close() }
        if dialectName == .peat, let id = dialectSettings["nodeId"].flatMap(UInt32.init), id != 0 {
            nodeAddress = NodeAddress(peatNode: id)   // PEAT-R1: the id it advertises and writes is its address
        }
        // As the apps: it announces itself on each new link and at its page's period (bitchat,
        // camp; relay beacons, blemesh ANNOUNCEs and peat documents come from the engine), so
        // peers and testers learn its identity from its traffic.
        let config = NodeConfig(address: nodeAddress, faults: faults, dialectSettings: dialectSettings, announces: true)
        let node = Node(dialect: dialectName, config: config, seed: seed)
        let bridge = GATTNodeBridge(runtime: runtime, node: node, binding: binding) { note in
            say("\(note)")
        }
        if freshWhenIdle { bridge.freshNode = { Node(dialect: dialectName, config: config, seed: seed) } }
        if !noCentral {
            var central = GATTNodeBridge.CentralOptions()
            central.maxLinks = maxCentralLinks
            bridge.central = central
        }
        // PEAT-G2: peat's complete local name is PEAT_<meshId>-<node id>; others a prefix and the id.
        let name = dialectName == .peat
            ? String(decoding: PeatDeviceName(meshID: dialectSettings["meshId"] ?? PeatDeviceName.defaultMeshID, nodeID: nodeAddress.peatNode).encoded(), as: UTF8.self)
            : binding.localNamePrefix.map { $0 + String(nodeAddress.description.prefix(10)) }
        do {
            try bridge.start(randomAddress: bdaddr, name: name)
            say("node \(nodeAddress) (\(dialectName.rawValue)\(faults.isEmpty ? "" : ", mutant " + faults.map(\.rawValue).sorted().joined(separator: ","))) on \(transport.name)")
            let end = duration.map { ContinuousClock.now + .nanoseconds(Int64($0 * 1e9)) } ?? ContinuousClock.now + .seconds(100 * 365 * 86400)
            try bridge.run(until: end)
            let links = bridge.currentLinks.map { "\($0.peer.string) \($0.outgoing ? "out" : "in")" }
            say("links at exit: \(links.isEmpty ? "none" : links.joined(separator: ", "))")
        } catch {
            if error.isEnvironmental { throw UsageError(error.description) }
            FileHandle.standardError.write(Data("meshconform node: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}

/// One line to stdout at once, unbuffered: a script watching the node sees it immediately.
private func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

