// swift-tools-version:6.0
import PackageDescription

// Layout: a pure core and thin adapters around it (docs/ARCHITECTURE.md is the map).
// - No I/O: PushlabCore (the APNs rules; imports nothing), PushlabSimulator (the phones).
// - The delivery pipeline: PushlabDelivery (from an accepted push to its phone and the store:
//   the queue, the worker, the pacing state machine, the log of accepted pushes).
// - Adapters: PushlabTransport (NIO + OpenSSL + nghttp2), PushlabStore (SQLite), PushlabControl
//   (the control API and dashboard), PushlabScenario (YAML), PushlabClient, PushlabProviderCalls,
//   PushlabRedis (a RESP3 and Redis Cluster client on NIO, the engine of a Pushlab cluster);
//   PushlabRuntime puts them together for PushlabCLI (`pushlab`) and PushlabTesting.
// The C libraries are reached only through their owning wrappers (PushlabNGHTTP2,
// PushlabOpenSSL); nothing else imports CNGHTTP2 or COpenSSL.
let package = Package(
    name: "Pushlab",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "pushlab", targets: ["PushlabCLI"]),
        .library(name: "PushlabCore", targets: ["PushlabCore"]),
        .library(name: "PushlabSimulator", targets: ["PushlabSimulator"]),
        .library(name: "PushlabServices", targets: ["PushlabServices"]),
        .library(name: "PushlabStore", targets: ["PushlabStore"]),
        .library(name: "PushlabTransport", targets: ["PushlabTransport"]),
        .library(name: "PushlabClient", targets: ["PushlabClient"]),
        .library(name: "PushlabControl", targets: ["PushlabControl"]),
        .library(name: "PushlabDelivery", targets: ["PushlabDelivery"]),
        .library(name: "PushlabRedis", targets: ["PushlabRedis"]),
        .library(name: "PushlabRuntime", targets: ["PushlabRuntime"]),
        .library(name: "PushlabTesting", targets: ["PushlabTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CNGHTTP2",
            pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"]), .brew(["nghttp2"])]
        ),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        // jemalloc serves malloc in every program that links CMallocTuning (on Linux): glibc's
        // arenas, fed on the event loops and emptied on the store's thread, cost a tenth of a
        // push (docs/PERFORMANCE.md).
        .systemLibrary(
            name: "CJemalloc",
            pkgConfig: "jemalloc",
            providers: [.apt(["libjemalloc-dev"]), .brew(["jemalloc"])]
        ),
        .target(name: "CMallocTuning", dependencies: [.target(name: "CJemalloc", condition: .when(platforms: [.linux]))]),
        .target(name: "PushlabNGHTTP2", dependencies: ["CNGHTTP2"]),
        .target(name: "PushlabOpenSSL", dependencies: ["COpenSSL"]),
        .target(name: "PushlabCore"),
        .target(name: "PushlabSimulator", dependencies: ["PushlabCore"]),
        // JPush's and GeTui's rules (their server APIs, what they send APNs): pure, like the core.
        .target(name: "PushlabServices", dependencies: ["PushlabCore"]),
        .target(name: "PushlabDelivery", dependencies: ["PushlabCore", "PushlabSimulator", .product(name: "Logging", package: "swift-log")]),
        // The one hand-written protocol client: no Swift Redis client is among this machine's packages.
        .target(
            name: "PushlabRedis",
            dependencies: [.product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio")]
        ),
        .target(
            name: "PushlabCluster",
            dependencies: ["PushlabCore", "PushlabRedis", "PushlabSimulator", "PushlabDelivery", "PushlabStore", .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "PushlabStore",
            dependencies: [
                "PushlabCore", "PushlabSimulator", "PushlabDelivery",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        .target(
            name: "PushlabClient",
            dependencies: [
                "PushlabCore", "PushlabTransport", "PushlabNGHTTP2", "PushlabOpenSSL",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .target(
            name: "PushlabScenario",
            dependencies: ["PushlabCore", "PushlabSimulator", "PushlabOpenSSL", "PushlabServices", .product(name: "Yams", package: "Yams")]
        ),
        .target(
            name: "PushlabTransport",
            dependencies: [
                "PushlabCore", "PushlabNGHTTP2", "PushlabOpenSSL",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "PushlabControl",
            dependencies: [
                "PushlabCore", "PushlabSimulator", "PushlabDelivery", "PushlabStore", "PushlabScenario", "PushlabOpenSSL", "PushlabClient",
                "PushlabServices", "PushlabTransport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // Embedded/ (the dashboard's HTML, CSS and JavaScript, and the OpenAPI document) is compiled in as strings by EmbedFiles.
            exclude: ["Embedded"],
            plugins: ["EmbedFiles"]
        ),
        // Files compiled into a target as Swift strings, so the binary needs no resource bundle.
        .executableTarget(name: "EmbedFilesTool"),
        .plugin(name: "EmbedFiles", capability: .buildTool(), dependencies: ["EmbedFilesTool"]),
        // Simulated apps calling their providers' backends over real HTTP.
        .target(
            name: "PushlabProviderCalls",
            dependencies: [
                "PushlabCore", "PushlabSimulator",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // One runtime for `pushlab serve`, `pushlab run` and PushlabTesting: the cores, the
        // delivery worker, the store, the control API and the listeners, started and stopped in order.
        .target(
            name: "PushlabRuntime",
            dependencies: [
                "PushlabCore", "PushlabSimulator", "PushlabDelivery", "PushlabScenario", "PushlabStore", "PushlabTransport", "PushlabControl",
                "PushlabProviderCalls", "PushlabCluster", "PushlabRedis",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "PushlabCLI",
            dependencies: [
                "PushlabCore", "PushlabTransport", "PushlabClient", "PushlabScenario", "PushlabSimulator", "PushlabStore", "PushlabOpenSSL", "CMallocTuning",
                "PushlabControl", "PushlabRuntime", "PushlabCluster", "PushlabRedis",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Yams", package: "Yams"),
            ],
            // The Swift runtime linked in on Linux, as a release ships it, so that the binary every
            // build makes also runs in a stock Debian root (the tarball and image tests): one
            // build serves both the Swift tests, which link it dynamically (swift-testing has no
            // static library), and the binary the integration tests drive. Only the link changes:
            // SwiftPM does not recompile a module when its runtime flags change, so the modules
            // are compiled as usual, and Foundation's static libraries are named here, in the
            // order a static link needs them (their dynamic twins carry these dependencies
            // themselves). `--static-swift-stdlib` (make dist) compiles everything for it.
            linkerSettings: [
                .unsafeFlags(
                    ["-static-stdlib"] + [
                        "Foundation", "FoundationInternationalization", "FoundationEssentials", "CoreFoundation",
                        "_FoundationCollections", "_FoundationCShims", "_FoundationICU",
                    ].map { "-l\($0)" },
                    .when(platforms: [.linux])
                ),
            ]
        ),
        // Pushlab in-process for Swift test suites; the test certificates and the sample key ship
        // as resources, so a consumer's tests need no path into this repository.
        .target(
            name: "PushlabTesting",
            dependencies: [
                "PushlabCore", "PushlabSimulator", "PushlabTransport", "PushlabScenario", "PushlabOpenSSL", "PushlabRuntime", "PushlabCluster",
                "PushlabRedis", .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Resources/Certificates")]
        ),
        .executableTarget(name: "pushlab-device-load", dependencies: ["PushlabCore", "PushlabSimulator", "CMallocTuning"], path: "Benchmarks/DeviceLoad"),
        .executableTarget(
            name: "pushlab-core-bench",
            dependencies: ["PushlabCore", "PushlabSimulator", "PushlabDelivery", "PushlabScenario", "PushlabStore", "CMallocTuning"],
            path: "Benchmarks/CorePath"
        ),
        .testTarget(name: "PushlabTestingTests", dependencies: ["PushlabTesting", "PushlabClient", "RedisTestServers"]),
        .testTarget(name: "PushlabNGHTTP2Tests", dependencies: ["PushlabNGHTTP2"]),
        .testTarget(name: "PushlabRedisTests", dependencies: ["PushlabRedis", "RedisTestServers"]),
        .testTarget(name: "PushlabClusterTests", dependencies: ["PushlabCluster", "PushlabRedis", "PushlabCore", "PushlabSimulator", "PushlabDelivery", "PushlabStore", "RedisTestServers"]),
        // Real redis-server processes, shared by the two suites above (one cluster for both).
        .target(name: "RedisTestServers", dependencies: ["PushlabRedis"], path: "Tests/RedisTestServers"),
        .testTarget(name: "PushlabDeliveryTests", dependencies: ["PushlabDelivery", "PushlabSimulator", "PushlabCore", "PushlabStore"]),
        .testTarget(name: "PushlabScenarioTests", dependencies: ["PushlabScenario", "PushlabCore", "PushlabSimulator", "PushlabServices"]),
        .testTarget(name: "PushlabOpenSSLTests", dependencies: ["PushlabOpenSSL"]),
        .testTarget(name: "PushlabSimulatorTests", dependencies: ["PushlabSimulator", "PushlabCore"]),
        .testTarget(name: "PushlabServicesTests", dependencies: ["PushlabServices", "PushlabCore", "PushlabOpenSSL"]),
        .testTarget(
            name: "PushlabStoreTests",
            dependencies: ["PushlabStore", "PushlabSimulator", "PushlabCore", "PushlabDelivery", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(
            name: "PushlabControlTests",
            dependencies: [
                "PushlabControl", "PushlabCore", "PushlabSimulator", "PushlabStore", "PushlabOpenSSL", "PushlabTransport", "PushlabScenario", "PushlabServices",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        .testTarget(name: "PushlabCoreTests", dependencies: ["PushlabCore", "PushlabOpenSSL", "PushlabScenario"]),
        .testTarget(
            name: "PushlabTransportTests",
            dependencies: [
                "PushlabTransport", "PushlabNGHTTP2", "PushlabOpenSSL", "PushlabCore", "PushlabSimulator", "PushlabClient", "CMallocTuning",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ]
)

// libFuzzer over the parsers of untrusted input (Fuzz/run.sh). With PUSHLAB_FUZZ set, one more
// executable, whose main hands the targets to libFuzzer's driver, and Pushlab's own modules are
// instrumented for it. Dependencies are not: libFuzzer walks every coverage counter after each
// input, and NIO's or GRDB's would make each run several times slower; and so the ordinary debug
// build's dependencies serve the fuzzer as they are (Fuzz/run.sh builds it in .build). An
// ordinary build leaves all this out.
//
// PUSHLAB_FUZZ is the path of libFuzzer without its main (the toolchain's
// libclang_rt.fuzzer_no_main, which Fuzz/run.sh finds): the executable has a main of its own, and
// a debug build's main is an alias (--defsym) that does not keep the linker from taking
// libFuzzer's own, which calls an LLVMFuzzerTestOneInput this program does not define.
if let libFuzzer = Context.environment["PUSHLAB_FUZZ"] {
    let instrumented: Set = ["PushlabCore", "PushlabSimulator", "PushlabScenario", "PushlabControl", "PushlabStore", "PushlabOpenSSL", "PushlabDelivery"]
    let sanitizers = ["-sanitize=fuzzer,address"]
    for target in package.targets where instrumented.contains(target.name) {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(sanitizers)]
    }
    package.targets += [
        .target(name: "CLibFuzzerDriver", path: "Fuzz/Driver"),
        .executableTarget(
            name: "pushlab-fuzz",
            dependencies: [
                "CLibFuzzerDriver", "PushlabCore", "PushlabSimulator", "PushlabScenario", "PushlabControl",
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Yams", package: "Yams"),
            ],
            path: "Fuzz/Targets",
            swiftSettings: [.unsafeFlags(sanitizers)],
            // lld: gold stops with an internal error on this binary's debug information.
            linkerSettings: [
                .unsafeFlags(["-sanitize=address", "-Xlinker", libFuzzer, "-Xclang-linker", "-fuse-ld=lld"]),
                .linkedLibrary("stdc++"),
            ]
        ),
    ]
}
