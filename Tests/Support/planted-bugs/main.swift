// The planted-bug decoders as a fuzz worker (`planted-bugs fuzz-worker TARGET ...`, what the
// tests supervise) and as a libFuzzer executable (built with -DFUZZING; the target is named
// by $PLANTED_TARGET), for the side-by-side numbers of docs/performance.md.
import MeshFuzz
import PlantedBugs
#if canImport(Glibc)
import Glibc
#endif

if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "fuzz-worker" {
    FuzzWorker.main(arguments: Array(CommandLine.arguments.dropFirst(2)), targets: PlantedBugs.all)
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

FuzzEntry.main(testOneInput)
