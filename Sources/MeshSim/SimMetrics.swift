import Foundation

/// What one run measured. Definitions (the simulator counts them from node actions; it never
/// decodes the bytes a node sends):
///
/// - A *message transmission* is a `send` action that descends from a workload message: sent
///   while handling that message's `.command`, or while handling the `.received` of a
///   transmission that descends from it, or when a timer fires that was set while handling
///   one of those. Every other `send` (beacons, announces, and what they cause) is a
///   *background transmission*. One `send` on one link is one transmission.
/// - A *relay timer* is a timer set while handling the `.received` of a message transmission.
///   `relaysScheduled` counts relay timers set plus *immediate relays* (handlings of a
///   `.received` message transmission that send at once, as plain flooding does).
///   `relaysExecuted` = immediate relays + relay timers that fired and sent at least once.
///   `relaysCancelled` = relay timers cancelled (or replaced by a new timer with the same id)
///   before firing. `relaysSuppressed` = relay timers that fired and sent nothing.
///   `relaysDroppedByFailure` = relay timers of a node that failed. `relaysPending` = relay
///   timers still due when the run ended. The six add up:
///   scheduled = executed + cancelled + suppressed + droppedByFailure + pending.
///   Acks or replies a node sends on receipt count as relays too: the simulator cannot tell
///   them apart without decoding.
/// - `expectedDeliveries`: for a broadcast, every node other than the origin that is running
///   when the message is injected; for a unicast, the destination if it is running then.
///   `deliveryRatio` = first deliveries of a message to an intended recipient / expected.
///   A message whose origin is down at its time is not sent and counts in `messagesNotSent`.
/// - `reachableDeliveries`: the expected deliveries whose recipient is connected to the origin
///   at injection (a path of present edges between running nodes, any length): what a flood
///   with unlimited TTL could do on lossless links. `reachableDelivered` counts first deliveries
///   to those recipients; `reachableDeliveryRatio` = reachableDelivered / reachableDeliveries.
///   The gap between `deliveryRatio` and it is the topology's doing (a disconnected mesh), not
///   the protocol's.
/// - `receptions`: transmissions that arrived (message and background); `messageReceptions`:
///   those of message transmissions. `duplicatesReceived`: receptions of a message transmission
///   at a node that had already received a transmission of the same message (per transmission:
///   the second chunk of a blemesh envelope counts, and so does an ack reaching a node the
///   frame passed through).
/// - Copies, as the nodes count them (`NodeCounters`): `copiesReceived` = whole user-message
///   copies (a relay frame, a blemesh user envelope after reassembly) that descend from a
///   workload message and were received; `duplicateCopies` = those the receiving node's
///   de-duplication cache already held; `duplicateRatio` = duplicateCopies / copiesReceived
///   (0 when none). This is seed 000's "duplicates blocked" over "messages received".
/// - `appDuplicates`: deliveries to an app of a message it already had. `misdeliveries`:
///   deliveries to a node that was not an intended recipient (a unicast's relays, or the
///   origin itself).
/// - Latency: injection to first delivery at each intended recipient. Hops: the number of
///   transmissions in the causal chain that brought that first delivery. Percentiles are
///   nearest-rank.
/// - `acknowledgements`: `.acknowledged` actions, an origin told that the destination got its
///   message (RELAY-R7.3, BLEMESH-R11). `disconnects`: links a node dropped (`.disconnect`,
///   RELAY-R11); the edge is then gone for both ends and no longer counts as a path for
///   `reachableDeliveries`.
/// - `peakNodeState`: the largest `Node.stateSize.total` of any node after any event.
/// - `eventsProcessed`: events taken off the queue (receptions, timers, starts, injections,
///   churn), including ones dropped because their node was down. `nodeEvents`: calls to
///   `handle`. `wallSeconds` and `eventsPerSecond` are the only fields that vary between
///   runs of the same seed; `json(includeTiming: false)` leaves them out.
public struct SimMetrics: Codable, Hashable, Sendable {
    public var label: String = ""
    public var nodes = 0
    public var edges = 0
    public var averageDegree = 0.0
    public var seed: UInt64 = 0

    public var messages = 0
    public var messagesNotSent = 0
    public var expectedDeliveries = 0
    public var delivered = 0
    public var deliveryRatio = 0.0
    public var reachableDeliveries = 0
    public var reachableDelivered = 0
    /// reachableDelivered / reachableDeliveries (0 when nothing was reachable).
    public var reachableDeliveryRatio = 0.0
    public var misdeliveries = 0
    public var appDuplicates = 0
    public var unknownDeliveries = 0
    public var acknowledgements = 0

    public var transmissions = 0
    public var messageTransmissions = 0
    public var backgroundTransmissions = 0
    public var transmissionsPerMessage = 0.0
    public var lost = 0
    public var mtuDrops = 0
    public var sendsOnDownLinks = 0
    public var droppedInFlight = 0
    public var disconnects = 0
    public var receptions = 0
    public var messageReceptions = 0
    public var duplicatesReceived = 0
    public var copiesReceived = 0
    public var duplicateCopies = 0
    /// duplicateCopies / copiesReceived.
    public var duplicateRatio = 0.0

    public var relaysScheduled = 0
    public var relaysImmediate = 0
    public var relaysExecuted = 0
    public var relaysCancelled = 0
    public var relaysSuppressed = 0
    public var relaysDroppedByFailure = 0
    public var relaysPending = 0
    /// relaysExecuted / relaysScheduled (1 when nothing was scheduled).
    public var relayExecutionRatio = 1.0

    public var latencyP50Ms: Double?
    public var latencyP99Ms: Double?
    public var hopsP50: Int?
    public var hopsMax: Int?
    public var hopsMean: Double?

    public var peakNodeState = 0
    public var eventsProcessed = 0
    public var nodeEvents = 0
    public var virtualSeconds = 0.0

    public var wallSeconds: Double?
    public var eventsPerSecond: Double?

    public init() {}

    public func json(includeTiming: Bool = true, pretty: Bool = true) -> String {
        var copy = self
        if !includeTiming {
            copy.wallSeconds = nil
            copy.eventsPerSecond = nil
        }
        return Self.encode(copy, pretty: pretty)
    }

    static func encode<T: Encodable>(_ value: T, pretty: Bool) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return (try? String(decoding: encoder.encode(value), as: UTF8.self)) ?? "{}"
    }

    /// JSON array of several runs (a sweep), same key order as `json`.
    public static func json(_ runs: [SimMetrics], includeTiming: Bool = true) -> String {
        encode(runs.map { run -> SimMetrics in
            var copy = run
            if !includeTiming { copy.wallSeconds = nil; copy.eventsPerSecond = nil }
            return copy
        }, pretty: true)
    }

    /// A few lines for people.
    public var summary: String {
        func pct(_ v: Double) -> String { String(format: "%.1f %%", v * 100) }
        func num(_ v: Double) -> String { String(format: "%.2f", v) }
        var lines: [String] = []
        lines.append("\(label.isEmpty ? "run" : label): \(nodes) nodes, \(edges) edges (average degree \(num(averageDegree))), seed \(seed)")
        lines.append("  messages           \(messages) injected, \(messagesNotSent) not sent (origin down)")
        lines.append("  delivery           \(pct(deliveryRatio)) (\(delivered) of \(expectedDeliveries) expected), \(appDuplicates) app duplicates, \(misdeliveries) misdeliveries")
        lines.append("  reachable          \(pct(reachableDeliveryRatio)) (\(reachableDelivered) of the \(reachableDeliveries) connected to their origin)")
        lines.append("  transmissions      \(messageTransmissions) for messages (\(num(transmissionsPerMessage)) per message), \(backgroundTransmissions) background")
        lines.append("  acks               \(acknowledgements) messages acknowledged to their origin")
        lines.append("  losses             \(lost) lost, \(mtuDrops) over MTU, \(sendsOnDownLinks) on down links, \(droppedInFlight) dropped in flight, \(disconnects) links dropped by nodes")
        lines.append("  receptions         \(receptions), \(messageReceptions) of message transmissions (\(duplicatesReceived) at a node that had one already)")
        lines.append("  copies             \(copiesReceived) received, \(duplicateCopies) duplicates (\(pct(duplicateRatio)))")
        lines.append("  relays             \(relaysScheduled) scheduled (\(relaysImmediate) immediate), \(relaysExecuted) executed (\(pct(relayExecutionRatio))), \(relaysCancelled) cancelled, \(relaysSuppressed) suppressed, \(relaysPending) pending")
        let latency = latencyP50Ms.map { String(format: "p50 %.1f ms, p99 %.1f ms", $0, latencyP99Ms ?? 0) } ?? "-"
        let hops = hopsP50.map { "p50 \($0), max \(hopsMax ?? 0), mean \(num(hopsMean ?? 0))" } ?? "-"
        lines.append("  latency            \(latency); hops \(hops)")
        lines.append("  node state         peak \(peakNodeState) entries")
        var events = "  events             \(eventsProcessed) (\(nodeEvents) handled), \(num(virtualSeconds)) s virtual"
        if let wallSeconds, let eventsPerSecond {
            events += String(format: ", %.3f s wall, %.0f events/s", wallSeconds, eventsPerSecond)
        }
        lines.append(events)
        return lines.joined(separator: "\n")
    }
}

/// Nearest-rank percentile of an ascending array.
func percentile<T>(_ sorted: [T], _ p: Double) -> T? {
    guard !sorted.isEmpty else { return nil }
    let rank = Int((p * Double(sorted.count)).rounded(.up))
    return sorted[min(sorted.count - 1, max(0, rank - 1))]
}
