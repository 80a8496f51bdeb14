import BLEHost
import HCITransport

/// Runs one sans-IO `LEHost` over one `HCITransport` on the wall clock: it carries out the
/// host's actions (packets to the controller, timers) and hands the host's events to the
/// layer above through a blocking API in which every wait has a deadline.
///
/// Single-threaded: the caller's thread does all the work inside `nextEvent` / `perform`.
/// Events that arrive while `perform` waits for its own result are kept, in order, for the
/// next `nextEvent` (at most `maxQueuedEvents`: beyond that the controller or a peer floods us).
public final class HostRuntime {
    public let transport: any HCITransport
    public private(set) var host: LEHost
    public let maxQueuedEvents: Int
    private let origin = ContinuousClock.now
    private var timers: [HostTimerID: HostInstant] = [:]
    private var events: [HostEvent] = []
    /// When each queued event came out of the host (parallel to `events`): a notification
    /// that waits in the queue while `perform` runs keeps the time it arrived.
    private var eventTimes: [ContinuousClock.Instant] = []
    private var nextOperation: UInt64 = 1
    /// Set when the transport or controller failed; every later call throws it again.
    private var failure: RadioError?

    public init(transport: any HCITransport, config: LEHostConfig = LEHostConfig(), maxQueuedEvents: Int = 10_000) {
        self.transport = transport
        self.host = LEHost(config: config)
        self.maxQueuedEvents = maxQueuedEvents
    }

    /// The runtime's clock: nanoseconds since it was created (monotonic).
    public var now: HostInstant { HostInstant(nanoseconds: Int64(nanoseconds(ContinuousClock.now - origin))) }

    public func wallInstant(_ t: HostInstant) -> ContinuousClock.Instant { origin + .nanoseconds(t.nanoseconds) }

    /// Adds a GATT service to the host's database (before advertising it).
    public func registerService(_ service: GATTServiceDefinition) throws(GATTDatabase.RegistrationError) -> RegisteredService {
        try host.registerService(service)
    }

    /// Replaces the value a read of a local characteristic returns; false for an unknown handle.
    @discardableResult
    public func setValue(_ value: [UInt8], valueHandle: UInt16) -> Bool {
        host.setValue(value, valueHandle: valueHandle)
    }

    /// The same for the connections whose local side is `address` only (one identity of several).
    @discardableResult
    public func setValue(_ value: [UInt8], valueHandle: UInt16, forLocalAddress address: BluetoothAddress) -> Bool {
        host.setValue(value, valueHandle: valueHandle, forLocalAddress: address)
    }

    /// Starts a command; its end comes as `.completed(id, _)` / `.failed(id, _)` from `nextEvent`.
    @discardableResult
    public func submit(_ command: HostCommand) throws(RadioError) -> OperationID {
        if let failure { throw failure }
        let id = OperationID(nextOperation)
        nextOperation += 1
        try feed(.command(id, command))
        return id
    }

    /// Runs `command` and waits for its result until `deadline`; other events are kept for
    /// `nextEvent`. Throws `.operationFailed` when the host reports failure, `.timeout` at the deadline.
    public func perform(_ command: HostCommand, until deadline: ContinuousClock.Instant) throws(RadioError) -> OperationResult {
        let id = try submit(command)
        var index = 0
        while true {
            while index < events.count {
                switch events[index] {
                case .completed(id, let result):
                    events.remove(at: index); eventTimes.remove(at: index)
                    return result
                case .failed(id, let why):
                    events.remove(at: index); eventTimes.remove(at: index)
                    throw .operationFailed(command: "\(command)".prefix(80).description, why)
                case .controllerFailed(let why):
                    throw fail(.controllerFailed(why))
                default:
                    index += 1
                }
            }
            guard try pump(until: deadline) else { throw .timeout(command: "\(command)".prefix(80).description) }
        }
    }

    /// Resets and initialises the controller with `randomAddress` (a random static address).
    public func powerOn(randomAddress: BluetoothAddress, timeout: Duration = .seconds(10)) throws(RadioError) -> ControllerInfo {
        _ = try perform(.powerOn(randomAddress: randomAddress), until: .now + timeout)
        guard let info = host.controller else { throw .controllerFailed(.notReady) }
        return info
    }

    /// The next host event, or nil when none came by `deadline`.
    public func nextEvent(until deadline: ContinuousClock.Instant) throws(RadioError) -> HostEvent? {
        try nextTimedEvent(until: deadline)?.event
    }

    /// The next host event with the time the host produced it, or nil when none came by `deadline`.
    public func nextTimedEvent(until deadline: ContinuousClock.Instant) throws(RadioError) -> (event: HostEvent, at: ContinuousClock.Instant)? {
        while events.isEmpty {
            guard try pump(until: deadline) else { return nil }
        }
        let event = events.removeFirst()
        let at = eventTimes.removeFirst()
        if case .controllerFailed(let why) = event { throw fail(.controllerFailed(why)) }
        return (event, at)
    }

    /// Events waiting to be read.
    public var queuedEvents: Int { events.count }

    public func close() {
        transport.close()
    }

    /// Fires due timers, then waits for one controller packet until the earlier of `deadline`
    /// and the next timer. False when `deadline` passed with nothing happening.
    private func pump(until deadline: ContinuousClock.Instant) throws(RadioError) -> Bool {
        if let failure { throw failure }
        let before = events.count
        try fireDueTimers()
        if events.count > before { return true }
        let wake = timers.values.min().map { min(wallInstant($0), deadline) } ?? deadline
        let packet: H4Packet?
        do {
            packet = try transport.receive(until: wake)
        } catch {
            throw fail(.transport(error))
        }
        if let packet { try feed(.controller(packet)) }
        try fireDueTimers()
        if events.count > before { return true }
        return packet != nil || ContinuousClock.now < deadline
    }

    private func fireDueTimers() throws(RadioError) {
        let t = now
        for (id, at) in timers.sorted(by: { $0.value < $1.value }) where at <= t {
            timers[id] = nil
            try feed(.timer(id))
        }
    }

    private func feed(_ input: HostInput) throws(RadioError) {
        for action in host.handle(input, at: now) {
            switch action {
            case .send(let packet):
                do { try transport.send(packet) } catch { throw fail(.transport(error)) }
            case .setTimer(let id, let at):
                timers[id] = at
            case .event(let event):
                guard events.count < maxQueuedEvents else {
                    throw fail(.eventFlood(maxQueuedEvents))
                }
                events.append(event)
                eventTimes.append(ContinuousClock.now)
            }
        }
    }

    private func fail(_ error: RadioError) -> RadioError {
        failure = error
        return error
    }
}

func nanoseconds(_ d: Duration) -> Int64 {
    let (s, atto) = d.components
    return s &* 1_000_000_000 &+ atto / 1_000_000_000
}

/// Why the radio could not do what was asked.
public enum RadioError: Error, Sendable, CustomStringConvertible {
    case transport(TransportError)
    /// The controller failed (hardware error, unanswered command, refused init step).
    case controllerFailed(HostFailure)
    case operationFailed(command: String, HostFailure)
    case timeout(command: String)
    /// More unread host events than the bound: something floods the host.
    case eventFlood(Int)

    public var description: String {
        switch self {
        case .transport(let e): "\(e)"
        case .controllerFailed(let f): "the controller failed: \(f)"
        case .operationFailed(let command, let f): "\(command) failed: \(f)"
        case .timeout(let command): "\(command) did not finish in time"
        case .eventFlood(let n): "more than \(n) unread host events: the controller or a peer floods the host"
        }
    }

    /// Environment problems (the CLI exits 2 for these).
    public var isEnvironmental: Bool {
        if case .transport(let e) = self { return e.isEnvironmental }
        return false
    }
}
