import MeshNode

/// Where the over-the-air inputs start from: valid units the dialect's probe builds (so each
/// mutation lands near something the DUT really parses), plus whatever valid bytes the caller
/// adds (the golden vectors of the unit format).
enum FuzzSeeds {
    /// Units of messages of every shape the probe can express: relayed and addressed to the
    /// DUT, at the default, a small and the largest TTL, with short and long payloads. A shape
    /// the dialect cannot express (relay has no broadcast) is skipped. Origins are strangers
    /// 1 to 8: the liveness probe's stranger 9 never collides with a seed in a DUT's cache.
    static func units(probe: any DialectProbe, defaultTTL: Int) -> [[UInt8]] {
        units(of: messages(probe: probe, defaultTTL: defaultTTL), probe: probe)
    }

    static func units(of messages: [ProbeMessage], probe: any DialectProbe) -> [[UInt8]] {
        var units: [[UInt8]] = []
        for message in messages {
            for unit in probe.units(of: message, via: 1) where !units.contains(unit) { units.append(unit) }
        }
        return units
    }

    /// The messages behind the units, plus the dialect's introduction (a blemesh ANNOUNCE: a
    /// control message to mutate from the inside).
    static func messages(probe: any DialectProbe, defaultTTL: Int) -> [ProbeMessage] {
        let payloads: [[UInt8]] = [Array("hi".utf8), Array("meshconform over-the-air seed".utf8), [UInt8](repeating: 0x41, count: 300)]
        let destinations: [Party?] = [probe.relayedDestination, .dut, nil, .stranger(5)]
        var messages: [ProbeMessage] = []
        var origin = 0
        for destination in destinations {
            for ttl in [nil, 1, defaultTTL + 1, 255] {
                for payload in payloads {
                    origin = origin % 8 + 1
                    let spec = MessageSpec(from: .stranger(origin), to: destination, ttl: ttl, payload: payload)
                    guard let message = try? probe.message(spec) else { continue }
                    messages.append(message)
                }
            }
        }
        if let introduction = probe.introduction(of: 1) { messages.append(introduction) }
        return messages
    }
}
