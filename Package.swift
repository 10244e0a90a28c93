// swift-tools-version: 6.2
//
// Baseline: a Swift-Concurrency-first foundation for apps.
//
// This manifest stays light on purpose: an app that adds Baseline resolves
// swift-http-types, swift-log and GRDB, nothing of a server stack. The example app
// (Examples/SpacePhotos) is a separate package with its own server dependencies.

import PackageDescription

let package = Package(
    name: "Baseline",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "BaselineCombine", targets: ["BaselineCombine"]),
        .library(name: "BaselineConcurrency", targets: ["BaselineConcurrency"]),
        .library(name: "BaselineHTTP", targets: ["BaselineHTTP"]),
        .library(name: "BaselineImages", targets: ["BaselineImages"]),
        .library(name: "BaselinePersistence", targets: ["BaselinePersistence"]),
        .library(name: "BaselineStore", targets: ["BaselineStore"]),
        .library(name: "BaselineSync", targets: ["BaselineSync"]),
        .library(name: "BaselineTesting", targets: ["BaselineTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.0.0"),
        .package(url: "https://github.com/OpenCombine/OpenCombine.git", from: "0.14.0"),
        .package(url: "https://github.com/pointfreeco/swift-case-paths.git", from: "1.5.0"),
        .package(url: "https://github.com/pointfreeco/swift-clocks.git", from: "1.0.0"),
        .package(url: "https://github.com/pointfreeco/swift-custom-dump.git", from: "1.3.0"),
        .package(url: "https://github.com/pointfreeco/xctest-dynamic-overlay.git", from: "1.4.0"),
        // Documentation only (`swift package generate-documentation`): a
        // command plugin, never built into an app that depends on Baseline.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.4.0"),
    ],
    targets: [
        .target(
            name: "BaselineConcurrency",
            dependencies: [.product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "BaselineCombine",
            dependencies: [
                "BaselineConcurrency",
                // Combine itself on Apple platforms; OpenCombine elsewhere.
                .product(
                    name: "OpenCombine",
                    package: "OpenCombine",
                    condition: .when(platforms: [.linux, .android, .windows, .wasi])
                ),
            ]
        ),
        .target(
            name: "BaselineHTTP",
            dependencies: [
                "BaselineConcurrency",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                "CZlib",
            ]
        ),
        // zlib inflates gzip and deflate responses, the same on every transport.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        .target(
            name: "BaselineImages",
            dependencies: [
                "BaselineConcurrency",
                "BaselineHTTP",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                // The system's libpng and libjpeg decode on Linux; Apple platforms use ImageIO.
                .target(name: "CPNG", condition: .when(platforms: [.linux])),
                .target(name: "CPNGShim", condition: .when(platforms: [.linux])),
                .target(name: "CJPEGShim", condition: .when(platforms: [.linux])),
            ]
        ),
        .systemLibrary(
            name: "CPNG",
            pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"]), .brew(["libpng"])]
        ),
        // libpng's row API reports errors by longjmp too: this C shim holds the
        // setjmp for the files that its simplified API decodes wrong.
        .target(
            name: "CPNGShim",
            dependencies: [.target(name: "CPNG", condition: .when(platforms: [.linux]))],
            linkerSettings: [.linkedLibrary("png16", .when(platforms: [.linux]))]
        ),
        .systemLibrary(
            name: "CJPEG",
            pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg-dev"]), .brew(["jpeg-turbo"])]
        ),
        // libjpeg reports errors by longjmp, which Swift cannot catch: this C
        // shim holds the setjmp and turns errors into return codes and messages.
        .target(
            name: "CJPEGShim",
            dependencies: [.target(name: "CJPEG", condition: .when(platforms: [.linux]))],
            linkerSettings: [.linkedLibrary("jpeg", .when(platforms: [.linux]))]
        ),
        .target(
            name: "BaselinePersistence",
            dependencies: [
                "BaselineConcurrency",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Offline-first sync of SQLite records through a server.
        .target(
            name: "BaselineSync",
            dependencies: [
                "BaselineConcurrency",
                "BaselineHTTP",
                "BaselinePersistence",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "BaselineStore",
            dependencies: [
                "BaselineConcurrency",
                // Enum cases by key path (`@CasePathable`, `CaseKeyPath`).
                .product(name: "CasePaths", package: "swift-case-paths"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "BaselineTesting",
            dependencies: [
                "BaselineConcurrency",
                "BaselineHTTP",
                "BaselineStore",
                .product(name: "CustomDump", package: "swift-custom-dump"),
                .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
                // Lets IssueReporting reach Swift Testing and XCTest from any test target.
                .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "BaselineCombineTests",
            dependencies: ["BaselineCombine", "BaselineConcurrency", "BaselineTesting"]
        ),
        .testTarget(
            name: "BaselineConcurrencyTests",
            dependencies: ["BaselineConcurrency", "BaselineTesting", .product(name: "Clocks", package: "swift-clocks")]
        ),
        .testTarget(
            name: "BaselineHTTPTests",
            dependencies: [
                "BaselineConcurrency", "BaselineHTTP", "BaselineTesting",
                // zlib compresses what the decompression tests inflate.
                "CZlib",
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .testTarget(
            name: "BaselineImagesTests",
            dependencies: [
                "BaselineConcurrency", "BaselineHTTP", "BaselineImages", "BaselineTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "BaselinePersistenceTests",
            dependencies: [
                "BaselineConcurrency", "BaselinePersistence", "BaselineTesting", "PersistenceCrashHelper",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "BaselineSyncTests",
            dependencies: [
                "BaselineConcurrency", "BaselineHTTP", "BaselinePersistence", "BaselineSync", "BaselineTesting",
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .testTarget(
            name: "BaselineStoreTests",
            dependencies: ["BaselineConcurrency", "BaselineStore", "BaselineTesting"]
        ),
        .testTarget(
            name: "BaselineTestingTests",
            // Clocks: the documentation's examples drive time with swift-clocks' TestClock.
            dependencies: [
                "BaselineConcurrency", "BaselineHTTP", "BaselineStore", "BaselineTesting",
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // A child process for the durability test: killed in the middle of a write transaction.
        .executableTarget(
            name: "PersistenceCrashHelper",
            dependencies: ["BaselinePersistence", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Tests/PersistenceCrashHelper"
        ),
    ],
    swiftLanguageModes: [.v6]
)
