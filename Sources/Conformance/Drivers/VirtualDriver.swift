import Foundation
import MeshNode

/// The built-in reference node, or one of its named mutants, on a virtual clock: waits cost no
/// wall time, so the whole catalog runs in a fraction of a second.
///
/// By default every check gets a new node. `persistent` keeps one node per dialect for the
/// whole run, as a device on the air is kept: its caches, counters, routes and clock carry
/// from check to check, links the check left up go down at its end, and a second passes
/// between checks. The catalog must give the same verdicts both ways.
///
/// `ownIdentity` makes the node keep an id of its own (`ownAddress`), as a phone does: it
/// ignores the id and identity settings the tester assigns, so the tester must learn it
/// (Capabilities.keepsOwnIdentity) or declare it. `announces` makes it announce itself as the
/// apps do and `meshconform node` does (NodeConfig.announces).
public struct VirtualDriver: DUTDriver {
    /// The faults, and whether each dialect's app profile comes on top (`--mutant app`).
    public var mutants: MutantSelection
    public let persistent: Bool
    public let ownIdentity: Bool
    public let announces: Bool
    private let kept = KeptNodes()

    public init(faults: Set<Fault> = [], persistent: Bool = false, ownIdentity: Bool = false, announces: Bool = false) {
        self.init(mutants: MutantSelection(faults: faults), persistent: persistent, ownIdentity: ownIdentity, announces: announces)
    }

    public init(mutants: MutantSelection, persistent: Bool = false, ownIdentity: Bool = false, announces: Bool = false) {
        self.mutants = mutants
        self.persistent = persistent
        self.ownIdentity = ownIdentity
        self.announces = announces
    }

    public var faults: Set<Fault> { mutants.faults }

    public var name: String {
        let node = mutants.isEmpty ? "reference node" : "mutant \(mutants.name)"
        let modes = (persistent ? ["one node for the whole run"] : []) + (ownIdentity ? ["its own identity"] : []) + (announces ? ["announces"] : [])
        return node + " (virtual radio\(modes.map { ", " + $0 }.joined()))"
    }

    /// The id a node with its own identity has: no tester's, the same for every check.
    public static let ownAddress = NodeAddress(UUID(uuidString: "0A1D0000-0000-4000-8000-00000000C0DE")!)
    /// Settings that assign an identity: a node with its own ignores them.
    static let identitySettings: Set<String> = ["privateKey", "userID", "nodeId", "name"]

    /// Every session is a new `Node`, unless the driver is persistent.
    public var startsFreshDUT: Bool { !persistent }

    /// The gap between two checks on a persistent node's clock.
    static let gapBetweenChecks: Duration = .seconds(1)

    public func start(_ setup: DUTSetup) throws -> any DUTSession {
        guard persistent else { return VirtualSession(dut: makeDUT(setup), keepsNode: false) }
        return VirtualSession(dut: kept.node(for: setup.dialect) { makeDUT(setup) }, keepsNode: true)
    }

    private func makeDUT(_ setup: DUTSetup) -> VirtualDUT {
        let faults = mutants.faults(for: setup.dialect)
        let config = ownIdentity
            ? NodeConfig(address: Self.ownAddress, faults: faults, dialectSettings: setup.settings.filter { !Self.identitySettings.contains($0.key) }, announces: announces)
            : NodeConfig(address: setup.address, faults: faults, dialectSettings: setup.settings, announces: announces)
        return VirtualDUT(node: Node(dialect: setup.dialect, config: config, seed: setup.seed))
    }
}

/// A persistent driver's nodes, one per dialect, made by the first check that needs one.
private final class KeptNodes: @unchecked Sendable {
    private let lock = NSLock()
    private var nodes: [DialectName: VirtualDUT] = [:]

    func node(for dialect: DialectName, make: () -> VirtualDUT) -> VirtualDUT {
        lock.withLock {
            if let node = nodes[dialect] { return node }
            let node = make()
            nodes[dialect] = node
            return node
        }
    }
}

/// A `Node` under a virtual clock: fires its timers in time order as time advances.
final class VirtualDUT {
    private var node: Node
    private(set) var now = Instant.zero
    private var timers: [TimerID: Instant] = [:]
    private(set) var pending: [DUTOutput] = []

    init(node: Node) { self.node = node }

    func apply(_ event: NodeEvent) { perform(node.handle(event, at: now)) }

    /// Runs the node's timers up to `deadline`; `budget` bounds the outputs (a flood).
    func advance(to deadline: Instant, budget: Int) {
        while pending.count <= budget, let (id, at) = timers.min(by: { ($0.value, $0.key.raw) < ($1.value, $1.key.raw) }), at <= deadline {
            timers[id] = nil
            now = max(now, at)
            perform(node.handle(.timer(id), at: now))
        }
        now = max(now, deadline)
    }

    func take() -> [DUTOutput] {
        defer { pending.removeAll() }
        return pending
    }

    private func perform(_ actions: [NodeAction]) {
        for action in actions {
            switch action {
            case .send(let bytes, let link): pending.append(DUTOutput(at: now, kind: .sent(bytes, on: link)))
            case .deliver(let message): pending.append(DUTOutput(at: now, kind: .delivered(message)))
            case .acknowledged(let id): pending.append(DUTOutput(at: now, kind: .acknowledged(messageID: id)))
            case .disconnect(let link): pending.append(DUTOutput(at: now, kind: .disconnected(link)))
            case .setTimer(let id, let at): timers[id] = at
            case .cancelTimer(let id): timers[id] = nil
            }
        }
    }
}

/// One check's view of a virtual node.
final class VirtualSession: DUTSession {
    private let dut: VirtualDUT
    private let keepsNode: Bool
    private var produced = 0
    /// Values the tester wrote (the flood bound grows with them).
    private var inputs = 0
    private var links: Set<LinkID> = []

    init(dut: VirtualDUT, keepsNode: Bool) {
        self.dut = dut
        self.keepsNode = keepsNode
        // Whatever the node did between checks (with no link up) is not this check's.
        _ = dut.take()
    }

    var now: Instant { dut.now }

    func apply(_ event: NodeEvent) throws {
        switch event {
        case .linkUp(let link, _, _): links.insert(link)
        case .linkDown(let link): links.remove(link)
        case .received: inputs += 1
        default: break
        }
        dut.apply(event)
        try checkFlood()
    }

    func wait(until deadline: Instant) throws -> [DUTOutput] {
        dut.advance(to: deadline, budget: maxOutputs(afterInputs: inputs) - produced)
        try checkFlood()
        let outputs = dut.take()
        produced += outputs.count
        return outputs
    }

    /// A kept node loses the check's links, as a device does when the testers disconnect, and
    /// lives on for the gap between checks.
    func close() -> String? {
        guard keepsNode else { return nil }
        for link in links.sorted() { dut.apply(.linkDown(link)) }
        dut.advance(to: dut.now + VirtualDriver.gapBetweenChecks, budget: maxOutputsPerSession)
        _ = dut.take()
        return nil
    }

    private func checkFlood() throws {
        if produced + dut.pending.count > maxOutputs(afterInputs: inputs) {
            throw DUTFailure("the DUT produced more than \(maxOutputs(afterInputs: inputs)) outputs in one check, \(inputs) values written (flood)")
        }
    }
}
