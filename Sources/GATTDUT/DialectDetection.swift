import BLEHost
import BLERadio
import HCITransport
import MeshNode

/// Which dialect a device on the air speaks, before any tester identity exists: from the
/// service UUIDs it advertises (each dialect's binding has its own, docs/dialects/<d>.md) or,
/// when its advertisements name none (a phone in the background, an advertising payload full
/// of other data), from its GATT database: connect and look for each binding's primary service.
///
/// Runs on the first adapter's transport before the driver opens it; the driver's power-on
/// resets the controller afterwards, so nothing of this run stays.
public final class DialectDetector {
    /// A device heard while scanning.
    public struct Device: Hashable, Sendable {
        public var address: BluetoothAddress
        public var name: String?
        public var rssi: Int8
        public var connectable: Bool
        /// The dialects whose service UUIDs it advertises (usually one).
        public var dialects: [DialectName]
    }

    /// How the dialect was found, for the run's log.
    public enum Evidence: Hashable, Sendable, CustomStringConvertible {
        case advertised(BluetoothUUID)
        case gattDatabase(BluetoothUUID)
        public var description: String {
            switch self {
            case .advertised(let u): "it advertises the service \(u)"
            case .gattDatabase(let u): "its GATT database holds the primary service \(u)"
            }
        }
    }

    public enum Failure: Error, CustomStringConvertible {
        case notHeard(BluetoothAddress, Duration)
        case noKnownService(BluetoothAddress)
        case ambiguous(BluetoothAddress, [DialectName])
        case radio(String, RadioError)

        public var description: String {
            let all = GATTBinding.all.map(\.dialect).joined(separator: ", ")
            switch self {
            case .notHeard(let a, let d):
                return "no connectable advertisement from \(a.string) within \(d): is it on and advertising? Run without --target to list the devices in range"
            case .noKnownService(let a):
                return "\(a.string) neither advertises nor serves the service of any dialect meshconform knows (\(all)): pass --dialect D if it speaks one"
            case .ambiguous(let a, let ds):
                return "\(a.string) serves the services of several dialects (\(ds.map(\.rawValue).joined(separator: ", "))): pass --dialect D to choose"
            case .radio(let name, let e):
                return "adapter \(name): \(e)"
            }
        }
    }

    let runtime: HostRuntime
    let timeout: Duration

    /// Powers the adapter on with `address` (random static). Throws with the adapter's name.
    public init(transport: any HCITransport, address: BluetoothAddress, timeout: Duration = .seconds(5)) throws(Failure) {
        runtime = HostRuntime(transport: transport)
        self.timeout = timeout
        do { _ = try runtime.powerOn(randomAddress: address, timeout: .seconds(10)) } catch {
            throw .radio(transport.name, error)
        }
    }

    /// The dialects whose binding service is among `uuids`, in `GATTBinding.all` order.
    public static func dialects(advertising uuids: [BluetoothUUID]) -> [DialectName] {
        GATTBinding.all.filter { b in uuids.contains { $0.matches(b.service) } }.compactMap { DialectName(rawValue: $0.dialect) }
    }

    /// Scans for `duration`: every device that advertises a dialect's service, strongest
    /// first, and how many other devices were heard.
    public func scan(for duration: Duration) throws(Failure) -> (mesh: [Device], others: Int) {
        var found: [[UInt8]: Device] = [:]
        var others: Set<[UInt8]> = []
        try scanning(until: .now + duration) { report in
            let dialects = Self.dialects(advertising: report.ad?.serviceUUIDs ?? [])
            guard !dialects.isEmpty || found[report.address.bytes] != nil else {
                others.insert(report.address.bytes)
                return false
            }
            others.remove(report.address.bytes)
            var d = found[report.address.bytes] ?? Device(address: report.address, name: nil, rssi: report.rssi, connectable: false, dialects: [])
            d.name = d.name ?? report.ad?.localName
            d.rssi = max(d.rssi, report.rssi)
            d.connectable = d.connectable || report.connectable
            d.dialects += dialects.filter { !d.dialects.contains($0) }
            found[report.address.bytes] = d
            return false
        }
        return (found.values.sorted { ($0.rssi, $1.address.string) > ($1.rssi, $0.address.string) }, others.count)
    }

    /// The dialect of `target`: from its advertisements when they name exactly one dialect's
    /// service; otherwise from its GATT database (each binding's primary service looked up).
    public func detect(_ target: BluetoothAddress) throws(Failure) -> (DialectName, Evidence) {
        var heard: AdvertisementReport?
        var advertised: [DialectName] = []
        try scanning(until: .now + timeout) { report in
            guard report.address.bytes == target.bytes else { return false }
            advertised += Self.dialects(advertising: report.ad?.serviceUUIDs ?? []).filter { !advertised.contains($0) }
            if report.connectable { heard = report }
            // A scan response may carry the UUIDs the first report lacked: stop once one is named.
            return heard != nil && !advertised.isEmpty
        }
        guard let heard else { throw .notHeard(target, timeout) }
        if advertised.count == 1, let d = advertised.first, let b = GATTBinding.forDialect(d.rawValue) {
            return (d, .advertised(b.service))
        }
        let served = try servedDialects(heard.address)
        switch served.count {
        case 0: throw .noKnownService(target)
        case 1: return (served[0], .gattDatabase(GATTBinding.forDialect(served[0].rawValue)!.service))
        default: throw .ambiguous(target, served)
        }
    }

    /// Connects and looks each binding's primary service up (Find By Type Value); always disconnects.
    func servedDialects(_ address: BluetoothAddress) throws(Failure) -> [DialectName] {
        let name = runtime.transport.name
        let handle: UInt16
        do {
            guard case .connected(let h) = try runtime.perform(.connect(address, timeout: timeout), until: .now + timeout + .seconds(1)) else {
                return []
            }
            handle = h
        } catch .operationFailed, .timeout {
            throw .notHeard(address, timeout)
        } catch {
            throw .radio(name, error)
        }
        defer { _ = try? runtime.perform(.disconnect(handle: handle), until: .now + timeout) }
        var served: [DialectName] = []
        for binding in GATTBinding.all {
            do {
                _ = try runtime.perform(.discover(handle: handle, service: binding.service), until: .now + timeout)
                if let d = DialectName(rawValue: binding.dialect) { served.append(d) }
            } catch .operationFailed(_, .notFound), .operationFailed(_, .attError) {
                continue   // not this dialect's service
            } catch .operationFailed, .timeout {
                break      // the device stopped answering: judge by what was found
            } catch {
                throw .radio(name, error)
            }
        }
        return served
    }

    /// Runs a passive scan until `stop` says so or `deadline`; always stops the scan.
    private func scanning(until deadline: ContinuousClock.Instant, _ stop: (AdvertisementReport) -> Bool) throws(Failure) {
        do {
            _ = try runtime.perform(.startScanning(ScanRequest(active: true)), until: .now + timeout)
            defer { _ = try? runtime.perform(.stopScanning, until: .now + timeout) }
            while let event = try runtime.nextEvent(until: deadline) {
                if case .advertisement(let report) = event, stop(report) { return }
            }
        } catch {
            throw .radio(runtime.transport.name, error)
        }
    }
}
