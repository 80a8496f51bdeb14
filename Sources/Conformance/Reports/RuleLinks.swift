import MeshNode

/// Where each dialect-page requirement is defined, so a report can link a check's rules to
/// the section of docs/dialects/<dialect>.md that states them. Requirements are bold
/// paragraphs, which get no anchor of their own, so the link goes to the heading above.
/// RuleLinksTests re-reads the pages and fails when this table has drifted from them.
public enum RuleLinks {
    public struct Target: Equatable, Sendable {
        public var dialect: DialectName
        /// The heading's text as the page writes it, e.g. "3. Node rules".
        public var heading: String
        /// `docs/dialects/relay.md#3-node-rules` relative to the dialect pages' folder.
        public var path: String { "\(dialect.rawValue).md#\(RuleLinks.anchor(heading))" }
        /// The heading without markdown backticks, for tooltips.
        public var title: String { heading.replacingOccurrences(of: "`", with: "") }
    }

    /// `RELAY-R5.3` is defined in RELAY-R5's paragraph: the section above it.
    public static func target(of rule: String) -> Target? {
        let base = rule.split(separator: ".").first.map(String.init) ?? rule
        guard let heading = headings[base],
              let dialect = DialectName(rawValue: String(base.prefix { $0 != "-" }).lowercased()) else { return nil }
        return Target(dialect: dialect, heading: heading)
    }

    /// GitHub's heading anchor: lower case, punctuation other than `-` and `_` dropped,
    /// spaces to hyphens ("2.1 `relay.packet`" is `21-relaypacket`).
    public static func anchor(_ heading: String) -> String {
        String(heading.lowercased().compactMap { c -> Character? in
            if c == " " { return "-" }
            return c.isLetter || c.isNumber || c == "-" || c == "_" ? c : nil
        })
    }

    /// The requirements a dialect page defines (`**RELAY-R3 ...` paragraphs), each with the
    /// heading it sits under, in page order: what the table below is checked against.
    public static func definitions(inPage markdown: String) -> [(rule: String, heading: String)] {
        var heading = ""
        var found: [(rule: String, heading: String)] = []
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("#") {
                heading = String(line.drop { $0 == "#" }.drop { $0 == " " })
            } else if line.hasPrefix("**") {
                let id = line.dropFirst(2).prefix { $0.isUppercase || $0.isNumber || $0 == "-" }
                let parts = id.split(separator: "-")
                guard parts.count == 2, let kind = parts[1].first, "RWG".contains(kind), parts[1].count > 1,
                      parts[1].dropFirst().allSatisfy(\.isNumber),
                      !found.contains(where: { $0.rule == String(id) }) else { continue }
                found.append((String(id), heading))
            }
        }
        return found
    }

    /// Requirement id (without sub-item) to the heading of the section that defines it.
    static let headings: [String: String] = [
        "RELAY-W1": "2.1 `relay.packet`",
        "RELAY-W2": "2.2 `relay.frame-header` (JSON)",
        "RELAY-W3": "2.3 `relay.ack`",
        "RELAY-W4": "2.4 `relay.beacon` (JSON)",
        "RELAY-W5": "2.5 `relay.sealed` (frame body)",
        "RELAY-W6": "2.6 JSON conventions (frame header and beacon)",
        "RELAY-R1": "3. Node rules",
        "RELAY-R2": "3. Node rules",
        "RELAY-R3": "3. Node rules",
        "RELAY-R4": "3. Node rules",
        "RELAY-R5": "3. Node rules",
        "RELAY-R6": "3. Node rules",
        "RELAY-R7": "3. Node rules",
        "RELAY-R8": "3. Node rules",
        "RELAY-R9": "3. Node rules",
        "RELAY-R10": "3. Node rules",
        "RELAY-R11": "3. Node rules",
        "RELAY-R12": "3. Node rules",
        "RELAY-G1": "5. GATT binding (meshconform's definition)",
        "RELAY-G2": "5. GATT binding (meshconform's definition)",
        "RELAY-G3": "5. GATT binding (meshconform's definition)",
        "RELAY-G4": "5. GATT binding (meshconform's definition)",
        "BLEMESH-W1": "2.1 `blemesh.chunk` (one GATT value)",
        "BLEMESH-W2": "2.2 `blemesh.envelope`",
        "BLEMESH-W3": "2.3 `blemesh.control`",
        "BLEMESH-W4": "2.4 Inner control messages",
        "BLEMESH-W5": "2.6 JSON conventions",
        "BLEMESH-R1": "3. Node rules",
        "BLEMESH-R2": "3. Node rules",
        "BLEMESH-R3": "3. Node rules",
        "BLEMESH-R4": "3. Node rules",
        "BLEMESH-R5": "3. Node rules",
        "BLEMESH-R6": "3. Node rules",
        "BLEMESH-R7": "3. Node rules",
        "BLEMESH-R8": "3. Node rules",
        "BLEMESH-R9": "3. Node rules",
        "BLEMESH-R10": "3. Node rules",
        "BLEMESH-R11": "3. Node rules",
        "BLEMESH-R12": "3. Node rules",
        "BLEMESH-R13": "3. Node rules",
        "BLEMESH-R14": "3. Node rules",
        "BLEMESH-R15": "3. Node rules",
        "BLEMESH-R16": "3. Node rules",
        "BLEMESH-R17": "3. Node rules",
        "BLEMESH-R18": "3. Node rules",
        "BLEMESH-R19": "3. Node rules",
        "BLEMESH-G1": "4. GATT binding (the app's)",
        "BLEMESH-G2": "4. GATT binding (the app's)",
        "BLEMESH-G3": "4. GATT binding (the app's)",
        "BITCHAT-W1": "2.1 `bitchat.packet`",
        "BITCHAT-W2": "2.1 `bitchat.packet`",
        "BITCHAT-W3": "2.1 `bitchat.packet`",
        "BITCHAT-W4": "2.1 `bitchat.packet`",
        "BITCHAT-W5": "2.1 `bitchat.packet`",
        "BITCHAT-W6": "2.1 `bitchat.packet`",
        "BITCHAT-W7": "2.1 `bitchat.packet`",
        "BITCHAT-W8": "2.2 `bitchat.fragment` (the payload of a type `0x20` packet)",
        "BITCHAT-R1": "3. Node rules",
        "BITCHAT-R2": "3. Node rules",
        "BITCHAT-R3": "3. Node rules",
        "BITCHAT-R4": "3. Node rules",
        "BITCHAT-R5": "3. Node rules",
        "BITCHAT-R6": "3. Node rules",
        "BITCHAT-R7": "3. Node rules",
        "BITCHAT-R8": "3. Node rules",
        "BITCHAT-R9": "3. Node rules",
        "BITCHAT-R10": "3. Node rules",
        "BITCHAT-R11": "3. Node rules",
        "BITCHAT-R12": "3. Node rules",
        "BITCHAT-G1": "5. GATT binding (the app's)",
        "BITCHAT-G2": "5. GATT binding (the app's)",
        "BITCHAT-G3": "5. GATT binding (the app's)",
        "SIMPLE-W1": "2.1 `simple.message` (JSON)",
        "SIMPLE-W2": "2.1 `simple.message` (JSON)",
        "SIMPLE-W3": "2.1 `simple.message` (JSON)",
        "SIMPLE-R1": "3. Node rules",
        "SIMPLE-R2": "3. Node rules",
        "SIMPLE-R3": "3. Node rules",
        "SIMPLE-R4": "3. Node rules",
        "SIMPLE-R5": "3. Node rules",
        "SIMPLE-R6": "3. Node rules",
        "SIMPLE-R7": "3. Node rules",
        "SIMPLE-R8": "3. Node rules",
        "SIMPLE-R9": "3. Node rules",
        "SIMPLE-R10": "3. Node rules",
        "SIMPLE-G1": "5. GATT binding (meshconform's definition)",
        "SIMPLE-G2": "5. GATT binding (meshconform's definition)",
        "SIMPLE-G3": "5. GATT binding (meshconform's definition)",
        "CAMP-W1": "2.1 `camp.message` (BLEMessage)",
        "CAMP-W2": "2.1 `camp.message` (BLEMessage)",
        "CAMP-W3": "2.1 `camp.message` (BLEMessage)",
        "CAMP-W4": "2.1 `camp.message` (BLEMessage)",
        "CAMP-W5": "2.2 `camp.protocol` (CampProtocolMessage)",
        "CAMP-R1": "3. Node rules",
        "CAMP-R2": "3. Node rules",
        "CAMP-R3": "3. Node rules",
        "CAMP-R4": "3. Node rules",
        "CAMP-R5": "3. Node rules",
        "CAMP-R6": "3. Node rules",
        "CAMP-R7": "3. Node rules",
        "CAMP-R8": "3. Node rules",
        "CAMP-G1": "4. GATT binding (meshconform's)",
        "CAMP-G2": "4. GATT binding (meshconform's)",
        "PEAT-W1": "2. Wire formats",
        "PEAT-W2": "2.1 `peat.document`",
        "PEAT-W3": "2.2 `peat.peripheral` (section `0xAB`)",
        "PEAT-W4": "2.3 `peat.emergency` (section `0xAC`)",
        "PEAT-W5": "2.4 `peat.relay-envelope` (`0xB1`)",
        "PEAT-W6": "2.5 `peat.encrypted` (`0xAE`)",
        "PEAT-W7": "2.6 `peat.key-exchange` (`0xB0`)",
        "PEAT-W8": "2.7 `peat.peer-e2ee` (`0xAF`)",
        "PEAT-W9": "2.8 `peat.device-name`",
        "PEAT-R1": "3. Node rules",
        "PEAT-R2": "3. Node rules",
        "PEAT-R3": "3. Node rules",
        "PEAT-R4": "3. Node rules",
        "PEAT-R5": "3. Node rules",
        "PEAT-R6": "3. Node rules",
        "PEAT-R7": "3. Node rules",
        "PEAT-R8": "3. Node rules",
        "PEAT-G1": "5. GATT binding",
        "PEAT-G2": "5. GATT binding",
        "PEAT-G3": "5. GATT binding",
        "PEAT-G4": "5. GATT binding",
    ]
}
