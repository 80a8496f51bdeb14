import Foundation

/// A self-contained SVG line chart of a sweep: delivery ratio (left axis, 0-100 %) and
/// transmissions per message (right axis) against the swept parameter. No dependencies, so
/// the file opens in any browser and diffs as text.
public enum SweepPlot {
    public static func svg(parameter: String, values: [Double], runs: [SimMetrics], title: String) -> String {
        let width = 640.0, height = 400.0
        let left = 70.0, right = 70.0, top = 50.0, bottom = 60.0
        let plotW = width - left - right, plotH = height - top - bottom
        let xMin = values.min() ?? 0, xMax = values.max() ?? 1
        let xSpan = xMax > xMin ? xMax - xMin : 1
        let txMax = max(1, (runs.map(\.transmissionsPerMessage).max() ?? 1) * 1.1)
        func x(_ v: Double) -> Double { values.count == 1 ? left + plotW / 2 : left + (v - xMin) / xSpan * plotW }
        func yRatio(_ r: Double) -> Double { top + (1 - r) * plotH }
        func yTx(_ t: Double) -> Double { top + (1 - t / txMax) * plotH }
        func f(_ v: Double) -> String { String(format: "%.1f", v) }
        func label(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e9 ? String(Int(v)) : String(format: "%g", v) }
        func escape(_ s: String) -> String {
            s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        }

        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(f(width / 2))" y="24" text-anchor="middle" font-size="14">\(escape(title))</text>
            <rect x="\(f(left))" y="\(f(top))" width="\(f(plotW))" height="\(f(plotH))" fill="none" stroke="#888"/>

            """
        for step in 0...4 {
            let r = Double(step) / 4
            out += "<line x1=\"\(f(left))\" y1=\"\(f(yRatio(r)))\" x2=\"\(f(left + plotW))\" y2=\"\(f(yRatio(r)))\" stroke=\"#eee\"/>\n"
            out += "<text x=\"\(f(left - 6))\" y=\"\(f(yRatio(r) + 4))\" text-anchor=\"end\" fill=\"#1f77b4\">\(Int(r * 100)) %</text>\n"
            out += "<text x=\"\(f(left + plotW + 6))\" y=\"\(f(yRatio(r) + 4))\" fill=\"#d62728\">\(String(format: "%.3g", txMax * r))</text>\n"
        }
        for v in values {
            out += "<text x=\"\(f(x(v)))\" y=\"\(f(top + plotH + 18))\" text-anchor=\"middle\">\(label(v))</text>\n"
        }
        out += "<text x=\"\(f(left + plotW / 2))\" y=\"\(f(height - 16))\" text-anchor=\"middle\">\(escape(parameter))</text>\n"
        out += "<text transform=\"translate(18 \(f(top + plotH / 2))) rotate(-90)\" text-anchor=\"middle\" fill=\"#1f77b4\">delivery ratio</text>\n"
        out += "<text transform=\"translate(\(f(width - 14)) \(f(top + plotH / 2))) rotate(90)\" text-anchor=\"middle\" fill=\"#d62728\">transmissions per message</text>\n"

        let points = zip(values, runs).sorted { $0.0 < $1.0 }
        let ratioPath = points.map { "\(f(x($0.0))),\(f(yRatio($0.1.deliveryRatio)))" }.joined(separator: " ")
        let txPath = points.map { "\(f(x($0.0))),\(f(yTx($0.1.transmissionsPerMessage)))" }.joined(separator: " ")
        out += "<polyline points=\"\(ratioPath)\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\"/>\n"
        out += "<polyline points=\"\(txPath)\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\" stroke-dasharray=\"6 3\"/>\n"
        for (v, run) in points {
            out += "<circle cx=\"\(f(x(v)))\" cy=\"\(f(yRatio(run.deliveryRatio)))\" r=\"3.5\" fill=\"#1f77b4\"/>\n"
            out += "<circle cx=\"\(f(x(v)))\" cy=\"\(f(yTx(run.transmissionsPerMessage)))\" r=\"3.5\" fill=\"#d62728\"/>\n"
        }
        out += "<text x=\"\(f(left + 8))\" y=\"\(f(top + 16))\" fill=\"#1f77b4\">— delivery ratio</text>\n"
        out += "<text x=\"\(f(left + 8))\" y=\"\(f(top + 32))\" fill=\"#d62728\">- - transmissions per message</text>\n"
        out += "</svg>\n"
        return out
    }
}
