import MeshNode
import MeshWire

/// DDP checks for bitchat: fragment packets are de-duplicated like any packet (BITCHAT-R3,
/// where meshconform is stricter than the app, which floods them bounded by TTL only).
extension DDP {
    static let bitchatChecks = [bv12]

    static let bv12 = Check("DDP/BV-12", "a fragment packet seen before is not relayed again (the app floods fragments; a conforming node de-duplicates them)",
                            dialects: [.bitchat], needs: [.relay, .links(3)], rules: ["BITCHAT-R3", "BITCHAT-R8.6"]) { t in
        let probe = try t.probe(BitchatProbe.self)
        // 1. Three testers link to the DUT.
        try t.connect(3)
        // 2. T1 sends a broadcast's fragments; each is relayed on L2 and L3. (Over the air the
        //    check waits for all six relays: one still coming would be taken for a relay of
        //    T2's copies.)
        let fragments = probe.fragments(of: try FRG.largeBitchat(t, ttl: 5))
        let written = t.elapsed
        try FRG.write(t, fragments, from: 1)
        //    (Whether, not how: a relay the tester cannot decode counts, FRG/BV-05 judges its bytes.)
        let relayedOn = { (seen: [Observation], link: Int) in fragments.allSatisfy { f in t.sightings(ofKey: f.dedupKey, in: seen).contains { $0.link == LinkID(link) } } }
        let first = try t.observe(for: t.parameters.quietPeriod) { relayedOn($0, 2) && relayedOn($0, 3) }
        try t.require(relayedOn(first, 2), "the fragments were not all relayed on L2, so de-duplication cannot be seen",
                      judgedBy: "FRG/BV-05", seen: t.summary(first))
        // 3. Past the ingress gate (bitchat iOS drops any copy within 3 s before its cache is
        //    asked), T2 sends the same fragment packets again, as a neighbour relaying them would.
        try t.passIngressGate(since: written)
        try FRG.write(t, fragments, from: 2)
        // 4. None is relayed again, on any link. (Over the air a relay of T2's copies would come
        //    as late as the first fan-out did: the check listens that long past its window.)
        let fanOut = (fragments.flatMap { t.sightings(ofKey: $0.dedupKey, in: first) }.map(\.time).max() ?? written) - written
        let second = try t.observe(for: t.parameters.quietPeriod + (t.latencyVaries ? fanOut : .zero))
        try t.expect(fragments.allSatisfy { t.sightings(ofKey: $0.dedupKey, in: second).isEmpty }, "a fragment seen before was relayed again",
                     expected: "nothing after T2's copies", seen: t.summary(second))
    }
}
