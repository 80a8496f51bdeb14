import MeshNode

/// The built-in reference node, or one of its named mutants, on a virtual clock: waits cost no
/// wall time, so the whole catalog runs in a fraction of a second.
public struct VirtualDriver: DUTDriver {
    public var faults: Set<Fault>

    public init(faults: Set<Fault> = []) { self.faults = faults }

    public var name: String {
        faults.isEmpty ? "reference node (virtual radio)" : "mutant \(faults.map(\.rawValue).sorted().joined(separator: "+")) (virtual radio)"
    }

    /// Every session is a new `Node`.
    public var startsFreshDUT: Bool { true }

    public func start(_ setup: DUTSetup) throws -> any DUTSession {
        let config = NodeConfig(address: setup.address, faults: faults, dialectSettings: setup.settings)
        return VirtualSession(node: Node(dialect: setup.dialect, config: config, seed: setup.seed))
    }
}

/// Runs a `Node` under a virtual clock: fires its timers in time order as the tester waits.
final class VirtualSession: DUTSession {
    private var node: Node
    private(set) var now = Instant.zero
    private var timers: [TimerID: Instant] = [:]
    private var pending: [DUTOutput] = []
    private var produced = 0

    init(node: Node) { self.node = node }

    func apply(_ event: NodeEvent) throws {
        perform(node.handle(event, at: now))
        try checkFlood()
    }

    func wait(until deadline: Instant) throws -> [DUTOutput] {
        while let (id, at) = timers.min(by: { ($0.value, $0.key.raw) < ($1.value, $1.key.raw) }), at <= deadline {
            timers[id] = nil
            now = max(now, at)
            perform(node.handle(.timer(id), at: now))
            try checkFlood()
        }
        now = max(now, deadline)
        defer { pending.removeAll() }
        return pending
    }

    func close() -> String? { nil }

    private func perform(_ actions: [NodeAction]) {
        for action in actions {
            switch action {
            case .send(let bytes, let link): emit(.sent(bytes, on: link))
            case .deliver(let message): emit(.delivered(message))
            case .acknowledged(let id): emit(.acknowledged(messageID: id))
            case .disconnect(let link): emit(.disconnected(link))
            case .setTimer(let id, let at): timers[id] = at
            case .cancelTimer(let id): timers[id] = nil
            }
        }
    }

    private func emit(_ kind: DUTOutput.Kind) {
        produced += 1
        pending.append(DUTOutput(at: now, kind: kind))
    }

    private func checkFlood() throws {
        if produced > maxOutputsPerSession {
            throw DUTFailure("the DUT produced more than \(maxOutputsPerSession) outputs in one check (flood)")
        }
    }
}
