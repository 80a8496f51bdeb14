import MeshWire
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The body of every libFuzzer executable (`Sources/FuzzTargets/fuzz-*/main.swift`, generated):
/// runs one input through a registry target and its in-process oracles, and traps on a broken
/// oracle so libFuzzer files it as a crash. Built with `-DFUZZING` (ci/fuzz) the executable
/// hands control to libFuzzer; built normally (`swift build`) it replays the files and folders
/// named on its command line, which is how a libFuzzer crasher is reproduced without
/// sanitizers.
public enum FuzzEntry {
    static let targets: [String: FuzzTarget] = Dictionary(FuzzRegistry.all.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })

    public static func testOneInput(format: String, data: UnsafePointer<UInt8>?, size: Int) -> CInt {
        guard let target = targets[format] else { fatalError("\(format) is not in FuzzRegistry: regenerate with ci/gen-fuzz-targets") }
        return testOneInput(target: target, data: data, size: size)
    }

    public static func testOneInput(target: FuzzTarget, data: UnsafePointer<UInt8>?, size: Int) -> CInt {
        let input = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
        let outcome: Outcome
        do { outcome = .decoded(try target.decode(input)) } catch { outcome = .refused(error) }
        if let failure = Oracles.judge(target, input: input, outcome: outcome) {
            fatalError("\(target.id): \(failure.kind.rawValue): \(failure.detail)")
        }
        return 0
    }

    public typealias Callback = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

    /// The executable's main: libFuzzer's driver under FUZZING, a replayer otherwise.
    public static func main(_ callback: Callback) -> Never {
        #if FUZZING
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, callback))
        #else
        var replayed = 0
        for path in CommandLine.arguments.dropFirst() {
            // A file is one input; a folder (a corpus) is every input in it.
            let files = CorpusStore.readFile(path).map { [$0] } ?? ((try? CorpusStore(directory: path))?.loadAll().map(\.bytes) ?? [])
            for bytes in files {
                _ = bytes.withUnsafeBufferPointer { callback($0.baseAddress, $0.count) }
                replayed += 1
            }
        }
        print("replayed \(replayed) input(s) without a failure (built without -DFUZZING: no libFuzzer; see docs/fuzzing.md)")
        exit(0)
        #endif
    }
}

#if FUZZING
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                         _ callback: FuzzEntry.Callback) -> CInt
#endif
