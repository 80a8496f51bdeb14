// The planted-bug decoders as a fuzz worker (`planted-bugs fuzz-worker TARGET ...`, what the
// tests supervise), as a supervised campaign (`planted-bugs campaign TARGET SECONDS DIR`: the
// in-process side of ci/fuzz-bench's time-to-find), as a seed writer (`planted-bugs seeds
// TARGET DIR`, libFuzzer's starting corpus) and as a libFuzzer executable (built with
// -DFUZZING; the target is named by $PLANTED_TARGET), for the side-by-side numbers of
// docs/performance.md.
import MeshFuzz
import PlantedBugs
#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments

func usage(_ message: String) -> Never {
    let text = Array("planted-bugs: \(message)\nusage: planted-bugs campaign TARGET SECONDS DIR | planted-bugs seeds TARGET DIR\n".utf8)
    _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(2)
}

/// Writes the target's seeds into `dir` (one file each, named by SHA-256).
func writeSeeds(_ target: String, into dir: String) -> Bool {
    guard let seeds = PlantedBugs.seeds[target], let store = try? CorpusStore(directory: dir) else { return false }
    for seed in seeds { guard (try? store.add(seed)) != nil else { return false } }
    return true
}

if arguments.count > 1, arguments[1] == "seeds" {
    guard arguments.count == 4 else { usage("seeds needs TARGET DIR") }
    guard writeSeeds(arguments[2], into: arguments[3]) else { usage("no planted target \(arguments[2]), or \(arguments[3]) is not writable") }
    exit(0)
}

// A campaign starts from the target's seeds; FuzzEntry.main runs it (and fuzz-worker).
if arguments.count >= 5, arguments[1] == "campaign" {
    guard writeSeeds(arguments[2], into: "\(arguments[4])/\(arguments[2])") else { usage("no planted target \(arguments[2])") }
}

let plantedTarget: FuzzTarget = {
    let name = getenv("PLANTED_TARGET").map { String(cString: $0) } ?? "planted.length-trap"
    guard let target = PlantedBugs.all.first(where: { $0.id == name }) else { fatalError("no planted target \(name)") }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzEntry.testOneInput(target: plantedTarget, data: data, size: size)
}

FuzzEntry.main(testOneInput, targets: PlantedBugs.all)
