import BLEHost
import BLERadio
import Conformance
import Foundation
import MeshNode

/// One check against a GATT DUT. Link n is tester identity n's connection to the DUT (the
/// driver's link plan says which adapter and own address), made at `linkUp(n)` and dropped at
/// `linkDown(n)` or `close()`, so the next check starts with none. Several links may share one
/// adapter: its events are told apart by connection handle.
///
/// Verdict rules: the DUT not answering (no connection, an ATT timeout, dropping us in the
/// middle of a write) is `DUTFailure`; an adapter or controller failure is `TesterError`
/// (and marks the driver failed, which stops the run). Every call is bounded by the driver's
/// timeouts or the caller's deadline.
final class GATTSession: DUTSession {
    private struct Link {
        var adapter: Int
        var handle: UInt16
        /// nil until the subscription is done.
        var packet: DiscoveredCharacteristic?
    }

    private let driver: GATTDriver
    private let target: BluetoothAddress
    private let origin = ContinuousClock.now
    /// Links of this check that are up, by link number.
    private var links: [Int: Link] = [:]
    /// Links the DUT dropped: bytes the check still writes there go nowhere, as on a virtual link.
    private var dropped: Set<Int> = []
    /// Connections the DUT made to a tester identity's own service (advertising set), per link.
    private var inbound: [Int: Set<UInt16>] = [:]
    private var pending: [DUTOutput] = []
    private var produced = 0
    private var failure: (any Error)?

    init(driver: GATTDriver, target: BluetoothAddress) {
        self.driver = driver
        self.target = target
    }

    var now: Instant { instant(ContinuousClock.now) }
    /// The device learns who is on a link only from what the tester sends there.
    var tellsPeers: Bool { false }

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
            try linkUp(identity(link))
        case .linkDown(let link):
            let adapter = driver.adapter(of: try identity(link))
            guard let up = links.removeValue(forKey: link.raw) else { return }
            _ = try operation(adapter, "disconnecting \(link)", .disconnect(handle: up.handle))
        case .received(let bytes, let link):
            let identity = try identity(link)
            guard let up = links[link.raw] else {
                if dropped.contains(link.raw) { return }
                throw TesterError("the check writes on \(link), which it did not bring up")
            }
            try write(bytes, driver.adapter(of: identity), link, up)
        case .command:
            throw CheckNotApplicable("needs an upper tester: the GATT driver has no channel to the DUT's app")
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
            var handles: [UInt16] = []
            for identity in adapter.identities {
                let n = identity.link.raw
                handles += (links[n].map { [$0.handle] } ?? []) + (inbound[n] ?? [])
                links[n] = nil
                inbound[n] = nil
            }
            for handle in handles where adapter.runtime.host.connection(handle) != nil {
                do {
                    _ = try adapter.runtime.perform(.disconnect(handle: handle), until: deadline)
                } catch {
                    if case .transport = error { driver.markFailed("\(adapter.runtime.transport.name): \(error)") }
                    if case .controllerFailed = error { driver.markFailed("\(adapter.runtime.transport.name): \(error)") }
                    notes.append("\(adapter.name): disconnecting handle \(handle): \(error)")
                }
            }
        }
        return notes.isEmpty ? nil : notes.joined(separator: "\n")
    }

    // MARK: links

    private func identity(_ link: LinkID) throws -> TesterIdentity {
        guard link.raw >= 1, link.raw <= driver.identities.count else {
            // maxLinks is the number of planned identities, so a check asking more is NA before it gets here.
            throw CheckNotApplicable("needs \(link): \(driver.linkLimitReason)")
        }
        return driver.identities[link.raw - 1]
    }

    /// The link an adapter's connection plays: a central link of this check, or a DUT-made one.
    private func link(of adapter: TesterAdapter, central handle: UInt16) -> LinkID? {
        adapter.identities.first { links[$0.link.raw]?.handle == handle }?.link
    }

    /// Connect as central from the identity's own address, ATT_MTU 517, find the packet characteristic, subscribe to it.
    private func linkUp(_ identity: TesterIdentity) throws {
        let n = identity.link.raw
        let adapter = driver.adapter(of: identity)
        guard links[n] == nil else { return }
        let timeout = driver.options.connectTimeout
        let result: OperationResult
        do throws(RadioError) {
            result = try adapter.runtime.perform(.connect(target, timeout: timeout, ownAddress: identity.address),
                                                 until: .now + timeout + .seconds(1))
        } catch {
            throw radioFailure(adapter, error, what: "the DUT (\(target.string)) did not accept a connection from tester \(n) within \(timeout) (is it still advertising and connectable?)")
        }
        guard case .connected(let handle) = result else { throw TesterError("connect answered \(result)") }
        links[n] = Link(adapter: adapter.index, handle: handle, packet: nil)
        dropped.remove(n)
        _ = try operation(adapter, "the MTU exchange on \(identity.link)", .exchangeMTU(handle: handle, mtu: driver.binding.requestedMTU))
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
                links[n] = Link(adapter: adapter.index, handle: handle, packet: packet)
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
    private func write(_ bytes: [UInt8], _ adapter: TesterAdapter, _ id: LinkID, _ link: Link) throws {
        guard let packet = link.packet else { throw TesterError("\(id) is not subscribed yet") }
        guard bytes.count <= driver.binding.maxValueSize else {
            throw CheckNotApplicable("sends a \(bytes.count)-byte unit; a GATT attribute value holds at most \(driver.binding.maxValueSize) bytes")
        }
        let mtu = adapter.runtime.host.mtu(of: link.handle) ?? 23
        let command: HostCommand
        if driver.binding.writeRule == .writeCommandOnly {
            guard bytes.count <= GATTBinding.singlePDUValueLimit(mtu: mtu) else {
                throw CheckNotApplicable("sends a \(bytes.count)-byte unit; the \(driver.binding.dialect) binding writes only what fits ATT_MTU - 3 = \(mtu - 3) on \(id)")
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
            pending.append(DUTOutput(at: now, kind: .log("the DUT answered the write on \(id) with ATT error 0x\(String(code, radix: 16))")))
        } catch {
            throw radioFailure(adapter, error, what: "writing \(bytes.count) bytes on \(id) failed")
        }
    }

    /// Serves the adapter's events until fewer than `limit` ACL packets wait for controller
    /// buffers. A DUT (or controller) that never frees buffers fails the check after the timeout.
    private func drainACL(_ adapter: TesterAdapter, below limit: Int) throws {
        let deadline = ContinuousClock.now + driver.options.operationTimeout
        while adapter.runtime.host.queuedACLPackets >= limit {
            guard ContinuousClock.now < deadline else {
                throw DUTFailure("\(adapter.name): \(adapter.runtime.host.queuedACLPackets) packets still wait for controller buffers after \(driver.options.operationTimeout): the link does not move data")
            }
            if let (event, at) = try run(adapter, { () throws(RadioError) in try adapter.runtime.nextTimedEvent(until: .now + .milliseconds(1)) }) {
                try handle(event, at: at, adapter)
            }
        }
    }

    // MARK: events

    private func handle(_ event: HostEvent, at: ContinuousClock.Instant, _ adapter: TesterAdapter) throws {
        switch event {
        case .notification(let handle, let attribute, let value, _):
            guard let id = link(of: adapter, central: handle), attribute == links[id.raw]?.packet?.valueHandle else { return }
            try record(DUTOutput(at: instant(at), kind: .sent(value, on: id)))
        case .gattWrite(let handle, let characteristic, _, let value, _):
            // The DUT, as a central of an identity's own service, writing a packet: sent on that identity's link.
            guard characteristic.matches(driver.binding.packet.uuid),
                  let id = adapter.identities.first(where: { inbound[$0.link.raw]?.contains(handle) == true })?.link,
                  links[id.raw] != nil else { return }
            try record(DUTOutput(at: instant(at), kind: .sent(value, on: id)))
        case .connected(let info):
            // A legacy controller names the identity at once; an extended one in `connectionIdentified`.
            if info.role == .peripheral { try inboundLink(info.handle, peer: info.peer, local: info.localAddress, adapter) }
        case .connectionIdentified(let handle, _, let local):
            if let info = adapter.runtime.host.connection(handle) { try inboundLink(handle, peer: info.peer, local: local, adapter) }
        case .disconnected(let handle, let reason):
            for identity in adapter.identities { inbound[identity.link.raw]?.remove(handle) }
            if let id = link(of: adapter, central: handle) {
                links[id.raw] = nil
                dropped.insert(id.raw)
                try record(DUTOutput(at: instant(at), kind: .disconnected(id)))
                try record(DUTOutput(at: instant(at), kind: .log("\(id) dropped (HCI reason 0x\(String(reason, radix: 16)))")))
            }
            try run(adapter) { () throws(RadioError) in try adapter.readvertise() }
        default:
            break
        }
    }

    /// The DUT connected to one of the adapter's identities (its advertising set): that identity's link.
    private func inboundLink(_ handle: UInt16, peer: BluetoothAddress, local: BluetoothAddress?, _ adapter: TesterAdapter) throws {
        guard let identity = adapter.identity(at: local) else { return }
        if peer.bytes == target.bytes { inbound[identity.link.raw, default: []].insert(handle) }
        try run(adapter) { () throws(RadioError) in try adapter.readvertise() }
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
            throw radioFailure(adapter, error, what: "\(what) failed")
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
            throw radioFailure(adapter, error, what: adapter.name)
        }
    }

    private func instant(_ t: ContinuousClock.Instant) -> Instant {
        let d = t - origin
        return Instant(nanoseconds: d.components.seconds * 1_000_000_000 + d.components.attoseconds / 1_000_000_000)
    }
}
