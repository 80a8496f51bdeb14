import MeshWire

/// The machine report with the full evidence (every packet in hex, with its time), for CI
/// artefacts and for tools that diff runs. Keys are sorted, so equal runs give equal bytes.
public enum JSONReport {
    public static func render(_ report: RunReport) -> [UInt8] {
        JSONWriter.write(value(report), options: .human)
    }

    static func value(_ report: RunReport) -> JSONValue {
        .object([
            ("tool", .string("meshconform")),
            ("dut", .string(report.dut)),
            ("seed", .integer(report.seed)),
            // A string: run bases use all 64 bits, past what a JSON number carries exactly.
            ("runBase", .string(String(report.runBase))),
            ("wallSeconds", .double(report.wallSeconds)),
            ("exitStatus", .integer(report.exitStatus)),
            ("summary", .object(Verdict.allCases.map { ($0.rawValue, .integer(report.count($0))) })),
            ("testerLinks", .array(report.testerLinks.map { t in
                .object([("adapter", .string(t.adapter)), ("identities", .integer(t.identities)), ("links", .integer(t.links)),
                         ("note", .string(t.note))])
            })),
            ("dialects", .array(report.sections.map { s in
                .object([
                    ("dialect", .string(s.capabilities.dialect.rawValue)),
                    ("capabilities", capabilities(s.capabilities)),
                    ("results", .array(s.results.map(result))),
                ] + (s.testerPath.map { [("testerPath", JSONValue.string($0))] } ?? []))
            })),
        ])
    }

    static func result(_ r: CheckResult) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("id", .string(r.id)), ("purpose", .string(r.purpose)), ("verdict", .string(r.verdict.rawValue)),
            ("wallSeconds", .double(r.wallSeconds)),
            ("evidence", .array(r.evidence.map(entry))),
        ]
        if let v = r.reason { members.append(("reason", .string(v))) }
        if let v = r.expected { members.append(("expected", .string(v))) }
        if let v = r.seen { members.append(("seen", .string(v))) }
        if let v = r.inconclusiveCause { members.append(("inconclusiveCause", .string(v.rawValue))) }
        if let v = r.finding { members.append(("finding", .string(v.rawValue))) }
        if let v = r.failedRule { members.append(("failedRule", .string(v))) }
        return .object(members)
    }

    static func entry(_ e: EvidenceEntry) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("timeMs", .double(Double(e.time.components.seconds) * 1000 + Double(e.time.components.attoseconds) / 1e15)),
            ("direction", .string(e.direction.name)),
            ("summary", .string(e.summary)),
        ]
        if let link = e.link { members.append(("link", .integer(link.raw))) }
        if let bytes = e.bytes { members.append(("hex", .string(Hex.encode(bytes)))) }
        return .object(members)
    }

    static func capabilities(_ c: Capabilities) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("relay", .bool(c.relay)), ("acks", .bool(c.acks)), ("beacons", .bool(c.beacons)), ("routing", .bool(c.routing)),
            ("upperTester", .bool(c.upperTester)), ("maxLinks", .integer(c.maxLinks)),
            ("timingSlackMs", .integer(c.timingSlackMs)), ("checkBudgetSeconds", .double(c.checkBudgetSeconds)),
        ]
        if let v = c.address { members.append(("address", .string(v))) }
        if c.keepsOwnIdentity { members.append(("keepsOwnIdentity", .bool(true))) }
        if !c.takesEpoch { members.append(("takesEpoch", .bool(false))) }
        if let v = c.publicKey { members.append(("publicKey", .string(v))) }
        if let v = c.dedupCapacity { members.append(("dedupCapacity", .integer(v))) }
        if c.linkMaxUnit { members.append(("linkMaxUnit", .bool(true))) }
        return .object(members)
    }
}

extension EvidenceEntry.Direction {
    /// `toDUT`, `fromDUT`, `note` in the JSON report.
    var name: String {
        switch self {
        case .toDUT: "toDUT"
        case .fromDUT: "fromDUT"
        case .note: "note"
        }
    }
}
