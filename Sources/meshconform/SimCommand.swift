import ArgumentParser
import Foundation
import MeshNode
import MeshSim

struct SimCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sim",
        abstract: "Run reference nodes of a dialect on a simulated mesh and measure delivery and cost.",
        discussion: """
            Topologies: line, ring, grid, geometric (n nodes in the unit square; --radius R, or \
            --degree K for an expected average degree, default 8), or file:PATH (an edge list: \
            lines "a b [loss=P latency=MS jitter=MS mtu=BYTES]", # comments). \
            A sweep reruns the same scenario for each value: --sweep loss=0,0.1,0.2 or \
            --sweep nodes=10,20,50 (also degree=, radius=, mtu=). Metric definitions: docs/simulation.md \
            and SimMetrics.swift. Example: meshconform sim --dialect relay --topology geometric --nodes 200 \
            --messages 20 --policy probabilistic --sweep loss=0,0.1,0.2,0.3 --svg loss.svg
            """)

    @Option(help: "Dialect of every node: \(DialectName.allCases.map(\.rawValue).joined(separator: ", ")).")
    var dialect: String

    @Option(help: "line, ring, grid, geometric, or file:PATH (edge list).")
    var topology: String

    @Option(help: "Number of nodes (ignored for file:PATH).")
    var nodes: Int = 20

    @Option(help: "Messages injected, from random origins.")
    var messages: Int = 10

    @Option(help: "broadcast, or unicast to a random destination (default: broadcast where the dialect has one; relay has none).")
    var mode: String?

    @Option(help: "Loss probability of every link, 0...1 (file edges with loss= keep theirs).")
    var loss: Double = 0

    @Option(help: "One-way link latency, milliseconds.")
    var latency: Double = 10

    @Option(help: "Extra uniform latency jitter per transmission, milliseconds.")
    var jitter: Double = 5

    @Option(help: "Link MTU in bytes; larger transmissions are dropped and counted.")
    var mtu: Int = 512

    @Option(help: "Seed of the run (topology, workload, loss, jitter and every node).")
    var seed: UInt64 = 0

    @Option(help: "Relay policy: dialect (the dialect's own rule), probabilistic (seed 000), flood.")
    var policy: String = "dialect"

    @Option(help: "Radio range for geometric (unit square).")
    var radius: Double?

    @Option(help: "Target average degree for geometric (sets the radius).")
    var degree: Double?

    @Option(help: "Milliseconds between injected messages.")
    var interval: Double = 100

    @Option(help: "Seconds the run continues after the last message.")
    var settle: Double = 10

    @Option(help: "Payload bytes per message (at least 8).")
    var payload: Int = 32

    @Flag(help: "Print the metrics as JSON (an array for a sweep).")
    var json = false

    @Option(help: "Write an SVG plot of delivery ratio and transmissions per message against the swept parameter.")
    var svg: String?

    @Option(help: "Parameter and values to sweep, e.g. loss=0,0.1,0.2 or nodes=10,20,50 (also degree, radius, mtu).")
    var sweep: String?

    func run() throws {
        guard let dialectName = DialectName(rawValue: dialect) else {
            throw UsageError("unknown dialect \"\(dialect)\"; use --dialect \(DialectName.allCases.map(\.rawValue).joined(separator: " or --dialect "))")
        }
        let relayPolicy = try parsePolicy()
        let modeName = mode ?? (dialectName == .relay ? "unicast" : "broadcast")
        guard let workloadMode = Workload.Mode(rawValue: modeName) else {
            throw UsageError("unknown --mode \"\(modeName)\"; use --mode broadcast or --mode unicast")
        }
        guard (0...1).contains(loss) else { throw UsageError("--loss is a probability: give a value in 0...1, e.g. --loss 0.1") }
        guard nodes >= 1 else { throw UsageError("--nodes must be at least 1") }
        guard messages >= 0 else { throw UsageError("--messages must be 0 or more") }
        if radius != nil && degree != nil { throw UsageError("give --radius or --degree, not both") }

        let (parameter, values) = try parseSweep()
        var runs: [SimMetrics] = []
        for value in values {
            var scenario = Scenario(command: self)
            if let parameter, let value { try scenario.set(parameter, value) }
            let config = try scenario.config(mode: workloadMode)
            let simulator = Simulator(config: config, dialect: dialectName, policy: relayPolicy)
            var metrics = simulator.run()
            metrics.label = "\(dialect) \(policy) \(config.topology.name)" + (parameter.map { " \($0)=\(format(value ?? 0))" } ?? "")
            runs.append(metrics)
        }

        if json {
            print(parameter == nil ? runs[0].json() : SimMetrics.json(runs))
        } else if let parameter {
            printTable(parameter: parameter, values: values.map { $0 ?? 0 }, runs: runs, mode: modeName)
        } else {
            print(runs[0].summary)
        }
        if let svg {
            let title = "\(dialect), policy \(policy), \(topology)" + (parameter.map { ", sweep of \($0)" } ?? "")
            let text = SweepPlot.svg(parameter: parameter ?? "run", values: values.map { $0 ?? 0 }, runs: runs, title: title)
            do { try text.write(toFile: svg, atomically: true, encoding: .utf8) } catch {
                throw UsageError("cannot write \(svg): \(error.localizedDescription); check the folder exists and is writable")
            }
        }
    }

    private func parsePolicy() throws -> RelayPolicyKind {
        switch policy {
        case "dialect": return .dialect
        case "probabilistic": return .probabilistic
        case "flood": return .flood
        default: throw UsageError("unknown --policy \"\(policy)\"; use dialect, probabilistic or flood")
        }
    }

    private func parseSweep() throws -> (String?, [Double?]) {
        guard let sweep else { return (nil, [nil]) }
        let parts = sweep.split(separator: "=", maxSplits: 1).map(String.init)
        let known = ["loss", "nodes", "degree", "radius", "mtu"]
        guard parts.count == 2, known.contains(parts[0]) else {
            throw UsageError("--sweep takes PARAMETER=V1,V2,... with PARAMETER one of \(known.joined(separator: ", ")); e.g. --sweep loss=0,0.1,0.2")
        }
        let values = parts[1].split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard !values.isEmpty, values.allSatisfy({ $0 != nil }) else {
            throw UsageError("--sweep \(parts[0])= needs comma-separated numbers, e.g. --sweep \(parts[0])=\(parts[0] == "loss" ? "0,0.1,0.2" : "10,20,50")")
        }
        return (parts[0], values)
    }

    private func printTable(parameter: String, values: [Double], runs: [SimMetrics], mode: String) {
        print("\(dialect), policy \(policy), topology \(topology), \(messages) \(mode) messages, seed \(seed)")
        func pad(_ text: String, _ width: Int) -> String { String(repeating: " ", count: max(0, width - text.count)) + text }
        let header = [parameter, "nodes", "delivery", "tx/msg", "dup rx", "relays ex", "p50 ms", "wall s"]
        let widths = [10, 7, 9, 10, 8, 10, 9, 8]
        print(zip(header, widths).map { pad($0, $1) }.joined(separator: " "))
        for (value, run) in zip(values, runs) {
            let cells = [format(value), String(run.nodes), String(format: "%.1f%%", run.deliveryRatio * 100),
                         String(format: "%.2f", run.transmissionsPerMessage), String(format: "%.1f%%", run.duplicateRatio * 100),
                         String(format: "%.1f%%", run.relayExecutionRatio * 100),
                         run.latencyP50Ms.map { String(format: "%.1f", $0) } ?? "-", String(format: "%.3f", run.wallSeconds ?? 0)]
            print(zip(cells, widths).map { pad($0, $1) }.joined(separator: " "))
        }
    }

    fileprivate func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

/// The command's options as one mutable scenario, so a sweep can change one parameter.
private struct Scenario {
    var topology: String
    var nodes: Int
    var messages: Int
    var profile: LinkProfile
    var radius: Double?
    var degree: Double?
    var seed: UInt64
    var interval: Double
    var settle: Double
    var payload: Int

    init(command: SimCommand) {
        topology = command.topology
        nodes = command.nodes
        messages = command.messages
        profile = LinkProfile(loss: command.loss, latency: .nanoseconds(Int64(command.latency * 1e6)),
                              jitter: .nanoseconds(Int64(command.jitter * 1e6)), mtu: command.mtu)
        radius = command.radius
        degree = command.degree
        seed = command.seed
        interval = command.interval
        settle = command.settle
        payload = command.payload
    }

    mutating func set(_ parameter: String, _ value: Double) throws {
        switch parameter {
        case "loss":
            guard (0...1).contains(value) else { throw UsageError("--sweep loss= values are probabilities in 0...1") }
            profile.loss = value
        case "nodes":
            guard value >= 1 else { throw UsageError("--sweep nodes= values must be at least 1") }
            nodes = Int(value)
        case "degree": degree = value; radius = nil
        case "radius": radius = value; degree = nil
        case "mtu": profile.mtu = Int(value)
        default: break
        }
    }

    func config(mode: Workload.Mode) throws -> SimConfig {
        let mesh: Topology
        switch topology {
        case "line": mesh = .line(nodes, profile: profile)
        case "ring": mesh = .ring(nodes, profile: profile)
        case "grid": mesh = .grid(nodes, profile: profile)
        case "geometric":
            let r = radius ?? Topology.radius(forAverageDegree: degree ?? 8, nodes: nodes)
            guard r > 0 else { throw UsageError("--radius and --degree must be positive") }
            mesh = .geometric(nodes, radius: r, seed: seed, profile: profile)
        default:
            let path = topology.hasPrefix("file:") ? String(topology.dropFirst(5)) : topology
            guard topology.hasPrefix("file:") || FileManager.default.fileExists(atPath: path) else {
                throw UsageError("unknown topology \"\(topology)\"; use line, ring, grid, geometric, or file:PATH for an edge list (lines \"a b\")")
            }
            guard FileManager.default.fileExists(atPath: path) else {
                throw UsageError("no edge-list file at \(path); give an existing file as --topology file:PATH (lines \"a b\", # comments)")
            }
            do { mesh = try Topology.edgeList(contentsOf: path, profile: profile) } catch let error as EdgeListError {
                throw UsageError("\(path) \(error.description)")
            } catch {
                throw UsageError("cannot read \(path): \(error.localizedDescription)")
            }
        }
        let workload = Workload.random(count: messages, nodes: mesh.nodeCount, mode: mode,
                                       interval: .nanoseconds(Int64(interval * 1e6)), payloadSize: payload, seed: seed)
        return SimConfig(topology: mesh, workload: workload, seed: seed, settle: .nanoseconds(Int64(settle * 1e9)))
    }
}
