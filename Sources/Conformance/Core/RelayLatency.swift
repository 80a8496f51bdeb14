import MeshNode
import Synchronization

/// How long the DUT's relays take on this run's transport, shared by the run's checks.
///
/// Over the air the time from a tester's write to the DUT's relay heard complete is the DUT's
/// own delay plus both hosts' and the transport's: a blemesh relay is several notified chunks
/// per link, and on a loaded machine the hosts add hundreds of milliseconds a page's jitter
/// window knows nothing of. A relay that comes late is not a relay missing: so over the air
/// (`DUTSession.latencyVaries`) the tester widens its windows to cover the latency it measures
/// (`allowance`), and a check that waits for something the DUT owes listens on past its window,
/// up to `maxAirDelay`, before judging it missing (`CheckContext.observe(for:awaiting:)`;
/// docs/radio.md, "Verdicts").
public final class RelayLatencyBook: Sendable {
    /// The most the tester ever grants the air beyond the page's window (plus its static
    /// slack): windows widen at most this much, and a late relay is waited for this much.
    /// Three times the slowest relay measured at a load average of 30 (650 ms, docs/radio.md).
    public static let maxAirDelay: Duration = .seconds(2)
    /// Recent samples kept: the allowance follows the host's load as it changes over a run.
    static let kept = 16

    private let samples = Mutex<[Duration]>([])
    private let roundTrips = Mutex<[LinkID: [Duration]]>([:])

    public init() {}

    /// One relay: from the start of the tester's write of a lone message to the DUT's copy of
    /// it heard complete.
    func record(_ latency: Duration) {
        samples.withLock { s in
            s.append(latency)
            if s.count > Self.kept { s.removeFirst(s.count - Self.kept) }
        }
    }

    /// One round trip of the tester's own on `link` (an ATT request and its response), as the
    /// link came up: the run's report gives each link's (`pathSummary`).
    func recordRoundTrip(_ trip: Duration, on link: LinkID) {
        roundTrips.withLock { r in
            r[link, default: []].append(trip)
            if r[link]!.count > Self.kept { r[link]!.removeFirst() }
        }
    }

    /// "L1 median 14 ms (12 ms to 30 ms, last 9), L2 ...": the tester's path per link, nil when
    /// nothing was measured (the virtual radio, a process DUT).
    public var pathSummary: String? {
        let trips = roundTrips.withLock { $0 }
        guard !trips.isEmpty else { return nil }
        return trips.sorted { $0.key.raw < $1.key.raw }.map { link, d in
            let s = d.sorted()
            return "L\(link.raw) median \(CheckContext.ms(s[s.count / 2])) (\(CheckContext.ms(s[0])) to \(CheckContext.ms(s[s.count - 1])), last \(s.count))"
        }.joined(separator: ", ")
    }

    /// The slowest of the recent relays, if any was measured.
    public var recentSlowest: Duration? { samples.withLock { $0.max() } }

    /// `declared` (the page's windows with the DUT's slack), over the air with its upper bounds
    /// raised to half again the slowest recent relay, by at most `maxAirDelay`.
    func widen(_ declared: DialectParameters, overTheAir: Bool) -> DialectParameters {
        guard overTheAir, let slowest = recentSlowest else { return declared }
        return declared.covering(min(slowest * 3 / 2, declared.relayWindow.upperBound + Self.maxAirDelay))
    }
}

extension DialectParameters {
    /// The same windows with their upper bounds raised to `latency` where they are shorter:
    /// a relay or an answer takes at least what the transport takes. Lower bounds stay: the
    /// transport only ever delays, so an early relay is the DUT's.
    func covering(_ latency: Duration) -> DialectParameters {
        var p = self
        if latency > relayWindow.upperBound { p.relayWindow = relayWindow.lowerBound ... latency }
        p.responseWindow = max(responseWindow, latency)
        return p
    }
}
