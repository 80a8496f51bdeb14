import MeshNode

/// The numbers a check waits by, from section 6 of the dialect's page (docs/dialects/). Checks
/// read windows from here, never from literals, so widening a window is one edit on the page
/// and one here; `Capabilities.timingSlackMs` widens them all for slow transports.
public struct DialectParameters: Sendable {
    /// A relay leaves within this window after the packet that caused it.
    public var relayWindow: ClosedRange<Duration>
    /// Acks and control answers leave within this much.
    public var responseWindow: Duration
    /// The TTL an originator uses.
    public var defaultTTL: Int
    /// Entries kept at least this long, and at least this many of them.
    public var dedupRetention: Duration
    public var dedupCapacity: Int
    /// Beacon period, for dialects with beacons.
    public var beaconPeriod: Duration?
    /// Largest packet (relay) or chunk (blemesh) on a link.
    public var maxUnit: Int
    /// A reassembly not complete this long after its first chunk is discarded (blemesh).
    public var reassemblyLifetime: Duration?
    /// Incomplete reassemblies a node holds at once before a new one evicts the oldest
    /// (bitchat, BITCHAT-R8.3).
    public var reassemblyCapacity: Int? = nil
    /// A packet whose timestamp is further than this from the node's clock is dropped unseen
    /// (bitchat, BITCHAT-R4): a copy older than this says nothing about the cache.
    public var freshness: Duration? = nil
    /// The node may skip a relay by chance (simple: 90 % at 3-4 links, SIMPLE-R6), so a check
    /// that needs one relayed retries with fresh messages (`CheckContext.sendRelayable`).
    public var relayMaySkip = false
    /// Relays the node keeps waiting at once; more at one time are dropped (simple, SIMPLE-R7),
    /// so a check that needs every message of a burst relayed sends at most this many at a time.
    public var relaysWaitingMax: Int? = nil
    /// A copy of a packet seen this recently may be dropped before the cache is asked (bitchat
    /// iOS's duplicate-ingress gate, 3 s): a check that means to test the cache replays later.
    public var ingressGate: Duration = .zero
    /// How long a silence must last before the tester concludes nothing more will come:
    /// the relay window's end, widened.
    public var quietPeriod: Duration { relayWindow.upperBound + .milliseconds(20) }
    /// How long to wait for an answer the DUT owes (an ack, a control reply) or a relay before
    /// concluding none will come: the longer of the two windows, widened alike.
    public var answerPeriod: Duration { max(quietPeriod, responseWindow + .milliseconds(20)) }
    /// How long a DUT that keeps its own id is given to name itself on links just up: a beacon
    /// or document period where the dialect has one (relay, peat), else the answer period (a
    /// blemesh ANNOUNCE and a bitchat announce go out as a link comes up).
    public var identityWait: Duration { (beaconPeriod ?? .zero) + answerPeriod }

    public static func of(_ dialect: DialectName) -> DialectParameters {
        switch dialect {
        case .relay:
            // relay.md section 6: relay.jitter.min/max, relay.ttl.default, relay.dedup.*,
            // relay.beacon.period, relay.packet.max. Acks leave within the jitter window (RELAY-R7.1).
            DialectParameters(relayWindow: .zero ... .milliseconds(100), responseWindow: .milliseconds(100),
                              defaultTTL: 8, dedupRetention: .seconds(300), dedupCapacity: 1024,
                              beaconPeriod: .seconds(2), maxUnit: 512, reassemblyLifetime: nil)
        case .blemesh:
            // blemesh.md section 6: blemesh.jitter (10-80 ms over all degrees), blemesh.ttl.max,
            // blemesh.dedup.*, blemesh.chunk.max, blemesh.reassembly, control.responseMax 1 s.
            DialectParameters(relayWindow: .milliseconds(10) ... .milliseconds(80), responseWindow: .seconds(1),
                              defaultTTL: 3, dedupRetention: .seconds(300), dedupCapacity: 1024,
                              beaconPeriod: nil, maxUnit: 512, reassemblyLifetime: .seconds(300))
        case .bitchat:
            // bitchat.md section 6: bitchat.jitter (0-220 ms, the apps' envelope), bitchat.ttl.default,
            // bitchat.dedup.* (750: what iOS keeps after a trim), bitchat.unit.max,
            // bitchat.reassembly.lifetime, bitchat.reassembly.max, bitchat.clock.skew, bitchat.ingress.gate. bitchat has no acks.
            DialectParameters(relayWindow: .zero ... .milliseconds(220), responseWindow: .milliseconds(220),
                              defaultTTL: 7, dedupRetention: .seconds(300), dedupCapacity: 750,
                              beaconPeriod: nil, maxUnit: 512, reassemblyLifetime: .seconds(30), reassemblyCapacity: 128,
                              freshness: .seconds(120), ingressGate: .seconds(3))
        case .simple:
            // simple.md section 6: simple.jitter, simple.ttl.default, simple.dedup.*, simple.message.max,
            // simple.relays.max.
            DialectParameters(relayWindow: .milliseconds(10) ... .milliseconds(100), responseWindow: .milliseconds(100),
                              defaultTTL: 5, dedupRetention: .seconds(300), dedupCapacity: 1000,
                              beaconPeriod: nil, maxUnit: 512, reassemblyLifetime: nil, relayMaySkip: true, relaysWaitingMax: 20)
        case .camp:
            // camp.md section 5: camp.jitter.max, camp.dedup.*, camp.message.max. BLEMessage has
            // no TTL (CAMP-R3): defaultTTL is 0, used by no check camp runs. Confirmations leave
            // within the jitter window (CAMP-R5).
            DialectParameters(relayWindow: .zero ... .milliseconds(100), responseWindow: .milliseconds(100),
                              defaultTTL: 0, dedupRetention: .seconds(300), dedupCapacity: 1000,
                              beaconPeriod: nil, maxUnit: 512, reassemblyLifetime: nil)
        case .peat:
            // peat.md section 6: peat.relay.window, peat.hops.default (as a TTL: hop 0 of 7 is
            // 8 transmissions, PeatProbe), peat.dedup.*, peat.value.max; the document period
            // stands where beacons do. Merged documents go out at once (PEAT-R5).
            DialectParameters(relayWindow: .zero ... .milliseconds(100), responseWindow: .milliseconds(100),
                              defaultTTL: 8, dedupRetention: .seconds(300), dedupCapacity: 1000,
                              beaconPeriod: .seconds(2), maxUnit: 512, reassemblyLifetime: nil)
        }
    }

    /// The same windows with `slack` added to every upper bound. Lower bounds stay the page's:
    /// a pipe, a host or a radio only ever delays a relay, so one earlier than the page's
    /// minimum delay is the DUT's, whatever slack it declares (docs/checks.md, "Verdicts").
    public func widened(by slack: Duration) -> DialectParameters {
        guard slack > .zero else { return self }
        var p = self
        p.relayWindow = relayWindow.lowerBound ... relayWindow.upperBound + slack
        p.responseWindow += slack
        return p
    }
}
