import BLEHost
import BLERadio
import Conformance
import Foundation
import MeshNode

/// One check against a GATT DUT. Link n is one connection between tester identity n and the
/// DUT, whichever side made it, from `linkUp(n)` to `linkDown(n)` or `close()`, so the next
/// check starts with none (docs/radio.md, "Links"). The driver's link plan says which adapter
/// and own address identity n is; several identities may share an adapter, so its events are
/// told apart by connection handle (and a DUT-made connection by the identity it reached).
///
/// Verdict rules: what the DUT sent (or did not send) while a link was up is for the check to
/// judge; a link that cannot be set up or used after the bounded retries (connect, MTU
/// exchange, discovery, subscription, disconnect, a write never answered) is `LinkFailure`
/// (INCONC, never FAIL); an adapter or controller failure is `TesterError` (and marks the
/// driver failed, which stops the run). Every call is bounded by the driver's timeouts or the
/// caller's deadline.
final class GATTSession: DUTSession {
    private struct Link {
        enum Direction { case testerConnected, dutConnected }
        var adapter: Int
        var handle: UInt16
        var direction: Direction
        /// The packet characteristic's value handle: the DUT's (tester connected, tester
        /// writes, DUT notifies) or the tester's own (DUT connected, DUT writes, tester notifies).
        var packet: UInt16
        /// The DUT's packet characteristic declares Write Without Response (tester connected).
        var takesWriteCommands = false
        /// The subscription's ATT Write Request to the DUT's CCCD and its Write Response, timed
        /// (tester connected): the tester's own round trip on this link.
        var roundTrip: Duration?
    }

    /// A connection the DUT made, as a central, to a tester identity whose link is being brought up.
    private struct Inbound {
        /// The tester's packet characteristic value handle, once the DUT subscribed to it, and when.
        var subscribed: UInt16?
        var subscribedAt: ContinuousClock.Instant?
        /// What the DUT wrote before the connection became the link: sent on it once it does.
        var writes: [(at: ContinuousClock.Instant, value: [UInt8])] = []
    }

    /// A step of a link's set-up failed for a reason that is not the adapter's.
    private struct StepFailed: Error { var text: String }

    private let driver: GATTDriver
    private let target: BluetoothAddress
    private let origin = ContinuousClock.now
    /// Links of this check that are up, by link number.
    private var links: [Int: Link] = [:]
    /// Links the DUT dropped: bytes the check still writes there go nowhere, as on a virtual link.
    private var dropped: Set<Int> = []
    /// Identities that are advertising and waiting for the DUT to connect (link set-up).
    private var awaiting: Set<Int> = []
    /// The DUT's connections to identity n that are not (yet) link n.
    private var inbound: [Int: [UInt16: Inbound]] = [:]
    private var pending: [DUTOutput] = []
    private var produced = 0
    /// Values the tester wrote (the flood bound grows with them).
    private var inputs = 0
    private var failure: (any Error)?
    /// For the driver's count of checks whose links could not be brought up.
    private var linkSetupFailure: String?
    private var linkCameUp = false

    init(driver: GATTDriver, target: BluetoothAddress) {
        self.driver = driver
        self.target = target
    }

    var now: Instant { instant(ContinuousClock.now) }
    /// The device learns who is on a link only from what the tester sends there.
    var tellsPeers: Bool { false }
    /// Two hosts, their controllers and the air between tester and DUT: load delays answers.
    var latencyVaries: Bool { true }

    /// Starts the check from a clean air: reads away what the previous check left in the
    /// adapters' queues (late notifications, its own disconnections), closes any connection
    /// still open (a DUT that connected to an identity after the last check ended) and stops
    /// advertising, so none of it counts for this check.
    func startClean() throws {
        for adapter in driver.adapters {
            while try run(adapter, { () throws(RadioError) in try adapter.runtime.nextTimedEvent(until: .now) }) != nil {}
            try stopAdvertising(adapter)
            for handle in adapter.runtime.host.connectionHandles {
                _ = try? adapter.runtime.perform(.disconnect(handle: handle), until: .now + driver.options.operationTimeout)
            }
            while try run(adapter, { () throws(RadioError) in try adapter.runtime.nextTimedEvent(until: .now) }) != nil {}
        }
    }

    // MARK: DUTSession

    func apply(_ event: NodeEvent) throws {
        if let failure { throw failure }
        switch event {
        case .linkUp(let link, let peer, let maxUnit):
            let identity = try identity(link)
            if let peer { driver.adapter(of: identity).name(identity, as: peer, dialect: driver.dialect) }
            // A unit limit is the tester's ATT_MTU request, as the central, less 3 (BLEMESH-G3).
            try linkUp(identity, mtu: maxUnit.map { UInt16(clamping: $0 + 3) } ?? driver.binding.requestedMTU)
        case .linkDown(let link):
            let adapter = driver.adapter(of: try identity(link))
            guard let up = links.removeValue(forKey: link.raw) else { return }
            do {
                _ = try adapter.runtime.perform(.disconnect(handle: up.handle), until: .now + driver.options.operationTimeout)
            } catch {
                try environmental(adapter, error)
                // Already gone (the DUT dropped it meanwhile) is down as asked.
                if adapter.runtime.host.connection(up.handle) != nil {
                    throw LinkFailure("the tester could not take \(link) down: disconnecting it failed: \(brief(error))")
                }
            }
        case .received(let bytes, let link):
            inputs += 1
            let adapter = driver.adapter(of: try identity(link))
            guard let up = links[link.raw] else {
                if dropped.contains(link.raw) { return }
                throw TesterError("the check writes on \(link), which it did not bring up")
            }
            try write(bytes, adapter, link, up)
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
        if let failure { throw failure }
        pending.sort { $0.at < $1.at }
        let due = pending.filter { $0.at <= deadline }
        pending.removeAll { $0.at <= deadline }
        return due
    }

    /// The liveness probe before a PASS or FAIL (docs/radio.md, "Verdicts"): one ATT round
    /// trip with the DUT within the operation timeout, on the first link still up (a read of
    /// its packet characteristic's CCCD, or a service discovery while its layout is unknown),
    /// or, with no link up, on a new connection from tester 1's identity (its MTU exchange).
    /// Any answer counts, an ATT error included. None: the DUT became unreachable, and the
    /// driver counts the check as one that could not reach it.
    func unreachableReason() -> String? {
        guard failure == nil else { return nil }
        let timeout = driver.options.operationTimeout
        func unreachable(_ why: String) -> String {
            linkSetupFailure = "the DUT became unreachable during a check: \(why)"
            return why
        }
        if let (n, link) = links.min(by: { $0.key < $1.key }) {
            let adapter = driver.adapters[link.adapter]
            let cccd = driver.discovered?.characteristic(driver.binding.packet.uuid)?.cccdHandle
            let request: HostCommand = cccd.map { .read(handle: link.handle, attribute: $0) } ?? .discover(handle: link.handle, service: driver.binding.service)
            do throws(RadioError) {
                _ = try adapter.runtime.perform(request, until: .now + timeout)
                return nil
            } catch {
                guard Self.unanswered(error) else { return error.isAdapterFailure ? tester(adapter, error) : nil }
                return unreachable("it did not answer an ATT request on L\(n) within \(timeout) (\(brief(error)))")
            }
        }
        guard let identity = driver.identities.first else { return nil }
        let adapter = driver.adapter(of: identity)
        let connect = HostCommand.connect(target, timeout: driver.options.connectTimeout, ownAddress: identity.address)
        let handle: UInt16
        do throws(RadioError) {
            guard case .connected(let h) = try adapter.runtime.perform(connect, until: .now + driver.options.connectTimeout + .seconds(1)) else { return nil }
            handle = h
        } catch {
            if error.isAdapterFailure { return tester(adapter, error) }
            if case .operationFailed(_, .cancelledConnectPending) = error { return nil }   // the adapter's own earlier connect is in the way: cannot tell
            return unreachable("with no link left up, a new connection from tester 1 did not come up (\(brief(error)))")
        }
        defer { _ = try? adapter.runtime.perform(.disconnect(handle: handle), until: .now + timeout) }
        do throws(RadioError) {
            _ = try adapter.runtime.perform(.exchangeMTU(handle: handle, mtu: driver.binding.requestedMTU), until: .now + timeout)
            return nil
        } catch {
            guard Self.unanswered(error) else { return error.isAdapterFailure ? tester(adapter, error) : nil }
            return unreachable("with no link left up, it did not answer the MTU exchange on a new connection from tester 1 within \(timeout) (\(brief(error)))")
        }
    }

    /// What the connection of link n is: the ATT_MTU its exchange settled (23 if none was
    /// made: a DUT that connected and never asked), and whether the DUT notifies on it (the
    /// tester connected) or writes (the DUT connected).
    func carriage(of link: LinkID) -> LinkCarriage? {
        guard let up = links[link.raw] else { return nil }
        let mtu = driver.adapters[up.adapter].runtime.host.mtu(of: up.handle) ?? 23
        return LinkCarriage(attMTU: mtu, dutNotifies: up.direction == .testerConnected, roundTrip: up.roundTrip)
    }

    /// Whether a failed request means the peer did not answer (rather than answering no).
    private static func unanswered(_ error: RadioError) -> Bool {
        switch error {
        case .timeout, .operationFailed(_, .timeout), .operationFailed(_, .attBearerClosed),
             .operationFailed(_, .disconnected), .operationFailed(_, .notConnected): true
        default: false
        }
    }

    /// An adapter failure during the probe: the run stops on it (ERROR), not a verdict on the DUT.
    private func tester(_ adapter: TesterAdapter, _ error: RadioError) -> String? {
        driver.markFailed("\(adapter.runtime.transport.name): \(error)")
        return nil
    }

    func close() -> String? {
        var notes: [String] = []
        let deadline = ContinuousClock.now + driver.options.operationTimeout
        for adapter in driver.adapters {
            var handles: [UInt16] = []
            for identity in adapter.identities {
                let n = identity.link.raw
                handles += (links[n].map { [$0.handle] } ?? []) + (inbound[n]?.keys.map { $0 } ?? [])
                links[n] = nil
                inbound[n] = nil
            }
            do { try stopAdvertising(adapter) } catch { notes.append("\(adapter.name): \(error)") }
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
        driver.checkEnded(linkSetupFailure: linkSetupFailure, linkCameUp: linkCameUp)
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

    /// The link an adapter's connection is, if it is one of this check's.
    private func link(of adapter: TesterAdapter, _ handle: UInt16) -> (id: LinkID, link: Link)? {
        for identity in adapter.identities {
            if let link = links[identity.link.raw], link.handle == handle { return (identity.link, link) }
        }
        return nil
    }

    /// The identity (of those awaiting the DUT) whose advertising set a DUT-made connection reached.
    private func awaitingIdentity(_ adapter: TesterAdapter, local: BluetoothAddress?) -> TesterIdentity? {
        guard let identity = adapter.identity(at: local), awaiting.contains(identity.link.raw) else { return nil }
        return identity
    }

    /// Brings link n up by the driver's ways in turn (default: the tester connects; then it
    /// advertises and waits for the DUT to connect; then it connects once more). The first that
    /// works is link n; when none does, the check is INCONC with what each attempt saw.
    private func linkUp(_ identity: TesterIdentity, mtu: UInt16) throws {
        let n = identity.link.raw
        guard links[n] == nil else { return }
        var attempts: [String] = []
        for way in driver.options.linkSetup {
            do {
                switch way {
                case .testerConnects: links[n] = try connectToDUT(identity, mtu: mtu)
                case .dutConnects: links[n] = try awaitDUT(identity)
                }
                dropped.remove(n)
                linkCameUp = true
                return
            } catch let step as StepFailed {
                attempts.append(step.text)
            }
        }
        let text = "could not bring \(identity.link) up with the DUT (\(target.string)) in \(attempts.count) attempts: \(attempts.joined(separator: "; "))"
        linkSetupFailure = text
        throw LinkFailure(text)
    }

    /// The tester connects as central from the identity's own address, exchanges ATT_MTU `mtu`
    /// (the binding's 517, or a check's small one), finds the packet characteristic and
    /// subscribes to it. On a failed step the connection is closed again.
    private func connectToDUT(_ identity: TesterIdentity, mtu: UInt16) throws -> Link {
        let adapter = driver.adapter(of: identity)
        let n = identity.link.raw
        let timeout = driver.options.connectTimeout
        var result: OperationResult?
        for retry in 0..<2 where result == nil {
            do throws(RadioError) {
                result = try adapter.runtime.perform(.connect(target, timeout: timeout, ownAddress: identity.address),
                                                     until: .now + timeout + .seconds(1))
            } catch .operationFailed(_, .cancelledConnectPending) where retry == 0 {
                // An earlier connect of this adapter (to the DUT, from another identity) timed out
                // and its controller still initiates it: it ends when the DUT advertises, and the
                // host tears that late link down. Serve the adapter's events meanwhile, then retry.
                try settle(adapter, for: .seconds(1))
            } catch .operationFailed(_, .cancelledConnectPending(let peer)) {
                throw StepFailed(text: "tester \(n) connecting: not tried: the adapter's controller still initiates an earlier connect to \(peer.string) that timed out and was cancelled (it acknowledged the cancel; it ends when \(peer.string) advertises)")
            } catch {
                try environmental(adapter, error)
                throw StepFailed(text: "tester \(n) connecting: no connection within \(timeout) (\(brief(error)))")
            }
        }
        guard case .connected(let handle) = result else { throw TesterError("connect answered \(String(describing: result))") }
        do {
            return try setUp(adapter, n, handle, mtu: mtu)
        } catch let step as StepFailed {
            if adapter.runtime.host.connection(handle) != nil {
                _ = try? adapter.runtime.perform(.disconnect(handle: handle), until: .now + driver.options.operationTimeout)
            }
            throw step
        }
    }

    private func setUp(_ adapter: TesterAdapter, _ n: Int, _ handle: UInt16, mtu: UInt16) throws -> Link {
        try step(adapter, "tester \(n): the MTU exchange") {
            _ = try adapter.runtime.perform(.exchangeMTU(handle: handle, mtu: mtu), until: .now + driver.options.operationTimeout)
        }
        var service = try step(adapter, "tester \(n): discovering the \(driver.binding.dialect) service") { try driver.discover(adapter.runtime, handle) }
        for attempt in 0..<2 {
            guard let packet = service.characteristic(driver.binding.packet.uuid), let cccd = packet.cccdHandle else {
                throw StepFailed(text: "the DUT's \(driver.binding.dialect) service (\(driver.binding.service)) has no notifiable packet characteristic \(driver.binding.packet.uuid)")
            }
            do {
                let asked = ContinuousClock.now
                _ = try adapter.runtime.perform(.subscribe(handle: handle, cccdHandle: cccd), until: .now + driver.options.operationTimeout)
                return Link(adapter: adapter.index, handle: handle, direction: .testerConnected, packet: packet.valueHandle,
                            takesWriteCommands: packet.properties.contains(.writeWithoutResponse), roundTrip: .now - asked)
            } catch .operationFailed(_, .attError) where attempt == 0 {
                // The cached layout may be stale (the DUT restarted with another database): rediscover once.
                service = try step(adapter, "tester \(n): rediscovering the service") { try driver.discover(adapter.runtime, handle, again: true) }
            } catch {
                try environmental(adapter, error)
                throw StepFailed(text: "tester \(n): subscribing to the packet characteristic: \(brief(error))")
            }
        }
        throw StepFailed(text: "tester \(n): the DUT refused the subscription to its packet characteristic")
    }

    /// Identity n advertises the dialect's service and waits for the DUT to connect to it as a
    /// central and subscribe to the tester's packet characteristic (as phones do): that
    /// connection is link n; the tester sends on it by notifying, and the DUT's writes are what
    /// it sent. Advertising stops either way, so the DUT cannot connect outside a link set-up.
    private func awaitDUT(_ identity: TesterIdentity) throws -> Link {
        let adapter = driver.adapter(of: identity)
        let n = identity.link.raw
        let wait = driver.options.dutConnectTimeout
        let deadline = ContinuousClock.now + wait
        awaiting.insert(n)
        defer { awaiting.remove(n) }
        try run(adapter) { () throws(RadioError) in try adapter.advertise(identity, until: .now + driver.options.operationTimeout) }
        defer { try? stopAdvertising(adapter) }
        while true {
            // A subscribed connection is the link once the DUT has written on it (its own
            // link-up traffic) or a moment after: the DUT takes the link as up when its
            // subscription is answered, a little after the tester saw it.
            let settled = { (c: Inbound) in !c.writes.isEmpty || c.subscribedAt.map { ContinuousClock.now >= $0 + self.driver.options.dutLinkSettle } == true }
            if let (handle, candidate) = inbound[n]?.first(where: { $0.value.subscribed != nil && settled($0.value) }), let packet = candidate.subscribed {
                inbound[n]?[handle] = nil
                pending.append(DUTOutput(at: now, kind: .log("\(identity.link) is the DUT's own connection to tester \(n): the tester notifies, the DUT writes")))
                for write in candidate.writes {
                    try record(DUTOutput(at: instant(write.at), kind: .sent(write.value, on: identity.link)))
                }
                try disconnectUnadopted(adapter, n)
                return Link(adapter: adapter.index, handle: handle, direction: .dutConnected, packet: packet)
            }
            guard ContinuousClock.now < deadline else { break }
            let settling = inbound[n]?.values.compactMap { $0.subscribedAt.map { $0 + driver.options.dutLinkSettle } }.min()
            if let (event, at) = try run(adapter, { () throws(RadioError) in try adapter.runtime.nextTimedEvent(until: min(deadline, settling ?? deadline)) }) {
                try handle(event, at: at, adapter)
            }
        }
        let connected = !(inbound[n]?.isEmpty ?? true)
        try disconnectUnadopted(adapter, n)
        throw StepFailed(text: connected
            ? "tester \(n) advertised: the DUT connected but did not subscribe to the tester's packet characteristic within \(wait)"
            : "tester \(n) advertised: the DUT did not connect to it within \(wait)")
    }

    /// Serves the adapter's events for `span` (they count as usual).
    private func settle(_ adapter: TesterAdapter, for span: Duration) throws {
        let deadline = ContinuousClock.now + span
        while let (event, at) = try run(adapter, { () throws(RadioError) in try adapter.runtime.nextTimedEvent(until: deadline) }) {
            try handle(event, at: at, adapter)
        }
    }

    /// Closes the DUT's connections to identity n that did not become link n.
    private func disconnectUnadopted(_ adapter: TesterAdapter, _ n: Int) throws {
        for handle in inbound[n]?.keys.sorted() ?? [] {
            try run(adapter) { () throws(RadioError) in _ = try adapter.runtime.submit(.disconnect(handle: handle)) }
        }
        inbound[n] = nil
    }

    private func stopAdvertising(_ adapter: TesterAdapter) throws {
        guard adapter.runtime.host.advertising else { return }
        try run(adapter) { () throws(RadioError) in _ = try adapter.runtime.perform(.stopAdvertising, until: .now + driver.options.operationTimeout) }
    }

    /// Whether a central that connected to a tester identity is the DUT: its address, or a
    /// resolvable private address (Core Vol 6 Part B 1.3.2.2: top bits 01), which phones use
    /// when they connect out and which the tester cannot resolve without the DUT's IRK.
    private func isDUT(_ peer: BluetoothAddress) -> Bool {
        peer.bytes == target.bytes || (peer.type == .random && peer.bytes[0] & 0xC0 == 0x40)
    }

    /// One unit to the DUT, as the binding says (RELAY-G3: write request, long write above
    /// ATT_MTU - 3; BLEMESH-G3: write command when it fits; BITCHAT-G2, SIMPLE-G2: write
    /// command only, never a value over ATT_MTU - 3). On a link the DUT made, a notification.
    private func write(_ bytes: [UInt8], _ adapter: TesterAdapter, _ id: LinkID, _ link: Link) throws {
        guard bytes.count <= driver.binding.maxValueSize else {
            throw CheckNotApplicable("sends a \(bytes.count)-byte unit; a GATT attribute value holds at most \(driver.binding.maxValueSize) bytes")
        }
        let mtu = adapter.runtime.host.mtu(of: link.handle) ?? 23
        let fits = bytes.count <= GATTBinding.singlePDUValueLimit(mtu: mtu)
        let command: HostCommand
        switch (link.direction, driver.binding.writeRule) {
        case (.dutConnected, _):
            guard fits else {
                throw CheckNotApplicable("sends a \(bytes.count)-byte unit; the DUT connected to tester \(id.raw) as central, and a notification carries at most ATT_MTU - 3 = \(mtu - 3) bytes")
            }
            command = .notify(handle: link.handle, valueHandle: link.packet, value: bytes)
        case (.testerConnected, .writeCommandOnly):
            guard fits else {
                throw CheckNotApplicable("sends a \(bytes.count)-byte unit; the \(driver.binding.dialect) binding writes only what fits ATT_MTU - 3 = \(mtu - 3) on \(id)")
            }
            command = .writeCommand(handle: link.handle, attribute: link.packet, value: bytes)
        case (.testerConnected, .writeCommandWhenItFits) where fits,
             (.testerConnected, _) where fits && link.takesWriteCommands && driver.options.writeCommandsWhereAllowed:
            command = .writeCommand(handle: link.handle, attribute: link.packet, value: bytes)
        case (.testerConnected, _):
            command = .write(handle: link.handle, attribute: link.packet, value: bytes)
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
            try environmental(adapter, error)
            // The DUT dropped the link under the write: the check sees the drop (its events
            // follow) and judges it; the bytes went nowhere, as on a virtual link.
            if adapter.runtime.host.connection(link.handle) == nil { return }
            throw LinkFailure("the tester could not send \(bytes.count) bytes on \(id): \(brief(error))")
        }
    }

    /// Serves the adapter's events until fewer than `limit` ACL packets wait for controller
    /// buffers. A link that does not move data within the timeout makes the check INCONC.
    private func drainACL(_ adapter: TesterAdapter, below limit: Int) throws {
        let deadline = ContinuousClock.now + driver.options.operationTimeout
        while adapter.runtime.host.queuedACLPackets >= limit {
            guard ContinuousClock.now < deadline else {
                throw LinkFailure("\(adapter.name): \(adapter.runtime.host.queuedACLPackets) packets still wait for controller buffers after \(driver.options.operationTimeout): the link does not move data")
            }
            if let (event, at) = try run(adapter, { () throws(RadioError) in try adapter.runtime.nextTimedEvent(until: .now + .milliseconds(1)) }) {
                try handle(event, at: at, adapter)
            }
        }
    }

    // MARK: events

    private func handle(_ event: HostEvent, at: ContinuousClock.Instant, _ adapter: TesterAdapter) throws {
        /// The identity whose DUT-made connection (not yet a link) this is.
        func inboundLink(_ handle: UInt16) -> Int? {
            adapter.identities.map(\.link.raw).first { inbound[$0]?[handle] != nil }
        }
        switch event {
        case .notification(let handle, let attribute, let value, _):
            // The DUT, as the peripheral of a link the tester made, notifying a packet.
            guard let (id, link) = link(of: adapter, handle), link.direction == .testerConnected, attribute == link.packet else { return }
            try record(DUTOutput(at: instant(at), kind: .sent(value, on: id)))
        case .gattWrite(let handle, let characteristic, _, let value, _):
            // The DUT, as a central of the tester's own service, writing a packet.
            guard characteristic.matches(driver.binding.packet.uuid) else { return }
            if let (id, link) = link(of: adapter, handle), link.direction == .dutConnected {
                try record(DUTOutput(at: instant(at), kind: .sent(value, on: id)))
            } else if let n = inboundLink(handle) {
                inbound[n]?[handle]?.writes.append((at, value))
            }
        case .subscriptionChanged(let handle, let characteristic, let valueHandle, let notify, _):
            guard characteristic.matches(driver.binding.packet.uuid), let n = inboundLink(handle) else { return }
            inbound[n]?[handle]?.subscribed = notify ? valueHandle : nil
            inbound[n]?[handle]?.subscribedAt = notify ? at : nil
        case .connected(let info) where info.role == .peripheral:
            // The identity is known at once when one set advertises (the usual case: one link
            // is set up at a time) or on a legacy controller; else `connectionIdentified` says.
            if info.localAddress == nil, !adapter.identities.filter({ awaiting.contains($0.link.raw) }).isEmpty { return }
            try peripheralLink(info.handle, peer: info.peer, local: info.localAddress, at: at, adapter)
        case .connectionIdentified(let handle, _, let local):
            guard let info = adapter.runtime.host.connection(handle) else { return }
            try peripheralLink(handle, peer: info.peer, local: local, at: at, adapter)
        case .disconnected(let handle, let reason):
            for identity in adapter.identities { inbound[identity.link.raw]?[handle] = nil }
            if let (id, _) = link(of: adapter, handle) {
                links[id.raw] = nil
                dropped.insert(id.raw)
                try record(DUTOutput(at: instant(at), kind: .disconnected(id)))
                try record(DUTOutput(at: instant(at), kind: .log("\(id) dropped (HCI reason 0x\(String(reason, radix: 16)))")))
                if let cause = Self.lostOnTheAir[reason] {
                    // Not the DUT's doing: what it did not send on that link afterwards says nothing.
                    failure = LinkFailure("\(id) was lost on the air (HCI reason 0x\(String(reason, radix: 16)), \(cause)), not ended by the DUT: the check cannot be decided")
                }
            }
            try readvertiseAwaiting(adapter)
        default:
            break
        }
    }

    /// A central connected to one of the adapter's identities: a candidate for that identity's
    /// link while it awaits the DUT, else closed so it cannot leak into the check.
    private func peripheralLink(_ handle: UInt16, peer: BluetoothAddress, local: BluetoothAddress?, at: ContinuousClock.Instant,
                                _ adapter: TesterAdapter) throws {
        if let identity = awaitingIdentity(adapter, local: local), links[identity.link.raw] == nil, isDUT(peer) {
            inbound[identity.link.raw, default: [:]][handle] = Inbound()
        } else {
            // A connection to an identity whose link is not being set up (a DUT that
            // connects out on its own, or another device): it must not leak into the check.
            try run(adapter) { () throws(RadioError) in _ = try adapter.runtime.submit(.disconnect(handle: handle)) }
            let who = adapter.identity(at: local).map { "tester \($0.link.raw)" } ?? "a tester identity of \(adapter.name)"
            try record(DUTOutput(at: instant(at), kind: .log("\(peer.string) connected to \(who) outside a link set-up: disconnected")))
            try readvertiseAwaiting(adapter)
        }
    }

    /// Re-arms the advertising set of every identity of the adapter that still awaits the DUT.
    private func readvertiseAwaiting(_ adapter: TesterAdapter) throws {
        for identity in adapter.identities where awaiting.contains(identity.link.raw) {
            try run(adapter) { () throws(RadioError) in try adapter.readvertise(identity) }
        }
    }

    /// Disconnection reasons (Core Vol 1 Part F) that mean the radio link failed rather than the
    /// DUT ending it (0x13 remote user terminated, 0x14 low resources, 0x15 power off: its choice).
    static let lostOnTheAir: [UInt8: String] = [
        0x08: "supervision timeout", 0x22: "link layer response timeout", 0x28: "instant passed",
        0x3E: "connection failed to be established",
    ]

    private func record(_ output: DUTOutput) throws {
        produced += 1
        guard produced <= maxOutputs(afterInputs: inputs) else {
            let f = DUTFailure("the DUT produced more than \(maxOutputs(afterInputs: inputs)) outputs in one check, \(inputs) values written (flood)")
            failure = f
            throw f
        }
        pending.append(output)
    }

    // MARK: plumbing

    /// Runs one set-up step; a failure that is not the adapter's is `StepFailed` with `what`.
    private func step<T>(_ adapter: TesterAdapter, _ what: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as RadioError {
            try environmental(adapter, error)
            throw StepFailed(text: "\(what): \(brief(error))")
        }
    }

    /// Throws `TesterError` (and marks the driver failed, which stops the run) when `error` is
    /// the adapter's own: transport closed, controller failed, event flood. Returns otherwise.
    private func environmental(_ adapter: TesterAdapter, _ error: RadioError) throws {
        guard error.isAdapterFailure else { return }
        let text = "tester adapter \(adapter.runtime.transport.name) failed: \(error)"
        driver.markFailed(text)
        failure = TesterError(text)
        throw failure!
    }

    /// Runs a runtime call whose failure can only be the adapter's: `TesterError`, or
    /// `LinkFailure` for an operation the peer did not complete.
    @discardableResult
    private func run<T>(_ adapter: TesterAdapter, _ body: () throws(RadioError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            try environmental(adapter, error)
            throw LinkFailure("\(adapter.name): \(error)")
        }
    }

    /// What went wrong, without the command's parameters.
    private func brief(_ error: RadioError) -> String {
        switch error {
        case .operationFailed(_, let why): "\(why)"
        case .timeout: "no answer within \(driver.options.operationTimeout)"
        default: "\(error)"
        }
    }

    private func instant(_ t: ContinuousClock.Instant) -> Instant {
        let d = t - origin
        return Instant(nanoseconds: d.components.seconds * 1_000_000_000 + d.components.attoseconds / 1_000_000_000)
    }
}
