import Foundation

/// Why an edge-list file could not be read; `description` says where and how to fix it.
public struct EdgeListError: Error, Equatable, CustomStringConvertible {
    public var line: Int
    public var reason: String
    public var description: String { "line \(line): \(reason)" }
}

extension Topology {
    /// Parses an edge list: one edge per line as `a b`, node numbers from 0, optionally followed
    /// by `loss=P latency=MS jitter=MS mtu=BYTES` for that edge (unset keys take `profile`).
    /// `#` starts a comment; blank lines are skipped. The node count is the largest number + 1,
    /// or `nodes N` on a line of its own (for isolated nodes at the end).
    public static func edgeList(_ text: String, profile: LinkProfile = .default) throws(EdgeListError) -> Topology {
        var edges: [Edge] = []
        var declared: Int?
        var largest = -1
        var seen = Set<[Int]>()
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNumber = offset + 1
            let content = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let fields = content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            guard !fields.isEmpty else { continue }
            if fields[0] == "nodes" {
                guard fields.count == 2, let n = Int(fields[1]), n >= 0 else {
                    throw EdgeListError(line: lineNumber, reason: "expected `nodes N` with N a count")
                }
                declared = n
                continue
            }
            guard fields.count >= 2, let a = Int(fields[0]), let b = Int(fields[1]) else {
                throw EdgeListError(line: lineNumber, reason: "expected `a b` (two node numbers), got \"\(content.trimmingCharacters(in: .whitespaces))\"")
            }
            guard a >= 0, b >= 0 else { throw EdgeListError(line: lineNumber, reason: "node numbers start at 0") }
            guard a != b else { throw EdgeListError(line: lineNumber, reason: "self-loop \(a) \(b): a node is not its own neighbour") }
            guard seen.insert([min(a, b), max(a, b)]).inserted else {
                throw EdgeListError(line: lineNumber, reason: "edge \(a) \(b) listed twice")
            }
            var edgeProfile = profile
            for field in fields.dropFirst(2) {
                let parts = field.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, let value = Double(parts[1]), value >= 0 else {
                    throw EdgeListError(line: lineNumber, reason: "expected key=value (loss, latency, jitter, mtu), got \"\(field)\"")
                }
                switch parts[0] {
                case "loss":
                    guard value <= 1 else { throw EdgeListError(line: lineNumber, reason: "loss is a probability in 0...1") }
                    edgeProfile.loss = value
                case "latency": edgeProfile.latency = .nanoseconds(Int64(value * 1e6))
                case "jitter": edgeProfile.jitter = .nanoseconds(Int64(value * 1e6))
                case "mtu": edgeProfile.mtu = Int(value)
                default: throw EdgeListError(line: lineNumber, reason: "unknown key \"\(parts[0])\"; known: loss, latency (ms), jitter (ms), mtu (bytes)")
                }
            }
            largest = max(largest, a, b)
            edges.append(Edge(a, b, profile: edgeProfile))
        }
        let count = max(largest + 1, declared ?? 0)
        if let declared, declared < largest + 1 {
            throw EdgeListError(line: 0, reason: "`nodes \(declared)` but an edge names node \(largest)")
        }
        return Topology(name: "file", nodeCount: count, edges: edges)
    }

    public static func edgeList(contentsOf path: String, profile: LinkProfile = .default) throws -> Topology {
        try edgeList(String(contentsOfFile: path, encoding: .utf8), profile: profile)
    }
}
