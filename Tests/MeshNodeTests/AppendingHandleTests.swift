import MeshWire
import Testing
@testable import MeshNode

/// `Node.handle(_:at:appendingTo:)`, the simulator's entry point, against `handle(_:at:)`: two
/// copies of one node fed the same events give the same actions, appended after whatever the
/// caller's array held. The relay engine appends in place on its own paths; the other dialects
/// go through the default, so every dialect is run.
@Suite struct AppendingHandleTests {
    @Test(arguments: DialectName.allCases)
    func appendsWhatHandleReturns(dialect: DialectName) {
        var byReturn = Node(dialect: dialect, config: NodeConfig(address: address(1)), seed: 5)
        var byAppend = byReturn
        let held = NodeAction.cancelTimer(TimerID(999_999))
        // Two links, a message to send, and (relay) a beacon of another node heard twice.
        var pending: [(event: NodeEvent, at: Instant)] = [
            (.linkUp(LinkID(1), peer: address(2)), .zero),
            (.linkUp(LinkID(2), peer: address(3)), .zero),
            (.command(.send(payload: Array("hello".utf8), to: address(3))), .milliseconds(5)),
        ]
        if dialect == .relay {
            let beacon = RelayPacket.beacon(Beacon(origin: address(9).uuid!, seqNo: 1, ttl: 8, hop: 0)).encoded()
            pending += [(.received(beacon, on: LinkID(1)), .milliseconds(10)), (.received(beacon, on: LinkID(2)), .milliseconds(11))]
        }
        var step = 0
        var sawTimer = false
        while !pending.isEmpty, step < 60 {
            pending.sort { $0.at < $1.at }
            let (event, at) = pending.removeFirst()
            step += 1
            let returned = byReturn.handle(event, at: at)
            // Half the time into an array already holding an action, half into an empty one.
            let before: [NodeAction] = step.isMultiple(of: 2) ? [held] : []
            var appended = before
            byAppend.handle(event, at: at, appendingTo: &appended)
            #expect(appended == before + returned, "\(dialect), event \(step): \(event)")
            for case .setTimer(let id, let when) in returned where when < .seconds(5) {
                pending.append((.timer(id), when))
            }
            if case .timer = event { sawTimer = true }
        }
        // The relay engine's own timer path (a relay handed over, a beacon appended) must have run.
        #expect(sawTimer || dialect != .relay, "no relay timer fired, so its path was not compared")
    }
}
