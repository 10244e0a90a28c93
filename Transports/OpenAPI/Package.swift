// swift-tools-version: 6.2
//
// Baseline's OpenAPI transport: a separate package so that apps that do not
// use swift-openapi-generator never resolve or build its runtime.

import PackageDescription

let package = Package(
    name: "BaselineOpenAPI",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "BaselineOpenAPI", targets: ["BaselineOpenAPI"])
    ],
    dependencies: [
        .package(name: "Baseline", path: "../.."),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.3.0"),
    ],
    targets: [
        .target(
            name: "BaselineOpenAPI",
            dependencies: [
                .product(name: "BaselineConcurrency", package: "Baseline"),
                .product(name: "BaselineHTTP", package: "Baseline"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .testTarget(
            name: "BaselineOpenAPITests",
            dependencies: [
                "BaselineOpenAPI",
                .product(name: "BaselineConcurrency", package: "Baseline"),
                .product(name: "BaselineHTTP", package: "Baseline"),
                .product(name: "BaselineTesting", package: "Baseline"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            // The client the tests drive is generated from this document
            // once and committed (scripts/openapi-generate; see the README
            // there): the generator's build plugin would add minutes to
            // every clean build.
            exclude: [
                "Generated/openapi.yaml",
                "Generated/openapi-generator-config.yaml",
                "Generated/README.md",
                "Generated/GENERATED.sha256",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
