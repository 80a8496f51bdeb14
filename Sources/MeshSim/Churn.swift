import MeshNode

/// A change to the mesh at a scheduled time.
public struct ChurnEvent: Hashable, Sendable {
    public enum Action: Hashable, Sendable {
        /// The node powers off: its neighbours see its links go down; it neither sends nor
        /// receives, and its pending timers are forgotten.
        case fail(Int)
        /// A failed node powers on again as a fresh node (empty state, a new derived seed) and
        /// its links come up on both ends. No effect on a running node.
        case join(Int)
        /// Geometric topologies only: the node moves; links to nodes now out of range go down,
        /// links to nodes now in range come up (with new link ids).
        case move(Int, to: Topology.Point)
    }

    public var time: Instant
    public var action: Action

    public init(at time: Instant, _ action: Action) {
        self.time = time
        self.action = action
    }
}
