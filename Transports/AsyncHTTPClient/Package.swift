// swift-tools-version: 6.2
//
// Baseline's AsyncHTTPClient transport: a separate package so that apps using
// BaselineHTTP over URLSession never resolve or build SwiftNIO.

import PackageDescription

let package = Package(
    name: "BaselineAsyncHTTPClient",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "BaselineAsyncHTTPClient", targets: ["BaselineAsyncHTTPClient"])
    ],
    dependencies: [
        .package(name: "Baseline", path: "../.."),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        // Already in the graph through AsyncHTTPClient: TLS for `wss`.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.27.0"),
    ],
    targets: [
        .target(
            name: "BaselineAsyncHTTPClient",
            dependencies: [
                .product(name: "BaselineConcurrency", package: "Baseline"),
                .product(name: "BaselineHTTP", package: "Baseline"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "BaselineAsyncHTTPClientTests",
            dependencies: [
                "BaselineAsyncHTTPClient",
                .product(name: "BaselineConcurrency", package: "Baseline"),
                .product(name: "BaselineHTTP", package: "Baseline"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
