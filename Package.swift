// swift-tools-version: 6.0
import Foundation
import PackageDescription

/// One libFuzzer executable per decoder, each a folder `Sources/FuzzTargets/fuzz-<format>/`
/// holding a three-line main.swift that `ci/gen-fuzz-targets` writes from the fuzz registry
/// (MeshFuzzTests checks the folders and the registry agree). Read from disk so that adding a
/// format never means editing this manifest.
let fuzzTargetNames: [String] = ((try? FileManager.default.contentsOfDirectory(
    atPath: Context.packageDirectory + "/Sources/FuzzTargets")) ?? []).filter { $0.hasPrefix("fuzz-") }.sorted()

let package = Package(
    name: "meshconform",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "MeshWire", targets: ["MeshWire"]),
        .library(name: "MeshVectors", targets: ["MeshVectors"]),
        .library(name: "MeshNode", targets: ["MeshNode"]),
        .library(name: "MeshSim", targets: ["MeshSim"]),
        .library(name: "Conformance", targets: ["Conformance"]),
        .library(name: "BLEHost", targets: ["BLEHost"]),
        .executable(name: "meshconform", targets: ["meshconform"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    ],
    targets: [
        // Wire codecs: bytes <-> values. Pure: no I/O, no clock, no randomness.
        .target(name: "MeshWire", dependencies: [
            .product(name: "Crypto", package: "swift-crypto"),
            "CZlib",
        ]),
        // zlib itself for bitchat's raw DEFLATE and zlib payloads (zlib1g-dev, on the Swift
        // toolchain's Debian images; docs/performance.md has why not compress-nio).
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // The reference node, sans-IO: events and time in, actions out. Per-dialect rules.
        .target(name: "MeshNode", dependencies: ["MeshWire", "CMemoryHints", .product(name: "DequeModule", package: "swift-collections")]),
        // Discrete-event simulator of many MeshNodes on a virtual clock.
        .target(name: "MeshSim", dependencies: ["MeshNode", "CMemoryHints"]),
        .systemLibrary(name: "CMemoryHints"),
        // LE host stack, sans-IO: H4 / HCI / L2CAP / ATT / advertising codecs, GATT bindings, and the
        // LEHost state machine (HCI packets and time in, HCI packets, events and timers out). No dependencies.
        .target(name: "BLEHost"),
        // Check catalog, runner, verdicts, DUT drivers (virtual, process) and reports.
        .target(name: "Conformance", dependencies: ["MeshNode", "MeshWire", "MeshVectors", "ChildProcess", "MeshFuzz"]),
        // An untrusted program on pipes, with deadlines and bounds: external decoders, process DUTs.
        .target(name: "ChildProcess"),
        // The Linux Bluetooth socket calls of the HCI user channel and adapter listing, with the
        // kernel's constants and structs declared in C: no BlueZ headers or library, so the package
        // builds with the Swift toolchain alone (docs/radio.md, "Building").
        .target(name: "CHCISocket"),
        // Byte movers under a BLE host: H4 packets over TCP, unix sockets and the HCI user
        // channel; adapter monikers; btsnoop capture files. No protocol logic.
        .target(name: "HCITransport", dependencies: ["CHCISocket", "BLEHost"]),
        // The radio at run time: one LEHost over one transport on the wall clock, and the GATT
        // bridge that runs a MeshNode as a peripheral (`meshconform node`).
        .target(name: "BLERadio", dependencies: ["BLEHost", "HCITransport", "MeshNode", "MeshWire"]),
        // The GATT DUT driver: the conformance runner's DUT on the air, through one HCI adapter
        // per tester identity. Apart from Conformance so the catalog and its tests need no radio.
        .target(name: "GATTDUT", dependencies: ["Conformance", "BLERadio", "BLEHost", "HCITransport", "MeshNode"]),
        // Golden-vector files: loading, and checking them against a decoder (ours or an external one).
        .target(name: "MeshVectors", dependencies: ["MeshWire", "ChildProcess"]),
        // The fuzzer: mutators, corpus, oracles, minimiser, in-process campaigns and their supervisor.
        .target(name: "MeshFuzz", dependencies: ["MeshWire", "BLEHost", "ChildProcess", "CSanitizerCoverage", .product(name: "Crypto", package: "swift-crypto")]),
        // SanitizerCoverage's counter callbacks, for the in-process engine's edge feedback in
        // coverage builds (ci/fuzz-coverage); inert in every other build.
        .target(name: "CSanitizerCoverage"),
        // Decoders with planted bugs, the fuzzer's proof (docs/fuzzing.md): linked only by the
        // planted-bugs worker and the tests, never by the CLI.
        .target(name: "PlantedBugs", dependencies: ["MeshFuzz", "MeshWire"], path: "Tests/Support/PlantedBugs"),
        .executableTarget(name: "planted-bugs", dependencies: ["PlantedBugs", "MeshFuzz"], path: "Tests/Support/planted-bugs"),
        .executableTarget(name: "meshconform", dependencies: [
            "MeshWire", "MeshVectors", "MeshSim", "Conformance", "HCITransport", "BLERadio", "BLEHost", "GATTDUT", "MeshFuzz",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .testTarget(name: "MeshWireTests", dependencies: ["MeshWire", "MeshNode", .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(name: "MeshVectorsTests", dependencies: ["MeshVectors", "MeshWire", "MeshNode", "MeshFuzz"]),
        .testTarget(name: "MeshNodeTests", dependencies: ["MeshNode", "MeshWire"]),
        .testTarget(name: "MeshSimTests", dependencies: ["MeshSim", "MeshNode", "MeshWire"]),
        .testTarget(name: "HCITransportTests", dependencies: ["HCITransport", "BLEHost"]),
        .testTarget(name: "BLEHostTests", dependencies: ["BLEHost", "MeshNode"]),
        .testTarget(name: "BLERadioTests", dependencies: ["BLERadio", "BLEHost", "HCITransport", "GATTDUT", "Conformance", "MeshNode"]),
        .testTarget(name: "MeshFuzzTests", dependencies: ["MeshFuzz", "PlantedBugs", "BLEHost", "MeshWire", "MeshVectors", "Conformance", "MeshNode"]),
        .testTarget(name: "ConformanceTests", dependencies: ["Conformance", "MeshNode", "MeshWire", "MeshVectors", "ChildProcess"]),
    ]
)

package.targets += fuzzTargetNames.map { name in
    .executableTarget(name: name, dependencies: ["MeshFuzz"], path: "Sources/FuzzTargets/\(name)")
}
// Named products, so `swift build --product fuzz-<format>` (ci/fuzz) builds one alone.
package.products += fuzzTargetNames.map { .executable(name: $0, targets: [$0]) }
    + [.executable(name: "planted-bugs", targets: ["planted-bugs"])]
