import Foundation
import MeshNode
import MeshSim

// The simulator's per-event cost (issue 16): docs/performance.md's 10,000-node relay mesh with
// its first beacon round, the scenario of
//   meshconform sim --dialect relay --topology geometric --nodes 10000 --messages 100 \
//       --interval 1 --settle 2 --seed 1
// built the way that command builds it, so it can be profiled and rebuilt without the CLI.
//
//   swift build -c release --package-path Benchmarks --product SimBeaconRound
//   Benchmarks/.build/release/SimBeaconRound [--nodes N] [--settle S] [--expect METRICS.json] [--write-json OUT.json] [--malloc-info OUT.xml]
//
// --expect: a `meshconform sim --json` run of the same scenario (from any build): exit status 1
// unless every count of this run equals it (timing fields aside). Same seed, same counts.

let arguments = CommandLine.arguments
func option(_ name: String) -> String? { arguments.firstIndex(of: name).map { arguments[$0 + 1] } }
let nodes = Int(option("--nodes") ?? "10000")!
let settle = Double(option("--settle") ?? "2")!
let seed: UInt64 = 1

let profile = LinkProfile(loss: 0, latency: .milliseconds(10), jitter: .milliseconds(5), mtu: 512)
let mesh = Topology.geometric(nodes, radius: Topology.radius(forAverageDegree: 8, nodes: nodes), seed: seed, profile: profile)
let workload = Workload.random(count: 100, nodes: nodes, mode: .unicast, interval: .milliseconds(1), payloadSize: 32, seed: seed)
let config = SimConfig(topology: mesh, workload: workload, seed: seed, settle: .nanoseconds(Int64(settle * 1e9)))
let simulator = Simulator(config: config, dialect: .relay, policy: .dialect)
var metrics = simulator.run()
if let path = option("--malloc-info") {
    // glibc's heap at the end of the round, the nodes still alive: its size, and the free
    // chunks by size, as `malloc_info` writes them (XML).
    // Through `dlsym`: <malloc.h> is not part of the Glibc module.
    typealias MallocInfo = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32
    guard let symbol = dlsym(nil, "malloc_info"), let file = fopen(path, "w") else {
        print("--malloc-info \(path): glibc's malloc_info or the file is not available")
        exit(2)
    }
    _ = unsafeBitCast(symbol, to: MallocInfo.self)(0, file)
    fclose(file)
}
withExtendedLifetime(simulator) {}
metrics.label = "relay dialect geometric"
print(metrics.summary)

if let path = option("--write-json") {
    // The metrics as `meshconform sim --json` writes them: a `--expect` file for later builds.
    FileManager.default.createFile(atPath: path, contents: Data(metrics.json(includeTiming: true).utf8))
}

if let expected = option("--expect") {
    guard let data = FileManager.default.contents(atPath: expected),
          var baseline = try? JSONDecoder().decode(SimMetrics.self, from: data) else {
        print("--expect \(expected): not a `meshconform sim --json` file")
        exit(2)
    }
    baseline.label = metrics.label
    let ours = metrics.json(includeTiming: false), theirs = baseline.json(includeTiming: false)
    guard ours == theirs else {
        let differing = zip(ours.split(separator: "\n"), theirs.split(separator: "\n")).filter { $0 != $1 }
        print("counts differ from \(expected):")
        for (a, b) in differing { print("  this run \(a.trimmingCharacters(in: .whitespaces)) / expected \(b.trimmingCharacters(in: .whitespaces))") }
        exit(1)
    }
    print("counts equal to \(expected)")
}
