// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "meshconform",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "MeshWire", targets: ["MeshWire"]),
        .library(name: "MeshVectors", targets: ["MeshVectors"]),
        .executable(name: "meshconform", targets: ["meshconform"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        // Wire codecs: bytes <-> values. Pure: no I/O, no clock, no randomness.
        .target(name: "MeshWire", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        // Golden-vector files: loading, and checking them against a decoder (ours or an external one).
        .target(name: "MeshVectors", dependencies: ["MeshWire"]),
        .executableTarget(name: "meshconform", dependencies: [
            "MeshWire", "MeshVectors",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .testTarget(name: "MeshWireTests", dependencies: ["MeshWire", .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(name: "MeshVectorsTests", dependencies: ["MeshVectors", "MeshWire"]),
    ]
)
