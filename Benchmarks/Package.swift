// swift-tools-version: 6.2
//
// Baseline's benchmarks: speed targets are measured here, in release builds,
// never in timed unit tests.
//
//   swift run -c release --package-path Benchmarks baseline-benchmarks [persistence] [store] [images] [terminal] [http] [http-quick] [body-parsing] [websocket] [openapi] [sync] [sync-server]

import PackageDescription

let package = Package(
    name: "BaselineBenchmarks",
    platforms: [.macOS(.v14), .iOS(.v17)],
    dependencies: [
        .package(name: "Baseline", path: ".."),
        .package(name: "SpacePhotos", path: "../Examples/SpacePhotos"),
        .package(name: "BaselineAsyncHTTPClient", path: "../Transports/AsyncHTTPClient"),
        .package(name: "BaselineOpenAPI", path: "../Transports/OpenAPI"),
        // The OpenAPI rows' references: the runtime's own transports.
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession.git", from: "1.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.3.0"),
        // Already in the graph through the example server: the raw WebSocket client row.
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.5.0"),
        // Already in the graph through the example server: drops the sync rows' schemas.
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.0"),
    ],
    targets: [
        .executableTarget(
            name: "baseline-benchmarks",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "BaselineAsyncHTTPClient", package: "BaselineAsyncHTTPClient"),
                .product(name: "BaselineOpenAPI", package: "BaselineOpenAPI"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "SpacePhotosAPI", package: "SpacePhotos"),
                .product(name: "BaselineConcurrency", package: "Baseline"),
                .product(name: "BaselineHTTP", package: "Baseline"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "SpacePhotosServer", package: "SpacePhotos"),
                .product(name: "BaselinePersistence", package: "Baseline"),
                .product(name: "BaselineStore", package: "Baseline"),
                .product(name: "BaselineSync", package: "Baseline"),
                .product(name: "BaselineTesting", package: "Baseline"),
                .product(name: "SpacePhotosCore", package: "SpacePhotos"),
                .product(name: "SpacePhotosTerminal", package: "SpacePhotos"),
                .product(name: "TerminalUI", package: "SpacePhotos"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "BaselineImages", package: "Baseline"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                "DirectImageDecoding",
            ]
        ),
        // libpng and libjpeg called directly: the decoders' yardstick.
        .target(
            name: "DirectImageDecoding",
            linkerSettings: [
                .linkedLibrary("png16", .when(platforms: [.linux])),
                .linkedLibrary("jpeg", .when(platforms: [.linux])),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
