// swift-tools-version: 6.2
//
// The SpacePhotos example app: a login, an HTTP tour, a to-do list, a fact
// counter and a space photo catalog on Baseline, against a real local HTTP server. This package, not Baseline's root, carries
// the server stack (Hummingbird), so apps using Baseline never build it.
//
// SpacePhotosAPI is the client swift-openapi-generator writes from
// openapi.json, generated once and committed (scripts/openapi-generate
// regenerates it; CI checks it is current): the generator's build plugin
// would build the generator with every clean build, minutes on a small machine.

import PackageDescription

let package = Package(
    name: "SpacePhotos",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .executable(name: "spacephotos", targets: ["spacephotos"]),
        .library(name: "SpacePhotosAPI", targets: ["SpacePhotosAPI"]),
        .library(name: "SpacePhotosCore", targets: ["SpacePhotosCore"]),
        .library(name: "SpacePhotosServer", targets: ["SpacePhotosServer"]),
        .library(name: "SpacePhotosTerminal", targets: ["SpacePhotosTerminal"]),
        .library(name: "TerminalUI", targets: ["TerminalUI"]),
    ],
    dependencies: [
        .package(name: "Baseline", path: "../.."),
        .package(name: "BaselineAsyncHTTPClient", path: "../../Transports/AsyncHTTPClient"),
        .package(name: "BaselineOpenAPI", path: "../../Transports/OpenAPI"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.8.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.20.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.0.0"),
        .package(url: "https://github.com/pointfreeco/swift-clocks.git", from: "1.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.0"),
    ],
    targets: [
        // The client generated from openapi.json (the member, photo and fact
        // operations), and nothing else: Generated/ is the generator's
        // output, its digest beside it.
        .target(
            name: "SpacePhotosAPI",
            dependencies: [.product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            exclude: ["openapi-generator-config.yaml", "Generated/GENERATED.sha256"]
        ),
        // The app's features (one store) and their clients: what an iOS or
        // macOS app target would hold.
        .target(
            name: "SpacePhotosCore",
            dependencies: [
                "SpacePhotosAPI",
                .product(name: "BaselineHTTP", package: "Baseline"),
                .product(name: "BaselineImages", package: "Baseline"),
                .product(name: "BaselinePersistence", package: "Baseline"),
                .product(name: "BaselineStore", package: "Baseline"),
                .product(name: "BaselineSync", package: "Baseline"),
                // The generated client's requests go through the app's HTTPClient.
                .product(name: "BaselineOpenAPI", package: "BaselineOpenAPI"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ]
        ),
        // A small terminal UI layer, ignorant of SpacePhotos: cell buffer and
        // diff, input decoding, raw mode with restore on every exit, the
        // render loop driven by Observation.
        .target(
            name: "TerminalUI",
            dependencies: [
                "CTerminalSupport",
                .product(name: "BaselineConcurrency", package: "Baseline"),
            ]
        ),
        // wcwidth and the crash-signal handler that restores the terminal:
        // the two pieces Swift cannot write itself.
        .target(name: "CTerminalSupport"),
        // The app's screens: pure functions of the store's state, and the
        // keys that send it actions. Also images drawn in half blocks.
        .target(
            name: "SpacePhotosTerminal",
            dependencies: [
                "SpacePhotosCore",
                "TerminalUI",
                .product(name: "BaselineImages", package: "Baseline"),
                .product(name: "BaselineStore", package: "Baseline"),
            ]
        ),
        // The example server (Hummingbird 2), embeddable in-process.
        .target(
            name: "SpacePhotosServer",
            dependencies: [
                "CImageEncoding",
                "CLibZ",
                // POST /sync/push, GET /sync/pull, GET /sync/live: the protocol's
                // messages, and the rows kept in SQLite.
                .product(name: "BaselineSync", package: "Baseline"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                // GET /favourites/live, the live favourites socket.
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                // The sync rows in PostgreSQL, for servers sharing one database.
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The server's image files are written by libpng and libjpeg-turbo,
        // the libraries BaselineImages decodes with on Linux; this C target
        // holds the setjmp that turns their longjmp errors into return codes.
        .target(name: "CImageEncoding", dependencies: ["CLibPNG", "CLibJPEG"]),
        .systemLibrary(name: "CLibPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"]), .brew(["libpng"])]),
        .systemLibrary(
            name: "CLibJPEG",
            pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg-dev"]), .brew(["jpeg-turbo"])]
        ),
        // CRC-32 and deflate for the one PNG assembled by hand (huge.png).
        .systemLibrary(name: "CLibZ", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        .executableTarget(
            name: "spacephotos",
            dependencies: [
                "SpacePhotosCore",
                "SpacePhotosServer",
                "SpacePhotosTerminal",
                "TerminalUI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // The live favourites' WebSocket on Linux.
                .product(name: "BaselineAsyncHTTPClient", package: "BaselineAsyncHTTPClient"),
                // The Combine-style API client the demo bridges to async.
                .product(name: "BaselineCombine", package: "Baseline"),
                .product(name: "BaselineConcurrency", package: "Baseline"),
                .product(name: "BaselineHTTP", package: "Baseline"),
                .product(name: "BaselineImages", package: "Baseline"),
                .product(name: "BaselinePersistence", package: "Baseline"),
                .product(name: "BaselineStore", package: "Baseline"),
                // RecordingMiddleware, which the demo uses to show coalescing.
                .product(name: "BaselineTesting", package: "Baseline"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "SpacePhotosCoreTests",
            dependencies: [
                "SpacePhotosCore",
                // The demo's bridges (AuthService, IDTokenStore, APIClient).
                "spacephotos",
                "SpacePhotosTerminal",
                "TerminalUI",
                .product(name: "BaselineImages", package: "Baseline"),
                .product(name: "BaselineConcurrency", package: "Baseline"),
                .product(name: "BaselineHTTP", package: "Baseline"),
                .product(name: "BaselinePersistence", package: "Baseline"),
                .product(name: "BaselineStore", package: "Baseline"),
                .product(name: "BaselineTesting", package: "Baseline"),
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // The real binary in a real terminal (tmux): the end-to-end test.
        .testTarget(
            name: "SpacePhotosAppTests",
            dependencies: ["spacephotos", "TerminalCrashProbe"]
        ),
        // A child process for the end-to-end test: takes the terminal over,
        // then crashes; the terminal must come back as it was.
        .executableTarget(
            name: "TerminalCrashProbe",
            dependencies: ["TerminalUI"],
            path: "Tests/TerminalCrashProbe"
        ),
        // A child process for the sync crash test: one device's sync cycle,
        // held where the test will SIGKILL it.
        .executableTarget(
            name: "SyncCrashProbe",
            dependencies: [
                "SpacePhotosCore",
                .product(name: "BaselineConcurrency", package: "Baseline"),
                .product(name: "BaselineHTTP", package: "Baseline"),
                .product(name: "BaselinePersistence", package: "Baseline"),
                .product(name: "BaselineSync", package: "Baseline"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tests/SyncCrashProbe"
        ),
        .testTarget(
            name: "TerminalUITests",
            dependencies: [
                "TerminalUI",
                // A pseudo-terminal to type into.
                "CTerminalSupport",
                .product(name: "BaselineConcurrency", package: "Baseline"),
                .product(name: "Clocks", package: "swift-clocks"),
            ]
        ),
        // What the server and integration tests share: the PostgreSQL
        // database they may use (BASELINE_POSTGRES_URL), a schema per test.
        .target(
            name: "SpacePhotosTestSupport",
            dependencies: [
                "SpacePhotosServer",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Tests/SpacePhotosTestSupport"
        ),
        // The server's parts on their own (byte ranges, the multipart
        // scanner, its bounded tables), and random requests through its
        // router in process (HummingbirdTesting).
        .testTarget(
            name: "SpacePhotosServerTests",
            dependencies: [
                "SpacePhotosServer",
                "SpacePhotosTestSupport",
                .product(name: "BaselineSync", package: "Baseline"),
                // Reads a sync store's file behind its back.
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                // A real WebSocket client for the live favourites endpoint.
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                // Drops each PostgreSQL test's schema.
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .testTarget(
            name: "SpacePhotosIntegrationTests",
            dependencies: [
                .product(name: "BaselineAsyncHTTPClient", package: "BaselineAsyncHTTPClient"),
                .product(name: "Clocks", package: "swift-clocks"),
                "SpacePhotosCore",
                "SpacePhotosServer",
                "SpacePhotosTestSupport",
                "SyncCrashProbe",
                // The demo's bridges (LegacyAuthAPI, AuthService, APIClient).
                "spacephotos",
                // The sync crash test reads the server's and the device's files.
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "BaselineConcurrency", package: "Baseline"),
                .product(name: "BaselineHTTP", package: "Baseline"),
                .product(name: "BaselineImages", package: "Baseline"),
                .product(name: "BaselineStore", package: "Baseline"),
                .product(name: "BaselineSync", package: "Baseline"),
                .product(name: "BaselineTesting", package: "Baseline"),
                // SHA-256 to check what the upload endpoint reports.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                // The generated client against the real server.
                "SpacePhotosAPI",
                .product(name: "BaselineOpenAPI", package: "BaselineOpenAPI"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                // Drops each PostgreSQL test's schema.
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
