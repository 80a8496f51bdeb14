import Foundation
import MeshNode
import MeshWire

/// One check's evidence as a message sequence chart, in inline SVG: a lane per tester link and
/// one for the DUT (and one for its app when the upper tester was used), time downward, an
/// arrow per unit from sender to receiver, its decoded summary on the right and its bytes in
/// the `data-hex` attribute for the page's hover box. Long evidence keeps its first and last
/// units (a FAIL's cause is often at the end) and those the FAIL names, with a row for each
/// stretch left out.
struct SequenceChart {
    enum Lane: Hashable, Comparable {
        case app, dut, link(LinkID)
    }

    enum Item {
        case entry(EvidenceEntry, seen: Bool)
        /// Entries left out between the ones shown.
        case cut(count: Int, from: Duration, to: Duration)
    }

    let items: [Item]
    let lanes: [Lane]
    let total: Int
    let shown: Int

    /// `seen` marks the entries the verdict's `seen` text names (`SeenUnits`); they are kept
    /// even in the middle of long evidence, up to `limit` of them.
    init(_ evidence: [EvidenceEntry], limit: Int, seen: SeenUnits = SeenUnits(nil)) {
        total = evidence.count
        let head = max(1, limit * 3 / 5), tail = max(1, limit - head)
        var keptSeen = 0
        var items: [Item] = []
        var left: [EvidenceEntry] = []
        for (i, e) in evidence.enumerated() {
            let marked = seen.names(e)
            let edge = evidence.count <= head + tail || i < head || i >= evidence.count - tail
            if edge || (marked && keptSeen < limit) {
                if !left.isEmpty { items.append(.cut(count: left.count, from: left.first!.time, to: left.last!.time)) }
                left = []
                if marked && !edge { keptSeen += 1 }
                items.append(.entry(e, seen: marked))
            } else {
                left.append(e)
            }
        }
        self.items = items
        shown = items.reduce(0) { n, item in if case .entry = item { n + 1 } else { n } }
        var lanes: Set<Lane> = [.dut]
        for case .entry(let e, _) in items {
            if let (a, b) = Self.ends(e) { lanes.insert(a); lanes.insert(b) }
        }
        self.lanes = lanes.sorted()
    }

    /// Sender and receiver lanes of an entry; nil for a tester note or a DUT log line.
    static func ends(_ e: EvidenceEntry) -> (from: Lane, to: Lane)? {
        let other: Lane
        if let link = e.link {
            other = .link(link)
        } else if e.direction == .note || isLog(e) {
            return nil
        } else {
            other = .app
        }
        switch e.direction {
        case .toDUT: return (other, .dut)
        case .fromDUT: return (.dut, other)
        case .note: return nil
        }
    }

    /// A line the DUT wrote to its log (CheckContext records them as `log: ...`, with no link).
    static func isLog(_ e: EvidenceEntry) -> Bool { e.direction == .fromDUT && e.link == nil && e.summary.hasPrefix("log: ") }

    // MARK: drawing

    static let timeWidth = 86.0, header = 34.0, row = 20.0, gap = 16.0, charWidth = 7.2, maxChars = 118
    /// Consecutive units this far apart get a break in the lifelines, so time visibly jumps.
    static let jump: Duration = .milliseconds(500)

    var laneWidth: Double { lanes.count > 6 ? 74 : 96 }

    func x(_ lane: Lane) -> Double {
        Self.timeWidth + laneWidth * (Double(lanes.firstIndex(of: lane) ?? 0) + 0.5)
    }

    var svg: String {
        let textX = Self.timeWidth + laneWidth * Double(lanes.count) + 10
        let longest = items.map { item -> Int in
            switch item {
            case .entry(let e, _): min(e.summary.count, Self.maxChars)
            case .cut(let count, let from, let to): Self.cutText(count, from, to).count
            }
        }.max() ?? 0
        let width = (textX + Double(longest) * Self.charWidth + 16).rounded(.up)

        var rows = ""
        var breaks = ""
        var y = Self.header
        var previous: Duration?
        for (index, item) in items.enumerated() {
            switch item {
            case .entry(let e, let seen):
                if let p = previous, e.time - p >= Self.jump {
                    breaks += "<g class=\"jump\"><rect x=\"\(Self.n(Self.timeWidth))\" y=\"\(Self.n(y + 2))\" width=\"\(Self.n(textX - Self.timeWidth - 4))\" height=\"\(Self.n(Self.gap - 4))\"/>"
                    breaks += "<text x=\"\(Self.n(Self.timeWidth - 8))\" y=\"\(Self.n(y + Self.gap - 5))\" text-anchor=\"end\">+\(Self.span(e.time - p))</text></g>"
                    y += Self.gap
                }
                rows += unit(e, seen: seen, y: y, odd: index % 2 == 1, width: width, textX: textX)
                previous = e.time
                y += Self.row
            case .cut(let count, let from, let to):
                breaks += "<g class=\"cut\"><rect x=\"0\" y=\"\(Self.n(y))\" width=\"\(Self.n(width))\" height=\"\(Self.n(Self.row + 8))\"/>"
                breaks += "<text x=\"\(Self.n(textX))\" y=\"\(Self.n(y + 18))\">\(Self.cutText(count, from, to))</text></g>"
                previous = nil
                y += Self.row + 8
            }
        }
        let height = y + 6
        var svg = "<figure class=\"chart\"><figcaption>\(caption)</figcaption>\n"
        svg += "<svg class=\"msc\" xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Self.n(width))\" height=\"\(Self.n(height))\" viewBox=\"0 0 \(Self.n(width)) \(Self.n(height))\" role=\"img\" aria-label=\"message sequence chart\">\n"
        for lane in lanes {
            let cx = x(lane)
            svg += "<line class=\"life l-\(Self.cls(lane))\" x1=\"\(Self.n(cx))\" y1=\"\(Self.n(Self.header - 6))\" x2=\"\(Self.n(cx))\" y2=\"\(Self.n(height))\"/>"
        }
        svg += breaks
        for lane in lanes {
            let cx = x(lane), w = laneWidth - 18
            svg += "<g class=\"lane l-\(Self.cls(lane))\"><rect x=\"\(Self.n(cx - w / 2))\" y=\"4\" width=\"\(Self.n(w))\" height=\"22\" rx=\"5\"/>"
            svg += "<text x=\"\(Self.n(cx))\" y=\"19\" text-anchor=\"middle\">\(laneTitle(lane))</text></g>"
        }
        svg += "<text class=\"colhead\" x=\"\(Self.n(Self.timeWidth - 8))\" y=\"19\" text-anchor=\"end\">time</text>"
        svg += "<text class=\"colhead\" x=\"\(Self.n(textX))\" y=\"19\">unit, as the tester decoded it</text>\n"
        return svg + rows + "</svg></figure>\n"
    }

    /// `94` or `99.5`: SVG coordinates without trailing zeros.
    static func n(_ v: Double) -> String {
        v == v.rounded() ? String(Int(v)) : String(format: "%.1f", v)
    }

    static func cutText(_ count: Int, _ from: Duration, _ to: Duration) -> String {
        "\(count) entries left out (\(time(from)) to \(time(to))); the JSON report has them all"
    }

    var caption: String {
        var units = 0, toDUT = 0, fromDUT = 0
        for case .entry(let e, _) in items where e.bytes != nil {
            units += 1
            if e.direction == .toDUT { toDUT += 1 } else if e.direction == .fromDUT { fromDUT += 1 }
        }
        var text = "Sequence chart: \(total) entries"
        if total > shown { text += ", \(shown) shown (the first, the last and those the verdict names)" }
        text += "; of those shown, \(units) units (\(toDUT) to the DUT, \(fromDUT) from it)"
        let named = items.filter { if case .entry(_, true) = $0 { true } else { false } }.count
        return named == 0 ? text : text + "; ▶ marks the \(named) the verdict names under seen"
    }

    /// One row: the time, an arrow from sender to receiver (or a mark for a note), the summary.
    func unit(_ e: EvidenceEntry, seen: Bool, y: Double, odd: Bool, width: Double, textX: Double) -> String {
        let mid = y + Self.row / 2
        let kind: String
        var mark = ""
        if let (from, to) = Self.ends(e) {
            kind = e.bytes == nil ? (from == .app || to == .app ? "app" : "event") : (e.direction == .toDUT ? "to" : "from")
            let x1 = x(from), x2 = x(to)
            let dir = x2 > x1 ? 1.0 : -1.0
            let tip = x2 - dir * 2
            mark = "<line class=\"arrow\" x1=\"\(Self.n(x1))\" y1=\"\(Self.n(mid))\" x2=\"\(Self.n(tip - dir * 6))\" y2=\"\(Self.n(mid))\"/>"
            mark += "<path class=\"head\" d=\"M\(Self.n(tip)) \(Self.n(mid)) L\(Self.n(tip - dir * 8)) \(Self.n(mid - 4.5)) L\(Self.n(tip - dir * 8)) \(Self.n(mid + 4.5)) Z\"/>"
        } else if e.direction == .note {
            kind = "note"
            mark = "<rect class=\"band\" x=\"\(Self.n(Self.timeWidth))\" y=\"\(Self.n(y + 1))\" width=\"\(Self.n(width - Self.timeWidth))\" height=\"\(Self.n(Self.row - 2))\"/>"
        } else {
            kind = "log"
            mark = "<circle class=\"dot\" cx=\"\(Self.n(x(.dut)))\" cy=\"\(Self.n(mid))\" r=\"4\"/>"
        }
        let summary = e.summary.count > Self.maxChars ? String(e.summary.prefix(Self.maxChars - 1)) + "…" : e.summary
        if seen { mark += "<path class=\"seen-mark\" d=\"M4 \(Self.n(mid - 6)) L13 \(Self.n(mid)) L4 \(Self.n(mid + 6)) Z\"/>" }
        var g = "<g class=\"u \(kind)\(seen ? " seen" : "")\" data-t=\"\(Self.time(e.time))\" data-d=\"\(Markup.escape(route(e)))\""
        if summary != e.summary { g += " data-sum=\"\(Markup.escape(String(e.summary.prefix(4000))))\"" }
        if let bytes = e.bytes { g += " data-hex=\"\(Hex.encode(bytes.prefix(4096)))\" data-n=\"\(bytes.count)\"" }
        g += "><rect class=\"hit\(odd ? " odd" : "")\" x=\"0\" y=\"\(Self.n(y))\" width=\"\(Self.n(width))\" height=\"\(Self.n(Self.row))\"/>"
        g += "<text class=\"t\" x=\"\(Self.n(Self.timeWidth - 8))\" y=\"\(Self.n(mid + 4))\" text-anchor=\"end\">\(Self.time(e.time))</text>"
        g += mark
        g += "<text class=\"s\" x=\"\(Self.n(textX))\" y=\"\(Self.n(mid + 4))\">\(Markup.escape(summary))</text></g>\n"
        return g
    }

    func route(_ e: EvidenceEntry) -> String {
        guard let (from, to) = Self.ends(e) else { return e.direction == .note ? "tester note" : "DUT log" }
        return "\(Self.laneName(from)) → \(Self.laneName(to))"
    }

    static func laneName(_ lane: Lane) -> String {
        switch lane {
        case .app: "DUT app (upper tester)"
        case .dut: "DUT"
        case .link(let l): "tester link \(l)"
        }
    }

    /// The lane's heading; `L1` instead of `tester L1` when lanes are narrow.
    func laneTitle(_ lane: Lane) -> String {
        switch lane {
        case .app: "app"
        case .dut: "DUT"
        case .link(let l): lanes.count > 6 ? l.description : "tester \(l)"
        }
    }

    static func cls(_ lane: Lane) -> String {
        switch lane {
        case .app: "app"
        case .dut: "dut"
        case .link: "link"
        }
    }

    /// `35.2 ms`, `2.000 s`, `290.1 s`: the time since the check started.
    static func milliseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }

    static func time(_ d: Duration) -> String {
        let ms = milliseconds(d)
        if ms < 10_000 { return String(format: "%.1f ms", ms) }
        return String(format: ms < 100_000 ? "%.3f s" : "%.1f s", ms / 1000)
    }

    static func span(_ d: Duration) -> String {
        let s = milliseconds(d) / 1000
        return s < 10 ? String(format: "%.2f s", s) : String(format: "%.0f s", s)
    }
}

/// The entries a FAIL's `seen` text names, so the chart can point at them. Checks write what
/// they saw with CheckContext.summary, e.g. `message ttl 7 on L2 at 219.2ms; delivery of 42 at
/// 0.0ms`: per item a link (none for the app) and the time to 0.1 ms. An entry from the DUT
/// on that link at that time is one of them. Text in another form names nothing.
struct SeenUnits {
    private var keys: Set<String> = []

    init(_ seen: String?) {
        for item in (seen ?? "").split(separator: ";") {
            let words = item.split(separator: " ")
            guard words.count >= 2, words[words.count - 2] == "at", words.last!.hasSuffix("ms"),
                  Double(words.last!.dropLast(2)) != nil else { continue }
            let link = words.indices.dropFirst().first { i in
                (words[i - 1] == "on" || words[i - 1] == "dropped") && words[i].hasPrefix("L")
                    && words[i].count > 1 && words[i].dropFirst().allSatisfy(\.isNumber)
            }.map { String(words[$0]) }
            keys.insert(Self.key(link, String(words.last!.dropLast(2))))
        }
    }

    func names(_ e: EvidenceEntry) -> Bool {
        guard !keys.isEmpty, e.direction == .fromDUT, !SequenceChart.isLog(e) else { return false }
        return keys.contains(Self.key(e.link?.description, String(format: "%.1f", SequenceChart.milliseconds(e.time))))
    }

    private static func key(_ link: String?, _ time: String) -> String { "\(link ?? "app")@\(time)" }
}
