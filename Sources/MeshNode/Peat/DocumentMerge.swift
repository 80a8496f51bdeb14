import MeshWire

/// How a peat node folds a received document into its own (PEAT-R5, R6): a state-based CRDT,
/// so merging is commutative, idempotent and never loses a fact another node already has.
/// Pure: the engine decides what a change costs (version, re-send); this only says whether
/// one happened. The two switches are the mutants that break R6.
struct DocumentMerge {
    /// Mutant `emergency-overwrite`: the same emergency's ack map is taken as received.
    var overwriteAcks = false
    /// Mutant `older-emergency-replaces`: a different emergency replaces the held one whatever its time.
    var olderReplaces = false

    init(faults: Set<Fault>) {
        overwriteAcks = faults.contains(.emergencyOverwrite)
        olderReplaces = faults.contains(.olderEmergencyReplaces)
    }

    /// Merges `received` into `mine`; true when `mine` changed. Version and node id are the
    /// receiver's own business and are left alone.
    func merge(_ received: PeatDocument, into mine: inout PeatDocument) -> Bool {
        var changed = false
        // PEAT-R5: counters by per-node maximum.
        var counts = Dictionary(uniqueKeysWithValues: mine.counters.map { ($0.node, $0.count) })
        for c in received.counters {
            if let have = counts[c.node], have >= c.count { continue }
            counts[c.node] = c.count
            changed = true
        }
        if changed { mine.counters = counts.sorted { $0.key < $1.key }.map { PeatDocument.Counter(node: $0.key, count: $0.value) } }
        // PEAT-R5: the peripheral when the received one is newer.
        if let theirs = received.peripheral, mine.peripheral.map({ theirs.timestamp > $0.timestamp }) ?? true {
            mine.peripheral = theirs
            changed = true
        }
        // PEAT-R6.1, R6.2: the emergency.
        if let theirs = received.emergency {
            if var held = mine.emergency {
                if merge(theirs, into: &held) {
                    mine.emergency = held
                    changed = true
                }
            } else {
                mine.emergency = theirs
                changed = true
            }
        }
        return changed
    }

    private func merge(_ theirs: PeatEmergency, into held: inout PeatEmergency) -> Bool {
        let same = theirs.source == held.source && theirs.timestamp == held.timestamp
        if same, overwriteAcks {
            guard held != theirs else { return false }
            held = theirs
            return true
        }
        if !same, olderReplaces {
            held = theirs
            return true
        }
        return held.merge(theirs)
    }

    /// PEAT-R6.3: `node` acknowledges the held emergency; true when that changed the map.
    static func acknowledge(_ node: UInt32, in document: inout PeatDocument) -> Bool {
        guard var emergency = document.emergency else { return false }
        // One copy out and one back in (the event keeps its ack map as bytes).
        var acks = emergency.acks
        if let i = acks.firstIndex(where: { $0.node == node }) {
            guard !acks[i].acked else { return false }
            acks[i].acked = true
        } else {
            acks.append((node, true))
            acks.sort { $0.node < $1.node }
        }
        emergency.acks = acks
        document.emergency = emergency
        return true
    }
}
