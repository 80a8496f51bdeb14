import BLEHost
import Conformance
import Foundation
import GATTDUT
import HCITransport
import MeshNode

/// `run --adapter A --adapter B [--target ADDR]`: the DUT is a device on the air, reached
/// through the GATT DUT driver (docs/radio.md, "The GATT DUT driver").
extension RunCommand {
    /// How long the listing scan runs without --target.
    static let listingScan: Duration = .seconds(3)

    func radioPlan(declared: Capabilities?, dialect: DialectName?) throws -> Plan {
        guard !adapter.isEmpty else {
            throw UsageError("--target, --btsnoop and --dut-connects go with --adapter: pass one --adapter per tester identity, e.g. --adapter tcp:127.0.0.1:7001 --adapter tcp:127.0.0.1:7002")
        }
        if dutExec != nil || mutant != nil {
            throw UsageError("--adapter tests a device on the air; it cannot be combined with --dut-exec or --mutant (run the mutant with `meshconform node --mutant NAME` on another adapter)")
        }
        var endpoints: [HCIEndpoint] = []
        for moniker in adapter {
            switch try AdapterMoniker(parsing: moniker) {
            case .virtual: throw UsageError("--adapter virtual is the built-in node's radio: omit --adapter to test the built-in node, or give radios (hciN, tcp:HOST:PORT, unix:PATH)")
            case .radio(let e): endpoints.append(e)
            }
        }
        guard Set(adapter).count == adapter.count else {
            throw UsageError("the same --adapter is given twice: each adapter is one tester identity, give distinct ones")
        }
        let wanted: BluetoothAddress?
        do {
            wanted = try target.map { try BluetoothAddress(string: $0, type: .random) }
        } catch {
            throw UsageError("--target must be a BLE address AA:BB:CC:DD:EE:FF (public or random; the type is read from its advertisements): \(error)")
        }

        var transports: [any HCITransport] = []
        for endpoint in endpoints {
            do {
                var transport: any HCITransport = try endpoint.open()
                if let btsnoop {
                    do { transport = try CapturingTransport(transport, directory: btsnoop) } catch {
                        transport.close()
                        throw UsageError("--btsnoop: \(error)")
                    }
                }
                transports.append(transport)
            } catch let error as TransportError {
                transports.forEach { $0.close() }
                throw UsageError(error.description)
            } catch {
                transports.forEach { $0.close() }
                throw error
            }
        }
        guard let d = try dialect ?? declared?.dialect ?? detectDialect(on: transports, target: wanted) else {
            transports.forEach { $0.close() }
            throw UsageError("no dialect named and no --target to find it from: pass --target ADDR with one of the addresses above (its dialect is detected), or --dialect D (\(DialectName.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        let driver: GATTDriver
        do {
            driver = try GATTDriver.open(transports: transports, dialect: d, seed: seed)
        } catch {
            throw UsageError("cannot bring the tester adapters up: \(error) (is the controller running and free? Bumble controllers: one fresh set per run, docs/radio.md)")
        }
        do {
            guard let wanted else {
                let found = try driver.scan(for: Self.listingScan)
                print("devices advertising the \(d.rawValue) service (\(driver.binding.service)), \(Self.listingScan) scan from \(adapter[0]):")
                for a in found {
                    print("  \(a.address.string)  \(a.address.type)  rssi \(a.rssi)  \(a.name ?? "(no name)")\(a.extended ? "  extended" : "")")
                }
                if found.isEmpty { print("  none") }
                driver.close()
                throw UsageError(found.isEmpty
                    ? "no device advertises the \(d.rawValue) service: is the DUT on and advertising? Then pass --target ADDR"
                    : "choose the DUT: pass --target ADDR with one of the addresses above")
            }
            guard try driver.locate(wanted, within: driver.options.connectTimeout) else {
                driver.close()
                throw UsageError("--target \(wanted.string): no connectable advertisement from it within \(driver.options.connectTimeout); run without --target to list the devices advertising the \(d.rawValue) service")
            }
            // Each adapter plays one identity per advertising set (legacy controllers: one); how many
            // links they give at once is measured against the DUT itself (docs/radio.md).
            try driver.measureLinks()
            let links = driver.identities.count
            var caps = declared ?? Capabilities.radio(d, links: links)
            caps.dialect = d
            if links <= caps.maxLinks {
                caps.maxLinks = links
                caps.maxLinksReason = driver.linkLimitReason
            }
            // The tester, as central, sets a link's ATT_MTU in its exchange (FRG/BV-08).
            caps.linkMaxUnit = true
            // Nothing over the air gives a device the tester's date or id: it has its own.
            caps.takesEpoch = false
            caps.keepsOwnIdentity = true
            if caps.upperTester, !prompt, promptAnswers == nil {
                print("note: upperTester is declared, but the GATT driver has no channel to the DUT's app: checks that need it are NA (--prompt asks you instead)")
                caps.upperTester = false
            }
            do {
                try learnIdentity(driver, &caps)
            } catch {
                // The air lost a read, or the device is slow to accept: the run goes on, and
                // its link set-up says whether the DUT can be reached at all.
                if error.isAdapterFailure { throw error }
                print("note: could not read the DUT's node id characteristic (\(error)); going on without it")
            }
            if dutConnects { driver.options.linkSetup = GATTDriver.Options.dutConnectsFirst }
            return Plan(driver: driver, capabilities: [caps], radio: driver)
        } catch let error as GATTDriverError {
            driver.close()
            throw UsageError("\(error)\(error.isAdapterFailure ? " (is the controller still running?)" : "")")
        }
    }

    /// No --dialect: the target's dialect from its advertised service UUIDs or its GATT
    /// database (docs/radio.md, "Finding the DUT"). Without a target, lists the devices in
    /// range with their dialects and returns nil. Throws a usage error when it cannot tell.
    private func detectDialect(on transports: [any HCITransport], target: BluetoothAddress?) throws -> DialectName? {
        let detector: DialectDetector
        do {
            // An address of its own: the driver's tester identities come up after it.
            detector = try DialectDetector(transport: transports[0], address: try! BluetoothAddress(string: "C3:4D:43:44:45:54"))
            guard let target else {
                let (found, others) = try detector.scan(for: Self.listingScan)
                print("devices in range advertising a mesh dialect's service, \(Self.listingScan) scan from \(adapter[0]):")
                for a in found {
                    print("  \(a.address.string)  \(a.address.type)  rssi \(a.rssi)  \(a.dialects.map(\.rawValue).joined(separator: "+"))  \(a.name ?? "(no name)")\(a.connectable ? "" : "  not connectable")")
                }
                if found.isEmpty { print("  none") }
                if others > 0 {
                    print("  and \(others) other device\(others == 1 ? "" : "s") advertising no dialect's service (an app in the background may not: --target ADDR looks in its GATT database)")
                }
                return nil
            }
            let (d, evidence) = try detector.detect(target)
            print("dialect \(d.rawValue): \(evidence)")
            return d
        } catch {
            transports.forEach { $0.close() }
            throw UsageError("\(error)")
        }
    }

    /// The DUT keeps its own mesh identity over the air. The capabilities file may declare it;
    /// otherwise it is read from the binding's node id characteristic. When it is the identity
    /// the suite assigns (`meshconform node --conformance-dut`), the probe's keys apply as is.
    private func learnIdentity(_ driver: GATTDriver, _ caps: inout Capabilities) throws(GATTDriverError) {
        let probe = caps.dialect.makeProbe()
        let assigned = try? probe?.setup(capabilities: Capabilities(dialect: caps.dialect), seed: 0).address
        guard let read = try driver.readNodeID() else {
            // No node id characteristic (bitchat, simple): the declared id, else the one the
            // DUT names itself by in its traffic (Capabilities.keepsOwnIdentity); never a guess.
            if caps.address == nil {
                print("note: the \(caps.dialect.rawValue) binding has no node id characteristic; the DUT's id will be learnt from its own traffic (checks that need it are NA until then): declare it as address in --capabilities to skip that")
            }
            return
        }
        let readText = read.uuid?.uuidString ?? read.description
        if let declared = caps.address {
            if declared.uppercased() != readText.uppercased() {
                print("note: the capabilities file declares address \(declared), the DUT's node id characteristic says \(readText); using the declared one")
            }
            return
        }
        if read == assigned {
            print("DUT identity \(readText): the one the suite assigns (meshconform node --conformance-dut)")
            caps.keepsOwnIdentity = false
            return
        }
        caps.address = readText
        print("DUT identity \(readText), read from its node id characteristic" +
              (caps.dialect == .relay && caps.publicKey == nil ? "; without its publicKey in a capabilities file, checks that send frames to the DUT are NA" : ""))
    }
}

extension Capabilities {
    /// Defaults for a device on the air without a capabilities file: the dialect's features,
    /// the tester links the adapters gave, no upper tester (there is no channel to the app), slack
    /// for the radio path (connection events, HCI transport, the tester polling several adapters),
    /// and a check budget that lets DDP/BV-06's cache fill (about 30 s on the air) finish.
    static func radio(_ dialect: DialectName, links: Int) -> Capabilities {
        Capabilities(dialect: dialect, beacons: dialect == .relay, routing: dialect == .blemesh,
                     upperTester: false, maxLinks: links, keepsOwnIdentity: true, takesEpoch: false, timingSlackMs: 150,
                     checkBudgetSeconds: 45)
    }
}
