import Foundation
import MeshWire
@testable import MeshNode

/// Drives one node: feeds events, fires its timers in time order, and records what it did with
/// the time it did it, so reference and mutant runs can be compared action by action.
struct Harness {
    enum Output: Hashable, CustomStringConvertible {
        case send([UInt8], LinkID, Instant)
        case deliver(AppMessage, Instant)
        case disconnect(LinkID, Instant)
        case acknowledged(String, Instant)

        var description: String {
            switch self {
            case .send(let b, let l, let t): "send \(l) @\(t) \(String(decoding: b.prefix(80), as: UTF8.self))"
            case .deliver(let m, let t): "deliver \(m.messageID) @\(t)"
            case .disconnect(let l, let t): "disconnect \(l) @\(t)"
            case .acknowledged(let id, let t): "acknowledged \(id) @\(t)"
            }
        }
    }

    var node: Node
    var now = Instant.zero
    var timers: [TimerID: Instant] = [:]
    var outputs: [Output] = []

    init(_ dialect: DialectName, address: NodeAddress, faults: Set<Fault> = [], policy: RelayPolicyKind = .dialect, settings: [String: String] = [:], seed: UInt64 = 1) {
        node = Node(dialect: dialect, config: NodeConfig(address: address, relayPolicy: policy, faults: faults, dialectSettings: settings), seed: seed)
    }

    /// Handles `event` at the current time (after firing every timer due before it).
    @discardableResult
    mutating func feed(_ event: NodeEvent, after delay: Duration = .zero) -> [Output] {
        let target = now + delay
        let before = outputs.count
        runTimers(until: target)
        now = target
        apply(node.handle(event, at: now))
        return Array(outputs[before...])
    }

    /// Fires every timer due up to `now + span`.
    @discardableResult
    mutating func advance(_ span: Duration) -> [Output] {
        let before = outputs.count
        runTimers(until: now + span)
        now = now + span
        return Array(outputs[before...])
    }

    private mutating func runTimers(until limit: Instant) {
        while let (id, at) = timers.min(by: { ($0.value, $0.key.raw) < ($1.value, $1.key.raw) }), at <= limit {
            timers[id] = nil
            now = max(now, at)
            apply(node.handle(.timer(id), at: at))
        }
    }

    private mutating func apply(_ actions: [NodeAction]) {
        for action in actions {
            switch action {
            case .send(let bytes, let link): outputs.append(.send(bytes, link, now))
            case .deliver(let message): outputs.append(.deliver(message, now))
            case .setTimer(let id, let at): timers[id] = at
            case .cancelTimer(let id): timers[id] = nil
            case .disconnect(let link): outputs.append(.disconnect(link, now))
            case .acknowledged(let id): outputs.append(.acknowledged(id, now))
            }
        }
    }
}

extension Array where Element == Harness.Output {
    var sends: [(bytes: [UInt8], link: LinkID, at: Instant)] {
        compactMap { if case .send(let b, let l, let t) = $0 { (b, l, t) } else { nil } }
    }
    var deliveries: [AppMessage] {
        compactMap { if case .deliver(let m, _) = $0 { m } else { nil } }
    }
    var disconnects: [LinkID] {
        compactMap { if case .disconnect(let l, _) = $0 { l } else { nil } }
    }
    var acknowledged: [String] {
        compactMap { if case .acknowledged(let id, _) = $0 { id } else { nil } }
    }
}

func address(_ n: UInt8) -> NodeAddress {
    NodeAddress(bytes: [0xAA, n] + [UInt8](repeating: n, count: 14))
}
