import Conformance
import MeshNode
import Testing

/// The habits third-party nodes were found with (a relay re-padded at random, notify-all
/// relaying, no jitter, late fragments rescued, the last piece winning, deliveries forgotten
/// after 10 s, stale packets taken, TTL 1 relayed as 0, no TTL cap, fragments keyed by id alone),
/// each as a mutant with the verdicts it must get: exactly these checks FAIL, each on the rule
/// the habit breaks, and every other check of the dialect PASSes (none FAILs for a false cause).
@Suite struct MutantClassTests {
    struct Expectation: Sendable, CustomStringConvertible {
        var dialect: DialectName
        var faults: [Fault]
        /// The checks that FAIL, with the rule each FAIL names by type (nil: the check's own).
        var fails: [String: String?]
        var description: String { "\(dialect) \(faults.map(\.rawValue).joined(separator: "+"))" }
    }

    static let expectations: [Expectation] = [
        // No relay decodes: where and whether are still judged (PASS), content FAILs BITCHAT-W7.
        Expectation(dialect: .bitchat, faults: [.randomPadding],
                    fails: ["RLY/BV-01": "BITCHAT-W7", "RLY/BV-17": "BITCHAT-W7", "RLY/BV-18": "BITCHAT-W7", "RLY/BV-24": "BITCHAT-W7", "FRG/BV-05": "BITCHAT-W7"]),
        // Notify-all relaying sends the copy back on the ingress too; undecodable, it still counts.
        Expectation(dialect: .bitchat, faults: [.relayToSender, .randomPadding],
                    fails: ["RLY/BV-01": nil, "RLY/BV-03": nil, "RLY/BV-17": "BITCHAT-W7", "RLY/BV-18": "BITCHAT-W7", "RLY/BV-24": nil, "FRG/BV-05": "BITCHAT-W7"]),
        Expectation(dialect: .bitchat, faults: [.relayToSender], fails: ["RLY/BV-01": nil, "RLY/BV-03": nil, "RLY/BV-24": nil, "FRG/BV-05": nil]),
        // Relaying at once is bitchat Android's policy, inside BITCHAT-R6.4's 0-220 ms.
        Expectation(dialect: .bitchat, faults: [.noJitter], fails: [:]),
        Expectation(dialect: .blemesh, faults: [.noJitter], fails: ["RLY/BV-02": nil]),
        // With no delay there is no waiting relay to cancel: DDP/BV-40 FAILs the jitter too.
        Expectation(dialect: .simple, faults: [.noJitter], fails: ["RLY/BV-02": nil, "DDP/BV-40": "SIMPLE-R7"]),
        Expectation(dialect: .bitchat, faults: [.rescueLateFragments], fails: ["FRG/BI-07": nil]),
        Expectation(dialect: .bitchat, faults: [.lastPieceWins], fails: ["FRG/BV-06": nil]),
        Expectation(dialect: .bitchat, faults: [.ignoreFragmentClaim], fails: ["FRG/BI-06": nil]),
        Expectation(dialect: .bitchat, faults: [.shortDeliveryDedup], fails: ["DDP/BV-15": nil]),
        Expectation(dialect: .bitchat, faults: [.acceptStale], fails: ["RLY/BV-23": nil]),
        Expectation(dialect: .bitchat, faults: [.relayTTLOne], fails: ["RLY/BV-04": nil, "RLY/BV-05": nil]),
        Expectation(dialect: .bitchat, faults: [.noTTLCap], fails: ["RLY/BV-17": nil]),
        Expectation(dialect: .bitchat, faults: [.fragmentKeyByID], fails: ["FRG/BV-07": nil]),
        Expectation(dialect: .bitchat, faults: [.refuseNewAssembly], fails: ["FRG/BV-09": nil]),
        Expectation(dialect: .bitchat, faults: [.dropSetOnConflict], fails: ["FRG/BI-08": nil]),
    ]

    @Test(arguments: expectations)
    func failsExactlyTheRulesItBreaks(_ e: Expectation) {
        let runner = Runner(capabilities: .referenceNode(e.dialect), driver: VirtualDriver(faults: Set(e.faults)))
        let results = Runner.select(Catalog.all, dialect: e.dialect).map(runner.run)
        let failed = Dictionary(uniqueKeysWithValues: results.filter { $0.verdict == .fail }.map { ($0.id, $0) })
        #expect(Set(failed.keys) == Set(e.fails.keys), "\(e): FAILs \(failed.keys.sorted())")
        for (id, rule) in e.fails {
            guard let r = failed[id] else { continue }
            #expect(r.failedRule == rule, "\(e) \(id): names \(r.failedRule ?? "its own rules"): \(r.reason ?? "")")
        }
        for r in results where r.verdict != .fail {
            #expect(r.verdict == .pass, "\(e) \(r.id): \(r.verdict) \(r.reason ?? "")")
        }
    }
}
