// swift-tools-version: 6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "ListDelta",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ListDeltaCore", targets: ["ListDeltaCore"]),
        .executable(name: "listdelta-bench", targets: ["listdelta-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .target(name: "ListDeltaCore", swiftSettings: swiftSettings),
        .executableTarget(
            name: "listdelta-bench",
            dependencies: [
                "ListDeltaCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "ListDeltaCoreTests", dependencies: ["ListDeltaCore"], swiftSettings: swiftSettings),
    ]
)
