import CMemoryHints
import Foundation
import MeshNode

/// Discrete-event simulator: one virtual clock, one event queue ordered by (time, sequence),
/// one seeded generator. It carries out what each node asks (send on a link, set or cancel a
/// timer, deliver to the app) and counts what happens (see `SimMetrics` for definitions).
/// Nodes are sans-IO, so the run is a pure function of the config, the seed and the nodes.
public final class Simulator<N: SimNode> {
    public let config: SimConfig
    private var simulation: SimulationRun<N>

    public init(config: SimConfig, makeNode: @escaping (NodeSpec) -> N) {
        self.config = config
        simulation = SimulationRun(config: config, makeNode: makeNode)
    }

    /// Runs to the end time (or until nothing is left to happen) and returns the metrics.
    ///
    /// Specialized for the reference node: callers in other modules (the CLI, the benchmarks)
    /// reach the generic entry point, which then runs this copy, where every node call, array
    /// access and copy is direct instead of going through the generic witnesses (a fifth of
    /// the per-event cost before).
    @_specialize(where N == Node)
    public func run() -> SimMetrics { simulation.run() }
}

/// The simulator's state and rules. A struct, not the class's own properties: every access to
/// a class's stored property is checked for exclusivity at run time (a call into the runtime
/// per access, several per event), while a mutating method's accesses to its struct are
/// checked when compiling.
struct SimulationRun<N: SimNode> {
    /// One end of an edge as a node sees it; the node's link id is its index in `linkEnds[node]`.
    struct LinkEnd {
        var peer: Int32
        var peerLink: Int32
        var edge: Int32
    }

    /// What a transmission reads of its edge, 48 bytes (the `LinkProfile` in nanoseconds).
    struct EdgeState {
        var latency: Int64
        var jitter: Int64
        var loss: Double
        var mtu: Int32
        /// Arrival time of the last transmission in each direction (lower node to higher, then
        /// back): a link delivers in order, so a later send never overtakes an earlier one.
        var lastArrivalUp: Int64 = 0
        var lastArrivalDown: Int64 = 0
    }

    /// A live timer, under its (node, id) key: 17 bytes, the node being the key's owner.
    struct TimerRecord {
        var token: UInt64
        var tag: CauseTag
        var isRelay: Bool
    }

    enum CauseKind { case command, received, relayTimer, other }

    let config: SimConfig
    private let makeNode: (NodeSpec) -> N
    private var nodes: [N] = []
    private var alive: [Bool]
    private var generation: [Int]
    private var addresses: [NodeAddress]
    private var linkEnds: [[LinkEnd]]
    private var edges: [EdgeState] = []
    /// Per edge, false once a move took the two nodes out of range (or a node dropped it). Apart
    /// from `edges`: every reception checks it, and 40,000 of them fit in the cache.
    private var edgePresent: [Bool] = []
    private var positions: [Topology.Point]?
    /// Which connected part of the mesh each running node is in (`components()`), for a
    /// message's `reachableDeliveries`; nil once a node or an edge comes or goes. Worked out
    /// once for all messages sent between changes, not once a message (a search of the whole
    /// mesh each time: 1 % of a 10,000-node round's instructions for its 100 messages).
    private var componentOf: [Int32]?
    /// The timers pending, by (node, timer id), of nodes whose ids may repeat: one table for the
    /// whole mesh, so setting or firing one does not read a per-node table's storage first.
    /// A node whose ids are fresh (`SimNode.timerIDsAreFresh`, `freshTimers`) has none here: its
    /// timer's event is its record (`SimEvent.ownTimer`). In a 10,000-node beacon round the
    /// table held hundreds of thousands of waiting relays in 23 MB, a random access when each
    /// was set and when it fired (docs/performance.md, "What made it fast").
    private var timers = TimerTable<TimerRecord>()
    /// Per node, whether it keeps `SimNode.timerIDsAreFresh`'s promise (asked when it is made),
    /// and the last timer id it set, which each new one must exceed.
    private var freshTimers: [Bool] = []
    private var lastTimerID: [UInt64]
    /// Timers of fresh-id nodes cancelled before they fell due, by (node and its generation,
    /// id), each gone again when its event comes up. Empty unless a node cancels timers (a
    /// probabilistic relay policy's).
    private var cancelled = TimerTable<Void>()
    private var queue = EventQueue()
    /// The array a node appends an event's actions to, kept from one event to the next.
    private var actionBuffer: [NodeAction] = []
    private var random: SimRandom
    private var hugePages: HeapHugePages
    private var now: Int64 = 0
    private var nextToken: UInt64 = 0

    // Per (message, node) bits: message * nodeCount + node.
    private var received: BitSet
    private var deliveredBits: BitSet
    private var intended: BitSet
    private var reachable: BitSet
    private var injectedAt: [Int64]
    private var latencies: [Int64] = []
    private var hops: [Int] = []
    private var metrics = SimMetrics()

    init(config: SimConfig, makeNode: @escaping (NodeSpec) -> N) {
        self.config = config
        self.makeNode = makeNode
        let n = config.topology.nodeCount
        hugePages = HeapHugePages(nodes: n)
        alive = Array(repeating: true, count: n)
        generation = Array(repeating: 0, count: n)
        lastTimerID = Array(repeating: 0, count: n)
        addresses = (0..<n).map(NodeSpec.address(of:))
        linkEnds = Array(repeating: [], count: n)
        positions = config.topology.positions
        random = SimRandom(seed: config.seed)
        let cells = config.workload.messages.count * n
        received = BitSet(count: cells)
        deliveredBits = BitSet(count: cells)
        intended = BitSet(count: cells)
        reachable = BitSet(count: cells)
        injectedAt = Array(repeating: -1, count: config.workload.messages.count)
        for edge in config.topology.edges {
            addEdge(edge.a, edge.b, profile: edge.profile)
        }
        nodes = (0..<n).map { makeNode(spec(for: $0)) }
        freshTimers = nodes.map(\.timerIDsAreFresh)
        hugePages.adviseGrowth()
    }

    private static func timerKey(_ node: Int, _ id: UInt64) -> TimerTable<TimerRecord>.Key {
        .init(owner: UInt64(node), id: id)
    }

    private static func cancelKey(_ node: Int, life: Int32, _ id: UInt64) -> TimerTable<Void>.Key {
        .init(owner: UInt64(UInt32(bitPattern: life)) << 32 | UInt64(node), id: id)
    }

    private func spec(for index: Int) -> NodeSpec {
        NodeSpec(index: index, address: addresses[index],
                 seed: SimRandom.derive(config.seed, index, salt: UInt64(generation[index])), generation: generation[index])
    }

    @discardableResult
    private mutating func addEdge(_ a: Int, _ b: Int, profile: LinkProfile) -> (Int32, Int32) {
        let edge = Int32(edges.count)
        edges.append(EdgeState(latency: profile.latency.simNanoseconds, jitter: profile.jitter.simNanoseconds,
                               loss: profile.loss, mtu: Int32(clamping: profile.mtu)))
        edgePresent.append(true)
        componentOf = nil
        let linkA = Int32(linkEnds[a].count), linkB = Int32(linkEnds[b].count)
        linkEnds[a].append(LinkEnd(peer: Int32(b), peerLink: linkB, edge: edge))
        linkEnds[b].append(LinkEnd(peer: Int32(a), peerLink: linkA, edge: edge))
        return (linkA, linkB)
    }

    /// Runs to the end time (or until nothing is left to happen) and returns the metrics.
    mutating func run() -> SimMetrics {
        let clock = ContinuousClock()
        let started = clock.now
        let n = config.topology.nodeCount
        for node in 0..<n { queue.schedule(.start(node: Int32(node)), at: 0) }
        for (index, message) in config.workload.messages.enumerated() {
            queue.schedule(.inject(message: Int32(index)), at: message.time.nanoseconds)
        }
        for (index, step) in config.churn.enumerated() {
            queue.schedule(.churn(index: Int32(index)), at: step.time.nanoseconds)
        }
        let end = config.resolvedEndTime
        while metrics.eventsProcessed < config.maxEvents, let entry = queue.popFirst() {
            if entry.time > end {
                release(entry.event)
                break
            }
            now = entry.time
            metrics.eventsProcessed += 1
            if metrics.eventsProcessed & 0xFFF == 0 { hugePages.adviseGrowth() }
            // Two stages, each loading what the next needs to know where to look: the node and
            // packet bytes of the third event from now, and the entries the next event will
            // read, which its node (loaded two events ago) finds. Distances measured: the first
            // stage one event farther was slower (docs/performance.md).
            if let later = queue.upcoming(2) { prefetchNode(for: later) }
            if let next = queue.upcoming(0) { prefetchState(for: next) }
            dispatch(entry.event)
        }
        let wall = clock.now - started
        while let entry = queue.popFirst() { release(entry.event) }
        return finish(wall: Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18)
    }

    /// An event never handled (the run ended first) gives up what it holds; a relay's timer
    /// still to fire is counted as pending, as one in the table is (`finish`).
    private mutating func release(_ event: SimEvent) {
        switch event {
        case .receive(let packet, _, _, _, _): _ = packet.take()
        case .ownTimer(let node, let life, let id, _, let isRelay):
            if isLive(ownTimer: Int(node), life: life, id: id, isRelay: isRelay), isRelay { metrics.relaysPending += 1 }
        default: break
        }
    }

    /// Whether the timer of a fresh-id node is still to fire: not cancelled, and its node not
    /// failed since it was set. One that is not is counted now as the table's timers are when
    /// cancelled or when their node fails (the totals are the same), and its mark removed.
    private mutating func isLive(ownTimer node: Int, life: Int32, id: UInt64, isRelay: Bool) -> Bool {
        if cancelled.count > 0, cancelled.removeValue(forKey: Self.cancelKey(node, life: life, id)) != nil {
            if isRelay { metrics.relaysCancelled += 1 }
            return false
        }
        guard alive[node], life == Int32(truncatingIfNeeded: generation[node]) else {
            if isRelay { metrics.relaysDroppedByFailure += 1 }
            return false
        }
        return true
    }

    /// The first stage: what the event reads first, its node and its packet's bytes. In a mesh
    /// of thousands of nodes both are cache misses, and one event's misses otherwise wait on
    /// each other.
    private func prefetchNode(for event: SimEvent) {
        let node: Int32
        switch event {
        case .receive(let packet, let receiver, _, _, _):
            node = receiver
            meshconform_prefetch(packet.storage)   // its header and reference count, and the first bytes
            meshconform_prefetch(packet.storage + 64)
        case .timer(let owner, _, _), .ownTimer(let owner, _, _, _, _):
            node = owner
            // A timer is most often a relay firing: its sends read the node's link ends, an
            // array of its own (the outer array's element read as the reference it is; its
            // elements follow the array's 32-byte header).
            linkEnds.withUnsafeBufferPointer { ends in
                meshconform_prefetch(UnsafeRawPointer(ends.baseAddress! + Int(owner)).load(as: UnsafeRawPointer.self) + 32)
            }
        default: return
        }
        nodes.withUnsafeBufferPointer { nodes in
            let start = UnsafeRawPointer(nodes.baseAddress! + Int(node))
            // The first 512 bytes: what an event reads of a relay node (`RelayEngine`'s layout).
            for offset in stride(from: 0, to: min(MemoryLayout<N>.stride, 512), by: 64) { meshconform_prefetch(start + offset) }
        }
    }

    /// The second stage, for the next event: its node (loaded since two events ago) is asked to
    /// load the entries the event will read (`Node.prefetch(for:)`), and a timer's record here:
    /// the one a timer event removes, or the slot a reception's new timer would take (a relay
    /// scheduled; the node names its id), which `handle` otherwise waited on for every relay.
    private mutating func prefetchState(for event: SimEvent) {
        switch event {
        case .receive(let packet, let node, _, _, _):
            let timer = nodes.withUnsafeMutableBufferPointer { $0[Int(node)].prefetch(for: .packet(packet.buffer)) }
            if let timer { timers.prefetch(Self.timerKey(Int(node), timer.raw)) }
        case .timer(let node, let id, _):
            timers.prefetch(Self.timerKey(Int(node), id))
            _ = nodes.withUnsafeMutableBufferPointer { $0[Int(node)].prefetch(for: .timer(TimerID(id))) }
        case .ownTimer(let node, _, let id, _, _):
            _ = nodes.withUnsafeMutableBufferPointer { $0[Int(node)].prefetch(for: .timer(TimerID(id))) }
        default: return
        }
    }

    private mutating func dispatch(_ event: SimEvent) {
        switch event {
        case .start(let node):
            let v = Int(node)
            guard alive[v] else { return }
            for (link, end) in linkEnds[v].enumerated() where edgePresent[Int(end.edge)] && alive[Int(end.peer)] {
                handle(v, .linkUp(LinkID(link), peer: addresses[Int(end.peer)]), kind: .other, tag: .background)
            }
        case .receive(let packet, let node, let link, let edge, let tag):
            // The bytes move out of the event (no reference counted) and into the node's.
            let bytes = packet.take()
            let v = Int(node)
            guard alive[v], edgePresent[Int(edge)] else {
                metrics.droppedInFlight += 1
                return
            }
            metrics.receptions += 1
            if tag.message >= 0 {
                metrics.messageReceptions += 1
                let bit = Int(tag.message) * nodes.count + v
                if received[bit] { metrics.duplicatesReceived += 1 } else { received[bit] = true }
            }
            handle(v, .received(bytes, on: LinkID(Int(link))), kind: tag.message >= 0 ? .received : .other, tag: tag)
        case .timer(let node, let id, let token):
            let v = Int(node)
            // One lookup for the check and the removal (the table is large: each is a miss).
            guard alive[v], let record = timers.removeValue(forKey: Self.timerKey(v, id), if: { $0.token == token }) else { return }
            handle(v, .timer(TimerID(id)), kind: record.isRelay ? .relayTimer : .other, tag: record.tag)
        case .ownTimer(let node, let life, let id, let tag, let isRelay):
            let v = Int(node)
            guard isLive(ownTimer: v, life: life, id: id, isRelay: isRelay) else { return }
            handle(v, .timer(TimerID(id)), kind: isRelay ? .relayTimer : .other, tag: tag)
        case .inject(let index):
            inject(Int(index))
        case .churn(let index):
            apply(config.churn[Int(index)].action)
        }
    }

    private mutating func inject(_ index: Int) {
        let message = config.workload.messages[index]
        metrics.messages += 1
        guard alive[message.origin] else {
            metrics.messagesNotSent += 1
            return
        }
        injectedAt[index] = now
        let n = nodes.count
        let part = componentOf ?? components()
        componentOf = part
        let origin = part[message.origin]
        if let destination = message.destination {
            if alive[destination], destination != message.origin {
                intended[index * n + destination] = true
                metrics.expectedDeliveries += 1
                if part[destination] == origin {
                    reachable[index * n + destination] = true
                    metrics.reachableDeliveries += 1
                }
            }
        } else {
            for v in 0..<n where v != message.origin && alive[v] {
                intended[index * n + v] = true
                metrics.expectedDeliveries += 1
                if part[v] == origin {
                    reachable[index * n + v] = true
                    metrics.reachableDeliveries += 1
                }
            }
        }
        let payload = WorkloadPayload.make(index: index, size: config.workload.payloadSize)
        let command = UpperTesterCommand.send(payload: payload, to: message.destination.map { addresses[$0] })
        handle(message.origin, .command(command), kind: .command, tag: CauseTag(message: Int32(index), hops: 0))
    }

    /// A number per running node, the same for nodes connected over present edges and
    /// different otherwise (-1 for a node not running).
    private func components() -> [Int32] {
        var part = [Int32](repeating: -1, count: nodes.count)
        var stack: [Int] = []
        for start in 0..<nodes.count where alive[start] && part[start] < 0 {
            part[start] = Int32(start)
            stack.append(start)
            while let v = stack.popLast() {
                for end in linkEnds[v] where edgePresent[Int(end.edge)] {
                    let u = Int(end.peer)
                    if alive[u], part[u] < 0 {
                        part[u] = Int32(start)
                        stack.append(u)
                    }
                }
            }
        }
        return part
    }

    // MARK: - Carrying out node actions

    private mutating func handle(_ v: Int, _ event: NodeEvent, kind: CauseKind, tag: CauseTag) {
        let traced = tag.message >= 0
        let countCopies = traced && kind == .received
        let before = countCopies ? Self.counters(of: &nodes[v]) : NodeCounters()
        var actions: [NodeAction] = []
        swap(&actions, &actionBuffer)   // taken (a handler nested in this one finds it empty)
        let state = Self.step(&nodes[v], event, at: Instant(nanoseconds: now), appendingTo: &actions)
        metrics.nodeEvents += 1
        if countCopies {
            let after = Self.counters(of: &nodes[v])
            metrics.copiesReceived += after.copiesReceived - before.copiesReceived
            metrics.duplicateCopies += after.duplicateCopies - before.duplicateCopies
        }
        var sent = 0
        if actions.count > 1 { prefetchSends(from: v, actions) }
        // Each action is moved out of the array, a plain one left in its place, rather than
        // copied: a copy retains the packet of a send (and the array's end releases it again).
        // Most events (a duplicate heard) ask for nothing: no access to the array at all.
        if !actions.isEmpty {
            actions.withUnsafeMutableBufferPointer { actions in
                for slot in actions.indices {
                    let action = (actions.baseAddress.unsafelyUnwrapped + slot).move()
                    (actions.baseAddress.unsafelyUnwrapped + slot).initialize(to: .cancelTimer(TimerID(0)))
                    switch consume action {
                    case .send(let bytes, let link):
                        sent += 1
                        transmit(from: v, bytes, on: link.raw, tag: tag)
                    case .setTimer(let id, let at):
                        let isRelay = traced && kind == .received
                        if isRelay { metrics.relaysScheduled += 1 }
                        if freshTimers[v] {
                            // No timer of this id to replace: nothing to record or look up.
                            precondition(id.raw > lastTimerID[v], "node \(v) set timer \(id.raw) after \(lastTimerID[v]), but says its timer ids are fresh")
                            lastTimerID[v] = id.raw
                            let event = SimEvent.ownTimer(node: Int32(v), life: Int32(truncatingIfNeeded: generation[v]), id: id.raw, tag: tag, isRelay: isRelay)
                            queue.schedule(event, at: max(at.nanoseconds, now))
                        } else {
                            nextToken &+= 1
                            let record = TimerRecord(token: nextToken, tag: tag, isRelay: isRelay)
                            if let old = timers.updateValue(record, forKey: Self.timerKey(v, id.raw)), old.isRelay { metrics.relaysCancelled += 1 }
                            queue.schedule(.timer(node: Int32(v), id: id.raw, token: nextToken), at: max(at.nanoseconds, now))
                        }
                    case .cancelTimer(let id):
                        if freshTimers[v] {
                            // Pending, by the node's promise: its event finds the mark (`isLive`).
                            cancelled.updateValue((), forKey: Self.cancelKey(v, life: Int32(truncatingIfNeeded: generation[v]), id.raw))
                        } else if let old = timers.removeValue(forKey: Self.timerKey(v, id.raw)), old.isRelay {
                            metrics.relaysCancelled += 1
                        }
                    case .deliver(let message):
                        recordDelivery(at: v, message, tag: tag)
                    case .disconnect(let link):
                        disconnect(v, link.raw)
                    case .acknowledged:
                        metrics.acknowledgements += 1
                    }
                }
            }
        }
        // Emptied one at a time, its storage kept: `removeAll(keepingCapacity:)` went through a
        // generic path (about 60 instructions per event).
        while !actions.isEmpty { actions.removeLast() }
        swap(&actions, &actionBuffer)
        if traced && kind == .received && sent > 0 {
            metrics.relaysScheduled += 1
            metrics.relaysImmediate += 1
            metrics.relaysExecuted += 1
        }
        if kind == .relayTimer {
            if sent > 0 { metrics.relaysExecuted += 1 } else { metrics.relaysSuppressed += 1 }
        }
        if state > metrics.peakNodeState { metrics.peakNodeState = state }
    }

    /// Starts loading the edge of every send's link: a firing relay's six edges are misses,
    /// which overlap when started together instead of one `transmit` after another. Mutating
    /// though it writes nothing: called from `handle`, a non-mutating method was handed a copy
    /// of the whole run (913 bytes, a `memcpy` per relay fired).
    private mutating func prefetchSends(from v: Int, _ actions: [NodeAction]) {
        // The address taken out of the closure (`linkEnds` holds the array): a borrow across
        // the loop retained it.
        let ends = linkEnds.withUnsafeBufferPointer { $0[v].withUnsafeBufferPointer { $0 } }
        actions.withUnsafeBufferPointer { actions in
            edges.withUnsafeBufferPointer { edges in
                for index in actions.indices {
                    guard case .send(_, let link) = actions[index], link.raw >= 0, link.raw < ends.count else { continue }
                    meshconform_prefetch(edges.baseAddress.unsafelyUnwrapped + Int(ends[link.raw].edge))
                }
            }
        }
    }

    /// Appends the node's actions for `event`, and returns the size of its state after it: read
    /// through the same in-place access, as `nodes[v].stateSize` would copy the node out of the
    /// array first (retaining and releasing each of its references).
    private static func step(_ node: inout N, _ event: NodeEvent, at now: Instant, appendingTo actions: inout [NodeAction]) -> Int {
        node.handle(event, at: now, appendingTo: &actions)
        return node.stateSize.total
    }

    /// The node's counters, read in place: an element read through a buffer pointer is copied
    /// out first, every reference in it retained and released (1,400 instructions a relay node).
    private static func counters(of node: inout N) -> NodeCounters { node.counters }

    private mutating func transmit(from v: Int, _ bytes: consuming [UInt8], on link: Int, tag: CauseTag) {
        metrics.transmissions += 1
        if tag.message >= 0 { metrics.messageTransmissions += 1 } else { metrics.backgroundTransmissions += 1 }
        guard link >= 0, link < linkEnds[v].count else {
            metrics.sendsOnDownLinks += 1
            return
        }
        let end = linkEnds[v][link]
        guard edgePresent[Int(end.edge)], alive[Int(end.peer)] else {
            metrics.sendsOnDownLinks += 1
            return
        }
        let edge = edges[Int(end.edge)]
        if bytes.count > Int(edge.mtu) {
            metrics.mtuDrops += 1
            return
        }
        if edge.loss > 0, random.unit() < edge.loss {
            metrics.lost += 1
            return
        }
        var delay = edge.latency
        if edge.jitter > 0 { delay += Int64(random.unit() * Double(edge.jitter)) }
        // A BLE connection is reliable and in order (link-layer acks, one ATT operation at a
        // time): jitter delays a transmission but never lets it overtake an earlier one on the
        // same link. Without this the chunks of successive blemesh envelopes interleave on one
        // link and overflow the receiver's 64 reassembly slots (BLEMESH-R4), which no radio does.
        // Equal arrival times keep their order too: the queue breaks ties by scheduling order.
        var arrival = now + delay
        if v < Int(end.peer) {
            arrival = max(arrival, edge.lastArrivalUp)
            edges[Int(end.edge)].lastArrivalUp = arrival
        } else {
            arrival = max(arrival, edge.lastArrivalDown)
            edges[Int(end.edge)].lastArrivalDown = arrival
        }
        let next = CauseTag(message: tag.message, hops: tag.hops + 1)
        queue.schedule(.receive(packet: InFlightPacket(bytes), node: end.peer, link: end.peerLink, edge: end.edge, tag: next), at: arrival)
    }

    /// A node dropped a link (RELAY-R11's eighth neighbour): the edge goes, as a BLE
    /// disconnection does for both ends, and the peer is told. It stays gone until a move
    /// brings the two into range again.
    private mutating func disconnect(_ v: Int, _ link: Int) {
        guard link >= 0, link < linkEnds[v].count else { return }
        let end = linkEnds[v][link]
        guard edgePresent[Int(end.edge)] else { return }
        edgePresent[Int(end.edge)] = false
        componentOf = nil
        metrics.disconnects += 1
        let peer = Int(end.peer)
        if alive[peer] { handle(peer, .linkDown(LinkID(Int(end.peerLink))), kind: .other, tag: .background) }
    }

    private mutating func recordDelivery(at v: Int, _ message: AppMessage, tag: CauseTag) {
        guard let index = WorkloadPayload.index(of: message.payload), index < injectedAt.count, injectedAt[index] >= 0 else {
            metrics.unknownDeliveries += 1
            return
        }
        let bit = index * nodes.count + v
        if deliveredBits[bit] {
            metrics.appDuplicates += 1
            return
        }
        deliveredBits[bit] = true
        guard intended[bit] else {
            metrics.misdeliveries += 1
            return
        }
        metrics.delivered += 1
        if reachable[bit] { metrics.reachableDelivered += 1 }
        latencies.append(now - injectedAt[index])
        if tag.message == Int32(index) { hops.append(Int(tag.hops)) }
    }

    // MARK: - Churn

    private mutating func apply(_ action: ChurnEvent.Action) {
        switch action {
        case .fail(let v):
            guard v < nodes.count, alive[v] else { return }
            alive[v] = false
            componentOf = nil
            metrics.relaysDroppedByFailure += timers.removeAll { key, _ in key.owner == UInt64(v) }.filter(\.isRelay).count
            for end in linkEnds[v] where edgePresent[Int(end.edge)] && alive[Int(end.peer)] {
                handle(Int(end.peer), .linkDown(LinkID(Int(end.peerLink))), kind: .other, tag: .background)
            }
        case .join(let v):
            guard v < nodes.count, !alive[v] else { return }
            alive[v] = true
            componentOf = nil
            generation[v] += 1
            nodes[v] = makeNode(spec(for: v))
            freshTimers[v] = nodes[v].timerIDsAreFresh
            lastTimerID[v] = 0
            for end in linkEnds[v] where edgePresent[Int(end.edge)] && alive[Int(end.peer)] {
                handle(Int(end.peer), .linkUp(LinkID(Int(end.peerLink)), peer: addresses[v]), kind: .other, tag: .background)
            }
            dispatch(.start(node: Int32(v)))
        case .move(let v, let point):
            guard v < nodes.count, var positions, let radius = config.topology.radius else { return }
            positions[v] = point
            self.positions = positions
            let r2 = radius * radius
            var inRange = Set<Int>()
            for u in 0..<nodes.count where u != v && positions[u].distanceSquared(to: point) <= r2 { inRange.insert(u) }
            var linked = Set<Int>()
            for (link, end) in linkEnds[v].enumerated() where edgePresent[Int(end.edge)] {
                let u = Int(end.peer)
                if inRange.contains(u) {
                    linked.insert(u)
                    continue
                }
                edgePresent[Int(end.edge)] = false
                componentOf = nil
                if alive[v] && alive[u] {
                    handle(v, .linkDown(LinkID(link)), kind: .other, tag: .background)
                    handle(u, .linkDown(LinkID(Int(end.peerLink))), kind: .other, tag: .background)
                }
            }
            let profile = config.topology.edges.first?.profile ?? .default
            for u in inRange.sorted() where !linked.contains(u) {
                let (linkV, linkU) = addEdge(v, u, profile: profile)
                if alive[v] && alive[u] {
                    handle(v, .linkUp(LinkID(Int(linkV)), peer: addresses[u]), kind: .other, tag: .background)
                    handle(u, .linkUp(LinkID(Int(linkU)), peer: addresses[v]), kind: .other, tag: .background)
                }
            }
        }
    }

    // MARK: - Results

    private func finish(wall: Double) -> SimMetrics {
        var m = metrics
        m.label = config.label
        m.nodes = config.topology.nodeCount
        m.edges = edgePresent.filter { $0 }.count
        m.averageDegree = m.nodes == 0 ? 0 : Double(2 * m.edges) / Double(m.nodes)
        m.seed = config.seed
        m.deliveryRatio = m.expectedDeliveries == 0 ? 0 : Double(m.delivered) / Double(m.expectedDeliveries)
        m.reachableDeliveryRatio = m.reachableDeliveries == 0 ? 0 : Double(m.reachableDelivered) / Double(m.reachableDeliveries)
        m.duplicateRatio = m.copiesReceived == 0 ? 0 : Double(m.duplicateCopies) / Double(m.copiesReceived)
        let sentMessages = m.messages - m.messagesNotSent
        m.transmissionsPerMessage = sentMessages == 0 ? 0 : Double(m.messageTransmissions) / Double(sentMessages)
        m.relaysPending += timers.values.filter(\.isRelay).count
        m.relayExecutionRatio = m.relaysScheduled == 0 ? 1 : Double(m.relaysExecuted) / Double(m.relaysScheduled)
        let sortedLatency = latencies.sorted()
        m.latencyP50Ms = percentile(sortedLatency, 0.50).map { Double($0) / 1e6 }
        m.latencyP99Ms = percentile(sortedLatency, 0.99).map { Double($0) / 1e6 }
        let sortedHops = hops.sorted()
        m.hopsP50 = percentile(sortedHops, 0.50)
        m.hopsMax = sortedHops.last
        m.hopsMean = hops.isEmpty ? nil : Double(hops.reduce(0, +)) / Double(hops.count)
        m.virtualSeconds = Double(now) / 1e9
        m.wallSeconds = wall
        m.eventsPerSecond = wall > 0 ? Double(m.eventsProcessed) / wall : nil
        return m
    }
}

extension Simulator where N == Node {
    /// Runs reference nodes of `dialect` with the given relay policy at every vertex.
    public convenience init(config: SimConfig, dialect: DialectName, policy: RelayPolicyKind = .dialect,
                            faults: Set<Fault> = [], dialectSettings: [String: String] = [:]) {
        self.init(config: config) { spec in
            Node(dialect: dialect,
                 config: NodeConfig(address: spec.address, relayPolicy: policy, faults: faults, dialectSettings: dialectSettings),
                 seed: spec.seed)
        }
    }
}

/// Fixed-size bit array for the per (message, node) flags.
struct BitSet {
    private var words: [UInt64]
    init(count: Int) { words = Array(repeating: 0, count: (count + 63) / 64) }
    subscript(index: Int) -> Bool {
        get { words[index >> 6] & (1 << UInt64(index & 63)) != 0 }
        set {
            if newValue { words[index >> 6] |= 1 << UInt64(index & 63) } else { words[index >> 6] &= ~(1 << UInt64(index & 63)) }
        }
    }
}
