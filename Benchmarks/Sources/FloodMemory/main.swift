import Foundation
import MeshNode
import MeshWire

// Issue 3: "a test floods a node with a million distinct messages and checks memory stays flat".
// One reference node per dialect, three links, fed a million distinct hostile inputs 1 ms apart
// (1000 s of node time, so the 300 s retention windows turn over three times), its timers fired
// as they fall due. Every part of its state must stay under its cap, and neither the state nor
// the process's resident memory may grow between the 20 % mark and the end.
//
//   swift build -c release --package-path Benchmarks --product FloodMemory
//   Benchmarks/.build/release/FloodMemory [--messages N] [--dialect relay|blemesh|bitchat|simple|camp|peat]
//
// Exit status 0: flat; 1: a bound or the flatness check failed (the table says which).

let arguments = CommandLine.arguments
func option(_ name: String) -> String? { arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil } }
let messageCount = Int(option("--messages") ?? "1000000")!
let dialects = option("--dialect").map { [DialectName(rawValue: $0)!] } ?? HostileTraffic.dialects
if let unknown = dialects.first(where: { !HostileTraffic.dialects.contains($0) }) {
    print("FloodMemory has no hostile traffic for \(unknown) yet; it covers \(HostileTraffic.dialects.map(\.rawValue))")
    exit(2)
}
/// Growth of resident memory allowed between the 20 % mark and the end: far below what a leak
/// of even 8 bytes per message would add over 800,000 messages (6.4 MB).
let rssSlack = 4 << 20

var failures: [String] = []
for dialect in dialects {
    var run = FloodRun(dialect: dialect, messages: messageCount)
    let report = run.execute()
    print(report.table)
    failures += report.failures.map { "\(dialect): \($0)" }
}
if failures.isEmpty {
    print("flat: every state part under its cap, no growth after the 20 % mark")
} else {
    for failure in failures { print("FAIL \(failure)") }
    exit(1)
}
