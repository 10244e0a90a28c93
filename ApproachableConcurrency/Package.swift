// swift-tools-version: 6.2
//
// Baseline as a new Xcode 26 app target uses it: every documented snippet
// (one source with the root package's build) and the example app's
// SpacePhotosCore, compiled with default actor isolation MainActor,
// NonisolatedNonsendingByDefault and InferIsolatedConformances, as Xcode 26
// sets them for new app targets. CI builds it with warnings as errors and
// runs its tests (a TestStore test and a request on a stub transport).
//
// Sources/<Name>/main.swift and Sources/SpacePhotosCore link to the files
// of the root package and of the example app: nothing here is a copy.
// SpacePhotosCore's generated client (SpacePhotosAPI) comes from the example
// package itself, not by path: it is generated code in a module of its own,
// compiled as the example compiles it, so both builds share one copy in the
// build folder.

import PackageDescription

/// How Xcode 26 sets up a new app target.
let approachable: [SwiftSetting] = [
    .defaultIsolation(MainActor.self),
    .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
    .enableUpcomingFeature("InferIsolatedConformances"),
]

let snippets = [
    "CombineBridges", "ConcurrencyCoalescing", "ConcurrencyObservers", "ConcurrencySharedState", "ConcurrencyTour",
    "FirstRequest", "HTTPPolicies", "HTTPStreaming", "HTTPTransfers", "MiddlewareOrder",
    "ImagesAtAGlance", "ImagesCaching", "ImagesDecoding", "ImagesLoading", "ImagesPerformance",
    "PersistenceAtAGlance", "PersistenceFiles", "PersistenceLiveQueries", "PersistenceObserving", "PersistenceOpening",
    "PersistencePerformance",
    "StoreAtAGlance", "StoreComposition", "StoreEffects", "StoreGettingStarted", "StoreObserving", "StorePerformance",
    "StoreSharedValues",
]

let http: Target.Dependency = .product(name: "HTTPTypes", package: "swift-http-types")

/// Everything a snippet may import.
let libraries: [Target.Dependency] = [
    .product(name: "BaselineCombine", package: "Baseline"),
    .product(name: "BaselineConcurrency", package: "Baseline"),
    .product(name: "BaselineHTTP", package: "Baseline"),
    .product(name: "BaselineImages", package: "Baseline"),
    .product(name: "BaselinePersistence", package: "Baseline"),
    .product(name: "BaselineStore", package: "Baseline"),
    .product(name: "BaselineSync", package: "Baseline"),
    .product(name: "BaselineTesting", package: "Baseline"),
    .product(name: "GRDB", package: "GRDB.swift"),
    .product(name: "HTTPTypes", package: "swift-http-types"),
    .product(name: "Logging", package: "swift-log"),
]

let package = Package(
    name: "ApproachableConcurrency",
    platforms: [.macOS(.v14), .iOS(.v17)],
    dependencies: [
        .package(name: "Baseline", path: ".."),
        .package(name: "BaselineOpenAPI", path: "../Transports/OpenAPI"),
        .package(name: "SpacePhotos", path: "../Examples/SpacePhotos"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.8.0"),
    ],
    targets: snippets.map { name in
        .executableTarget(
            name: "Snippet\(name)",
            dependencies: libraries,
            path: "Sources/\(name)",
            swiftSettings: approachable
        )
    } + [
        // The example app's models and features, as an app target would hold them.
        // Named apart from the example's own target: the packages share a
        // build folder, and one name would make each build overwrite the other's.
        .target(
            name: "SpacePhotosCoreDefaultMainActor",
            dependencies: libraries + [
                .product(name: "BaselineOpenAPI", package: "BaselineOpenAPI"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "SpacePhotosAPI", package: "SpacePhotos"),
            ],
            path: "Sources/SpacePhotosCore",
            swiftSettings: approachable
        ),
        // Decoding a 1 MiB body through `send` from the main actor, in this
        // mode and without it (one source; Mode.swift names the build).
        .executableTarget(
            name: "decoding-benchmark",
            dependencies: [.product(name: "BaselineHTTP", package: "Baseline"), http, "MainQueue"],
            path: "Sources/DecodingBenchmark",
            swiftSettings: approachable
        ),
        .executableTarget(
            name: "decoding-benchmark-plain",
            dependencies: [.product(name: "BaselineHTTP", package: "Baseline"), http, "MainQueue"],
            path: "Sources/DecodingBenchmarkPlain"
        ),
        // Where the benchmark and the tests see code run.
        .target(name: "MainQueue"),
        // A TestStore test, a request on a stub transport, a stored value and
        // an observer, in the same mode.
        .testTarget(
            name: "ApproachableConcurrencyTests",
            dependencies: [
                .product(name: "BaselineConcurrency", package: "Baseline"),
                .product(name: "BaselineHTTP", package: "Baseline"),
                .product(name: "BaselinePersistence", package: "Baseline"),
                .product(name: "BaselineStore", package: "Baseline"),
                .product(name: "BaselineTesting", package: "Baseline"),
                "MainQueue",
            ],
            swiftSettings: approachable
        ),
    ],
    swiftLanguageModes: [.v6]
)
