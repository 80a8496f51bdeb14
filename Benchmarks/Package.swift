// swift-tools-version: 6.0
// A separate package so that `swift test` in the main package never builds the benchmarks.
import Foundation
import PackageDescription

// A path dependency is named after its folder, whatever the checkout is called.
let mainPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "meshconform-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        .executableTarget(name: "DecodeThroughput", dependencies: [
            .product(name: "MeshWire", package: mainPackage),
            .product(name: "MeshVectors", package: mainPackage),
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // Issue 16: plain C decoders of the binary formats, written from the dialect pages, and the
        // side-by-side run against meshconform's (agreement on every vector, then speed).
        .target(name: "CDecoders", linkerSettings: [.linkedLibrary("z")]),
        .executableTarget(name: "DecodeVersusC", dependencies: [
            "CDecoders",
            .product(name: "MeshWire", package: mainPackage),
            .product(name: "MeshVectors", package: mainPackage),
        ]),
        // Issue 16: the simulator's per-event cost on the 10,000-node relay mesh's beacon round.
        .executableTarget(name: "SimBeaconRound", dependencies: [
            .product(name: "MeshSim", package: mainPackage),
            .product(name: "MeshNode", package: mainPackage),
        ]),
        // Issue 3's million-message flood of one node, with its memory checked for growth.
        .executableTarget(name: "FloodMemory", dependencies: [
            .product(name: "MeshNode", package: mainPackage),
            .product(name: "MeshWire", package: mainPackage),
        ]),
    ]
)
