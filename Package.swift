// swift-tools-version: 6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "ListDelta",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "ListDeltaCore", targets: ["ListDeltaCore"]),
        .library(name: "HTTPServer", targets: ["HTTPServer"]),
        .library(name: "ListDeltaKit", targets: ["ListDeltaKit"]),
        .executable(name: "listdelta", targets: ["listdelta"]),
        .executable(name: "listdelta-follow", targets: ["listdelta-follow"]),
        .executable(name: "listdelta-bench", targets: ["listdelta-bench"]),
        .executable(name: "http-bench-server", targets: ["http-bench-server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
        // Named for the modules the PostgreSQL store and the feed fetcher import from it (NIOCore, NIOHTTP1); the version
        // is the one postgres-nio and async-http-client resolve.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // `swift package generate-documentation --target ListDeltaKit`: the Swift client's DocC documentation (a
        // plugin: nothing of it is linked).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // Spans (the API every layer records through) and their export: OTLP over HTTP only (the gRPC trait would
        // bring grpc-swift for nothing), run by a service lifecycle.
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/swift-otel/swift-otel", exact: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // Tiny text helpers the HTTP layer, the core, the feeds and the service share: the one JSON string escaper, space
        // trimming, RFC 3339 timestamps.
        .target(name: "TextFormats", swiftSettings: swiftSettings),

        // The pure model, diff and patch: no I/O, no C.
        .target(name: "ListDeltaCore", dependencies: ["TextFormats"], swiftSettings: swiftSettings),

        // C at the edge.
        .systemLibrary(name: "CLibevent", pkgConfig: "libevent", providers: [.apt(["libevent-dev"])]),
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        // libxml2's SAX2 interface, which the feed parsers drive directly (FoundationXML links the same library).
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),

        // gzip and bounded inflation with zlib: the HTTP layer's codings and the stored revisions' blobs.
        .target(name: "ZlibCodec", dependencies: ["CZlib"], swiftSettings: swiftSettings),

        // A generic evhttp server: knows nothing about lists.
        .target(
            name: "HTTPServer",
            dependencies: [
                "CLibevent", "ZlibCodec", "TextFormats",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),

        // What every store of revisions is: the protocol, heads, writes, errors and the pure append arithmetic.
        .target(name: "ListDeltaStorage", swiftSettings: swiftSettings),

        // Revisions in SQLite, the embedded default (the only target that imports GRDB).
        .target(
            name: "ListDeltaSQLite",
            dependencies: ["ListDeltaStorage", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),

        // Revisions in PostgreSQL, shared by many instances, with LISTEN/NOTIFY wake-ups (the only target that
        // imports PostgresNIO). One of the two targets that import SwiftNIO, for its clients only: HTTP is served by
        // libevent.
        .target(
            name: "ListDeltaPostgres",
            dependencies: [
                "ListDeltaStorage",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // Who may read and write which list: static tokens and JWTs (the only target that imports JWTKit).
        .target(
            name: "ListDeltaAccess",
            dependencies: [.product(name: "JWTKit", package: "jwt-kit")],
            swiftSettings: swiftSettings
        ),

        // Feeds (RSS 0.9x/2.0 and unversioned, RSS 1.0, CDF, Atom 1.0 and 0.3, JSON Feed) read into values and mapped
        // to list documents: no I/O. XML through libxml2's SAX2 interface, never a tokenizer of our own.
        .target(name: "ListDeltaFeeds", dependencies: ["ListDeltaCore", "TextFormats", "CLibXML2"], swiftSettings: swiftSettings),

        // Where a list's content comes from outside: fetching a URL (async-http-client, the only target that
        // imports it, and so the other of the two that import SwiftNIO) or a local file, the host policy that keeps
        // fetches off the service's own network, backoff.
        .target(
            name: "ListDeltaSources",
            dependencies: [
                "ZlibCodec", "TextFormats",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),

        // The application core: the repository of lists (caches, rebuilds of old revisions, the write protocol),
        // rendered bodies and the watchers' hub, over any store. No HTTP, no concrete store.
        .target(
            name: "ListDeltaEngine",
            dependencies: [
                "ListDeltaCore", "ListDeltaStorage", "ZlibCodec",
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings),

        // The application layer: everything ListDelta does with lists, over the engine and any store, whoever asks.
        // Sources (scheduling, fetch cycles, their state), views (registry, scheduler, updater), other instances'
        // commits, the worker pools, and the one function that follows every commit (`Application.afterCommit`). No
        // HTTP: its errors are its own (`ApplicationError`).
        .target(
            name: "ListDeltaApplication",
            dependencies: [
                "ListDeltaCore", "ListDeltaEngine", "ListDeltaStorage", "ListDeltaFeeds", "ListDeltaSources", "TextFormats",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),

        // API v1: the HTTP adapter. Routes, the access check, the plumbing of polls and event streams, problem
        // mapping and the web assets, over the application.
        .target(
            name: "ListDeltaService",
            dependencies: [
                "ListDeltaApplication", "ListDeltaCore", "ListDeltaEngine", "ListDeltaStorage", "HTTPServer", "ListDeltaAccess", "TextFormats",
                "ZlibCodec",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            resources: [.copy("Web")],
            swiftSettings: swiftSettings
        ),

        // The composition root: the configuration (file, environment, flags) and the service behind its HTTP server,
        // on the store the configuration names. The only target that knows both concrete stores; it hands each
        // layer a narrow options value.
        .target(
            name: "ListDeltaServer",
            dependencies: [
                "ListDeltaService", "ListDeltaApplication", "ListDeltaEngine", "ListDeltaStorage", "ListDeltaSQLite", "ListDeltaPostgres",
                "ListDeltaAccess", "ListDeltaCore", "ListDeltaSources", "HTTPServer", "TextFormats",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),

        .executableTarget(
            name: "listdelta",
            dependencies: [
                "ListDeltaServer", "ListDeltaAccess",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: swiftSettings
        ),
        // The Swift client: follower, data source, batch updates on a view, value-type layouts. No server target.
        .target(name: "ListDeltaKit", dependencies: ["ListDeltaCore"], swiftSettings: swiftSettings),

        // A command-line follower: prints each update as the UIKit batch it would be.
        .executableTarget(
            name: "listdelta-follow",
            dependencies: [
                "ListDeltaKit", "ListDeltaCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "listdelta-bench",
            dependencies: [
                "ListDeltaCore", "ListDeltaSQLite", "ListDeltaAccess", "ListDeltaFeeds", "HTTPServer",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "http-bench-server",
            dependencies: ["HTTPServer", "ZlibCodec", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),

        // What tests of any target share, over the core alone: random documents, waiting for a condition (never for a
        // time), threads of their own, temporary directories.
        .target(
            name: "ListDeltaCoreTestSupport", dependencies: ["ListDeltaCore"], path: "Tests/ListDeltaCoreTestSupport",
            swiftSettings: swiftSettings),
        // What the stores' tests share: the fixtures (blobs, writes), the PostgreSQL test database, and the store
        // factory the contract suite runs against each store.
        .target(
            name: "ListDeltaStoreTestSupport",
            dependencies: [
                "ListDeltaStorage", "ListDeltaSQLite", "ListDeltaPostgres", "ListDeltaCoreTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/ListDeltaStoreTestSupport",
            swiftSettings: swiftSettings
        ),
        // What the server-level test targets share: the service in-process and on loopback, a loopback HTTP server
        // and a raw client, a feed server, log capture.
        .target(
            name: "ListDeltaTestSupport",
            dependencies: [
                "ListDeltaCore", "ListDeltaService", "ListDeltaApplication", "ListDeltaServer", "ListDeltaAccess", "HTTPServer", "ListDeltaCoreTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/ListDeltaTestSupport",
            swiftSettings: swiftSettings
        ),

        .testTarget(name: "ListDeltaCoreTests", dependencies: ["ListDeltaCore", "ListDeltaCoreTestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "ListDeltaFeedsTests", dependencies: ["ListDeltaFeeds", "ListDeltaCore"], resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "ListDeltaSourcesTests",
            dependencies: ["ListDeltaSources", "ListDeltaTestSupport", "HTTPServer", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "HTTPServerTests",
            dependencies: [
                "HTTPServer", "ZlibCodec", "ListDeltaTestSupport", "ListDeltaCoreTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "ZlibCodecTests", dependencies: ["ZlibCodec"], swiftSettings: swiftSettings),
        .testTarget(name: "TextFormatsTests", dependencies: ["TextFormats"], swiftSettings: swiftSettings),
        // What only the SQLite store does: its rows, reopening, durability, migrations, the pure append arithmetic.
        .testTarget(
            name: "ListDeltaSQLiteTests",
            dependencies: [
                "ListDeltaSQLite", "ListDeltaStorage", "ListDeltaStoreTestSupport", "ListDeltaCoreTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings),
        // What only the PostgreSQL store does, against a real server (LISTDELTA_TEST_POSTGRES_URL, set by
        // scripts/test.sh): two instances on one database, announcements, write turns, lease expiry, its URLs.
        .testTarget(
            name: "ListDeltaPostgresTests",
            dependencies: [
                "ListDeltaPostgres", "ListDeltaStorage", "ListDeltaStoreTestSupport", "ListDeltaCoreTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
        // One storage contract: every test of what all stores share (appends, heads, deletes, retention, history,
        // undo diffs, lists, sources, views, concurrency) runs against SQLite and against PostgreSQL.
        .testTarget(
            name: "ListDeltaStoreContractTests",
            dependencies: ["ListDeltaStorage", "ListDeltaStoreTestSupport", "ListDeltaCoreTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "ListDeltaAccessTests",
            dependencies: ["ListDeltaAccess", .product(name: "JWTKit", package: "jwt-kit")],
            swiftSettings: swiftSettings
        ),
        // The engine on its own, over a store in memory's stead (SQLite in a temporary directory).
        .testTarget(
            name: "ListDeltaEngineTests",
            dependencies: ["ListDeltaEngine", "ListDeltaCore", "ListDeltaStorage", "ListDeltaSQLite", "ListDeltaCoreTestSupport"],
            swiftSettings: swiftSettings),
        // The application layer without HTTP: source cycles, worker pools, what is known of directly written lists.
        .testTarget(
            name: "ListDeltaApplicationTests",
            dependencies: [
                "ListDeltaApplication", "ListDeltaCore", "ListDeltaEngine", "ListDeltaFeeds", "ListDeltaSources", "ListDeltaStorage",
                "ListDeltaTestSupport", "ListDeltaCoreTestSupport",
            ],
            swiftSettings: swiftSettings),
        // The composition root: the configuration's rules and precedence.
        .testTarget(
            name: "ListDeltaServerTests",
            dependencies: [
                "ListDeltaServer", "ListDeltaPostgres", "ListDeltaApplication", "ListDeltaService", "HTTPServer",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "ListDeltaServiceTests",
            dependencies: [
                "ListDeltaService", "ListDeltaApplication", "ListDeltaServer", "ListDeltaEngine", "ListDeltaStorage", "ListDeltaAccess",
                "ListDeltaTestSupport", "ListDeltaCoreTestSupport", "ListDeltaCore", "HTTPServer", "ZlibCodec",
            ],
            swiftSettings: swiftSettings),
        // The client against fakes and against the real service, started in-process on a loopback port.
        .testTarget(
            name: "ListDeltaKitTests",
            dependencies: [
                "ListDeltaKit", "ListDeltaCore", "ListDeltaService", "ListDeltaServer", "ListDeltaTestSupport", "ListDeltaCoreTestSupport",
            ],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
