import BLEHost
import BLERadio
import Conformance
import Foundation
import MeshNode

/// One check against a GATT DUT. Link n is adapter n's connection to the DUT, made at
/// `linkUp(n)` and dropped at `linkDown(n)` or `close()`, so the next check starts with none.
///
/// Verdict rules: the DUT not answering (no connection, an ATT timeout, dropping us in the
/// middle of a write) is `DUTFailure`; an adapter or controller failure is `TesterError`
/// (and marks the driver failed, which stops the run). Every call is bounded by the driver's
/// timeouts or the caller's deadline.
final class GATTSession: DUTSession {
    private struct Link {
        var handle: UInt16
        /// nil until the subscription is done.
        var packet: DiscoveredCharacteristic?
    }

    private let driver: GATTDriver
    private let target: BluetoothAddress
    private let origin = ContinuousClock.now
    /// Links of this check that are up, by link number (= adapter index + 1).
    private var links: [Int: Link] = [:]
    /// Links the DUT dropped: bytes the check still writes there go nowhere, as on a virtual link.
    private var dropped: Set<Int> = []
    /// Connections the DUT made to a tester's own service, per link.
    private var inbound: [Int: Set<UInt16>] = [:]
    private var pending: [DUTOutput] = []
    private var produced = 0
    private var failure: (any Error)?

    init(driver: GATTDriver, target: BluetoothAddress) {
        self.driver = driver
        self.target = target
    }

    var now: Instant { instant(ContinuousClock.now) }

    /// Reads away what the previous check left in the adapters' queues (late notifications,
    /// its own disconnections), so none of it counts for this check.
    func drainStaleEvents() throws {
        for adapter in driver.adapters {
            while try run(adapter, { () throws(RadioError) in try adapter.runtime.nextTimedEvent(until: .now) }) != nil {}
            try run(adapter) { () throws(RadioError) in try adapter.advertise(until: .now + driver.options.operationTimeout) }
        }
    }

    // MARK: DUTSession

    func apply(_ event: NodeEvent) throws {
        if let failure { throw failure }
        switch event {
        case .linkUp(let link, _):
            try linkUp(adapter(link))
        case .linkDown(let link):
            let adapter = try adapter(link)
            guard let up = links.removeValue(forKey: link.raw) else { return }
            _ = try operation(adapter, "disconnect", .disconnect(handle: up.handle))
        case .received(let bytes, let link):
            let adapter = try adapter(link)
            guard let up = links[link.raw] else {
                if dropped.contains(link.raw) { return }
                throw TesterError("the check writes on \(link), which it did not bring up")
            }
            try write(bytes, adapter, up)
        case .command:
            throw CheckNotApplicable("needs an upper tester: the GATT driver has no channel to the DUT's app (meshconform run --prompt asks the person at the bench)")
        case .timer:
            throw TesterError("timer events are not sent to a GATT DUT")
        }
    }

    func wait(until deadline: Instant) throws -> [DUTOutput] {
        if let failure { throw failure }
        let end = origin + .nanoseconds(deadline.nanoseconds)
        // One thread, several radios: take what each has queued, then listen to each in turn
        // for a millisecond. Each event keeps the time its adapter saw it.
        repeat {
            for adapter in driver.adapters {
                let slice = min(end, ContinuousClock.now + .milliseconds(1))
                while let (event, at) = try run(adapter, { () throws(RadioError) in try adapter.runtime.nextTimedEvent(until: slice) }) {
                    try handle(event, at: at, adapter)
                    if at > end { break }
                }
            }
        } while ContinuousClock.now < end
        pending.sort { $0.at < $1.at }
        let due = pending.filter { $0.at <= deadline }
        pending.removeAll { $0.at <= deadline }
        return due
    }

    func close() -> String? {
        var notes: [String] = []
        let deadline = ContinuousClock.now + driver.options.operationTimeout
        for adapter in driver.adapters {
            let handles = (links[adapter.link.raw].map { [$0.handle] } ?? []) + (inbound[adapter.link.raw] ?? [])
            links[adapter.link.raw] = nil
            inbound[adapter.link.raw] = nil
            for handle in handles where adapter.runtime.host.connection(handle) != nil {
                do {
                    _ = try adapter.runtime.perform(.disconnect(handle: handle), until: deadline)
                } catch {
                    if case .transport = error { driver.markFailed("\(adapter.runtime.transport.name): \(error)") }
                    if case .controllerFailed = error { driver.markFailed("\(adapter.runtime.transport.name): \(error)") }
                    notes.append("\(adapter.link): disconnecting handle \(handle): \(error)")
                }
            }
        }
        return notes.isEmpty ? nil : notes.joined(separator: "\n")
    }

    // MARK: links

    private func adapter(_ link: LinkID) throws -> TesterAdapter {
        guard link.raw >= 1, link.raw <= driver.adapters.count else {
            // maxLinks is the adapter count, so a check asking more is NA before it gets here.
            throw CheckNotApplicable("needs \(link): the run has \(driver.adapters.count) adapters (one per tester link; add --adapter)")
        }
        return driver.adapters[link.raw - 1]
    }

    /// Connect as central, ATT_MTU 517, find the packet characteristic, subscribe to it.
    private func linkUp(_ adapter: TesterAdapter) throws {
        let n = adapter.link.raw
        guard links[n] == nil else { return }
        let timeout = driver.options.connectTimeout
        let result: OperationResult
        do throws(RadioError) {
            result = try adapter.runtime.perform(.connect(target, timeout: timeout), until: .now + timeout + .seconds(1))
        } catch {
            throw radioFailure(adapter, error, what: "the DUT (\(target.string)) did not accept a connection from tester \(n) within \(timeout) (is it still advertising and connectable?)")
        }
        guard case .connected(let handle) = result else { throw TesterError("connect answered \(result)") }
        links[n] = Link(handle: handle, packet: nil)
        dropped.remove(n)
        _ = try operation(adapter, "the MTU exchange", .exchangeMTU(handle: handle, mtu: driver.binding.requestedMTU))
        var service: DiscoveredService
        do {
            service = try driver.discover(adapter.runtime, handle)
        } catch let error as RadioError {
            throw radioFailure(adapter, error, what: "discovering the \(driver.binding.dialect) service failed")
        }
        for attempt in 0..<2 {
            guard let packet = service.characteristic(driver.binding.packet.uuid), let cccd = packet.cccdHandle else {
                throw DUTFailure("the DUT's \(driver.binding.dialect) service (\(driver.binding.service)) has no notifiable packet characteristic \(driver.binding.packet.uuid)")
            }
            do {
                _ = try adapter.runtime.perform(.subscribe(handle: handle, cccdHandle: cccd), until: .now + driver.options.operationTimeout)
                links[n] = Link(handle: handle, packet: packet)
                return
            } catch .operationFailed(_, .attError) where attempt == 0 {
                // The cached layout may be stale (the DUT restarted with another database): rediscover once.
                do { service = try driver.discover(adapter.runtime, handle, again: true) } catch let e as RadioError {
                    throw radioFailure(adapter, e, what: "rediscovering the service failed")
                }
            } catch {
                throw radioFailure(adapter, error, what: "subscribing to the packet characteristic failed")
            }
        }
        throw DUTFailure("the DUT refused the subscription to its packet characteristic")
    }

    /// One unit to the DUT, as the binding says (RELAY-G3: write request, long write above
    /// ATT_MTU - 3; BLEMESH-G3: write command when it fits; BITCHAT-G2, SIMPLE-G2: write
    /// command only, never a value over ATT_MTU - 3).
    private func write(_ bytes: [UInt8], _ adapter: TesterAdapter, _ link: Link) throws {
        guard let packet = link.packet else { throw TesterError("\(adapter.link) is not subscribed yet") }
        guard bytes.count <= driver.binding.maxValueSize else {
            throw CheckNotApplicable("sends a \(bytes.count)-byte unit; a GATT attribute value holds at most \(driver.binding.maxValueSize) bytes")
        }
        let mtu = adapter.runtime.host.mtu(of: link.handle) ?? 23
        let command: HostCommand
        if driver.binding.writeRule == .writeCommandOnly {
            guard bytes.count <= GATTBinding.singlePDUValueLimit(mtu: mtu) else {
                throw CheckNotApplicable("sends a \(bytes.count)-byte unit; the \(driver.binding.dialect) binding writes only what fits ATT_MTU - 3 = \(mtu - 3) on \(adapter.link)")
            }
            command = .writeCommand(handle: link.handle, attribute: packet.valueHandle, value: bytes)
        } else if driver.binding.writeRule == .writeCommandWhenItFits, bytes.count <= GATTBinding.singlePDUValueLimit(mtu: mtu) {
            command = .writeCommand(handle: link.handle, attribute: packet.valueHandle, value: bytes)
        } else {
            command = .write(handle: link.handle, attribute: packet.valueHandle, value: bytes)
        }
        // A write command completes once the host has queued it: without this, a check that
        // sends thousands of units outruns the controller's buffers and the host's bounded queue.
        try drainACL(adapter, below: 64)
        do {
            _ = try adapter.runtime.perform(command, until: .now + driver.options.operationTimeout)
        } catch .operationFailed(_, .attError(_, _, let code)) {
            // The DUT refused the value: that is its answer, not a broken link. Kept as evidence.
            pending.append(DUTOutput(at: now, kind: .log("the DUT answered the write on \(adapter.link) with ATT error 0x\(String(code, radix: 16))")))
        } catch {
            throw radioFailure(adapter, error, what: "writing \(bytes.count) bytes on \(adapter.link) failed")
        }
    }

    /// Serves the adapter's events until fewer than `limit` ACL packets wait for controller
    /// buffers. A DUT (or controller) that never frees buffers fails the check after the timeout.
    private func drainACL(_ adapter: TesterAdapter, below limit: Int) throws {
        let deadline = ContinuousClock.now + driver.options.operationTimeout
        while adapter.runtime.host.queuedACLPackets >= limit {
            guard ContinuousClock.now < deadline else {
                throw DUTFailure("\(adapter.link): \(adapter.runtime.host.queuedACLPackets) packets still wait for controller buffers after \(driver.options.operationTimeout): the link does not move data")
            }
            if let (event, at) = try run(adapter, { () throws(RadioError) in try adapter.runtime.nextTimedEvent(until: .now + .milliseconds(1)) }) {
                try handle(event, at: at, adapter)
            }
        }
    }

    // MARK: events

    private func handle(_ event: HostEvent, at: ContinuousClock.Instant, _ adapter: TesterAdapter) throws {
        let n = adapter.link.raw
        switch event {
        case .notification(let handle, let attribute, let value, _):
            guard let link = links[n], link.handle == handle, attribute == link.packet?.valueHandle else { return }
            try record(DUTOutput(at: instant(at), kind: .sent(value, on: adapter.link)))
        case .gattWrite(let handle, let characteristic, _, let value, _):
            // The DUT, as a central of the tester's own service, writing a packet: sent on link n.
            guard characteristic.matches(driver.binding.packet.uuid), inbound[n]?.contains(handle) == true, links[n] != nil else { return }
            try record(DUTOutput(at: instant(at), kind: .sent(value, on: adapter.link)))
        case .connected(let info):
            if info.role == .peripheral, info.peer.bytes == target.bytes {
                inbound[n, default: []].insert(info.handle)
            }
            if info.role == .peripheral { try run(adapter) { () throws(RadioError) in try adapter.readvertise() } }
        case .disconnected(let handle, let reason):
            inbound[n]?.remove(handle)
            if let link = links[n], link.handle == handle {
                links[n] = nil
                dropped.insert(n)
                try record(DUTOutput(at: instant(at), kind: .disconnected(adapter.link)))
                try record(DUTOutput(at: instant(at), kind: .log("\(adapter.link) dropped (HCI reason 0x\(String(reason, radix: 16)))")))
            }
            try run(adapter) { () throws(RadioError) in try adapter.readvertise() }
        default:
            break
        }
    }

    private func record(_ output: DUTOutput) throws {
        produced += 1
        guard produced <= maxOutputsPerSession else {
            let f = DUTFailure("the DUT produced more than \(maxOutputsPerSession) outputs in one check (flood)")
            failure = f
            throw f
        }
        pending.append(output)
    }

    // MARK: plumbing

    private func operation(_ adapter: TesterAdapter, _ what: String, _ command: HostCommand) throws -> OperationResult {
        do {
            return try adapter.runtime.perform(command, until: .now + driver.options.operationTimeout)
        } catch {
            throw radioFailure(adapter, error, what: "\(what) on \(adapter.link) failed")
        }
    }

    /// Adapter-level failures stop the run (TesterError); the rest is the DUT not doing its part.
    private func radioFailure(_ adapter: TesterAdapter, _ error: RadioError, what: String) -> any Error {
        switch error {
        case .transport, .controllerFailed, .eventFlood:
            let text = "tester adapter \(adapter.runtime.transport.name) failed: \(error)"
            driver.markFailed(text)
            failure = TesterError(text)
            return failure!
        case .timeout, .operationFailed:
            let f = DUTFailure("\(what): \(error)")
            failure = f
            return f
        }
    }

    /// Runs a runtime call; adapter-level failures become `TesterError` and mark the driver failed.
    @discardableResult
    private func run<T>(_ adapter: TesterAdapter, _ body: () throws(RadioError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw radioFailure(adapter, error, what: "\(adapter.link)")
        }
    }

    private func instant(_ t: ContinuousClock.Instant) -> Instant {
        let d = t - origin
        return Instant(nanoseconds: d.components.seconds * 1_000_000_000 + d.components.attoseconds / 1_000_000_000)
    }
}
