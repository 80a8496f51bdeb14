import BLEHost

/// Which advertisers a dual-role node connects out to, and when it may try again: the
/// central half of a mesh app (scan for the dialect's service, connect, keep one link per
/// peer). Pure: the caller passes the time and what it holds; it does no I/O.
///
/// Rules: at most `maxLinks` outgoing links; never a peer already linked in either direction
/// or being connected; after a failed attempt or a lost link the peer waits
/// `base * 2^(failures-1)`, capped at `cap`, before the next attempt. Two dual-role nodes that
/// hear each other would connect to each other at once; so a peer whose address is lower than
/// the node's own is given `grace` from when it was first heard to connect in first (the lower
/// address connects at once). A peer that never does (peripheral only) is connected after it.
public struct CentralPeers: Sendable {
    public var maxLinks: Int
    public var base: Duration
    public var cap: Duration
    public var grace: Duration
    /// The node's own address bytes (for the grace rule).
    public var own: [UInt8]
    /// When each peer was first heard, for the grace rule (bounded like `retryAfter`).
    private var firstHeard: [[UInt8]: HostInstant] = [:]
    /// Peers (by their six address bytes) and the time before which they are not tried again.
    private var retryAfter: [[UInt8]: (at: HostInstant, failures: Int)] = [:]
    /// Bound on remembered peers: an area full of advertisers cannot grow the table.
    public static let maxRemembered = 256

    public init(own: [UInt8] = [], maxLinks: Int = 3, base: Duration = .seconds(1), cap: Duration = .seconds(30),
                grace: Duration = .seconds(3)) {
        self.own = own
        self.maxLinks = maxLinks
        self.base = base
        self.cap = cap
        self.grace = grace
    }

    /// Whether to connect to `peer` now. `linked` holds the address bytes of every peer the
    /// node has a connection with (in or out, up or being set up); `outgoing` counts its
    /// outgoing connections, pending ones included.
    public func shouldConnect(_ peer: [UInt8], at now: HostInstant, linked: Set<[UInt8]>, outgoing: Int) -> Bool {
        guard outgoing < maxLinks, !linked.contains(peer) else { return false }
        if let wait = retryAfter[peer], now < wait.at { return false }
        if peer.lexicographicallyPrecedes(own), now < (firstHeard[peer] ?? now) + grace { return false }
        return true
    }

    /// The peer advertised the service (call before `shouldConnect`): starts its grace.
    public mutating func heard(_ peer: [UInt8], at now: HostInstant) {
        guard firstHeard[peer] == nil else { return }
        if firstHeard.count >= Self.maxRemembered { firstHeard.removeAll() }   // that only delays peers, never blocks one
        firstHeard[peer] = now
    }

    /// A connection attempt or its setup (MTU, discovery, subscription) failed: back off longer each time.
    /// Returns how long the peer now waits.
    @discardableResult
    public mutating func failed(_ peer: [UInt8], at now: HostInstant) -> Duration {
        let failures = (retryAfter[peer]?.failures ?? 0) + 1
        return hold(peer, failures: failures, at: now)
    }

    /// The link came up: the next loss starts the backoff afresh.
    public mutating func linked(_ peer: [UInt8]) {
        retryAfter[peer] = nil
    }

    /// An established link went down: wait `base` before reconnecting (the peer may be leaving).
    @discardableResult
    public mutating func lost(_ peer: [UInt8], at now: HostInstant) -> Duration {
        hold(peer, failures: max(1, retryAfter[peer]?.failures ?? 1), at: now)
    }

    private mutating func hold(_ peer: [UInt8], failures: Int, at now: HostInstant) -> Duration {
        let wait = min(cap, base * (1 << min(failures - 1, 20)))
        if retryAfter[peer] == nil, retryAfter.count >= Self.maxRemembered {
            // Forget the peer whose hold ends first: it is the one closest to being tried anyway.
            if let oldest = retryAfter.min(by: { $0.value.at < $1.value.at })?.key { retryAfter[oldest] = nil }
        }
        retryAfter[peer] = (now + wait, failures)
        return wait
    }

    /// Two dual-role nodes that connect to each other at once end with two connections; both
    /// keep the same one: the connection whose central has the lower address (as bytes).
    public static func keeps(central: [UInt8], peripheral: [UInt8]) -> Bool {
        central.lexicographicallyPrecedes(peripheral)
    }
}
