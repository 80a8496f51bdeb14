import MeshWire

/// peat-btle's own reading of a document, for the mutants that reproduce it (peat.md section 7):
/// `lax-counters` (row 3: a counter entry for node 0 is skipped, order is ignored, a repeated
/// node overwrites the earlier entry) and `lax-sections` (row 2: a section whose header or data
/// runs past the end ends parsing silently, keeping what came before). Everything else is as
/// strict as PEAT-W2; the result is a document the node then merges as if it were valid.
struct AppDocumentReading {
    var laxCounters: Bool
    var laxSections: Bool

    init(faults: Set<Fault>) {
        laxCounters = faults.contains(.laxCounters)
        laxSections = faults.contains(.laxSections)
    }

    var isLax: Bool { laxCounters || laxSections }

    /// The document the app would take from `bytes`, or nil where it too refuses them.
    func read(_ bytes: [UInt8]) -> PeatDocument? {
        guard bytes.count <= PeatWire.maxValueSize, let first = bytes.first, !PeatWire.frameMarkers.contains(first) else { return nil }
        var r = ByteReader(bytes[...])
        guard let version = try? r.readU32LE(), let nodeID = try? r.readU32LE(), let count = try? r.readU32LE(),
              count <= PeatWire.maxCounterEntries, r.remaining >= Int(count) * 12 else { return nil }
        var counts: [UInt32: UInt64] = [:]
        var previous: UInt32 = 0
        for _ in 0..<count {
            guard let node = try? r.readU32LE(), let value = try? r.readU64LE() else { return nil }
            if !laxCounters, node == 0 || node <= previous { return nil }
            previous = node
            if node != 0 { counts[node] = value }   // the app: node 0 skipped, a repeat overwrites
        }
        var document = PeatDocument(version: version, nodeID: nodeID,
                                    counters: counts.sorted { $0.key < $1.key }.map { PeatDocument.Counter(node: $0.key, count: $0.value) })
        var last: UInt8 = 0
        while let marker = r.peekU8(), (PeatWire.peripheralMarker...PeatWire.chatMarker).contains(marker), marker > last {
            last = marker
            guard let header = try? r.readBytes(4), header[header.startIndex + 1] == 0 else {
                return laxSections ? document : nil   // a header cut short
            }
            let length = Int(header[header.startIndex + 2]) | Int(header[header.startIndex + 3]) << 8
            guard let data = try? r.readBytes(length) else { return laxSections ? document : nil }   // data past the end
            switch marker {
            case PeatWire.peripheralMarker: guard let p = try? PeatPeripheral(decoding: data) else { return nil }; document.peripheral = p
            case PeatWire.emergencyMarker: guard let e = try? PeatEmergency(decoding: data) else { return nil }; document.emergency = e
            default: document.chat = Array(data)
            }
        }
        return document
    }
}
