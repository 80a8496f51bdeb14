/// Running totals of what a node received, as only the node can count them: it alone knows
/// where a message copy begins and ends (one relay frame, one blemesh envelope made of several
/// chunks) and whether its de-duplication cache already held it. The simulator reads the
/// change across each `handle` call to count message copies and duplicates without decoding.
public struct NodeCounters: Hashable, Sendable {
    /// Whole copies of user messages received and decoded: relay frames ('F', whatever their
    /// destination), blemesh user envelopes (not control). Acks, beacons and control are not copies.
    public var copiesReceived = 0
    /// Copies whose de-duplication key the node already held (RELAY-R3, BLEMESH-R5), counted
    /// whatever a fault does with them, so a `no-dedup` mutant still reports its duplicates.
    public var duplicateCopies = 0

    public init() {}
}
