// swift-tools-version: 6.2
//
// Fuzz targets for the parsers written in this repository: one executable per
// parser, each defining libFuzzer's `LLVMFuzzerTestOneInput`. Built only by
// `Fuzz/run` (with `-sanitize=fuzzer,address`), never by CI's normal builds.
//
// Parsers of the root package are reached with `@testable import` (a debug
// build is testable). The example app's parsers are self-contained files that
// each target compiles itself, through a symbolic link to the file: building
// the server module would build Hummingbird and NIO with sanitizers.
//
// Linux only: the swift.org toolchain for Linux ships libFuzzer.

import PackageDescription

let fuzzTargets: [(name: String, dependencies: [String])] = [
    ("FuzzEXIFOrientation", ["BaselineImages"]),
    ("FuzzImageDecoding", ["BaselineImages"]),
    ("FuzzServerSentEvents", ["BaselineHTTP"]),
    ("FuzzServerSentEventLimits", ["BaselineHTTP"]),
    ("FuzzLines", ["BaselineHTTP"]),
    ("FuzzCacheControl", ["BaselineHTTP", "HTTPTypes"]),
    ("FuzzHTTPDate", ["BaselineHTTP"]),
    ("FuzzRetryAfter", ["BaselineHTTP", "HTTPTypes"]),
    ("FuzzMediaTypeRange", ["BaselineHTTP"]),
    ("FuzzWWWAuthenticate", ["BaselineHTTP", "HTTPTypes"]),
    ("FuzzMultipartScanner", []),
    ("FuzzMultipartForm", ["BaselineHTTP"]),
    ("FuzzCalendarDay", []),
    ("FuzzPhotoDay", []),
    ("FuzzBasicCredentials", []),
    ("FuzzInputDecoder", []),
    ("FuzzEntityTagList", ["Crypto"]),
    ("FuzzCacheHeaders", ["BaselineHTTP", "HTTPTypes"]),
    ("FuzzCacheRecord", ["BaselineHTTP", "HTTPTypes"]),
    ("FuzzContentRange", ["BaselineHTTP"]),
    ("FuzzClient", ["BaselineHTTP", "BaselineConcurrency", "HTTPTypes"]),
    ("FuzzByteRange", []),
]

/// A dependency by name: the stand-in for Crypto, or a product.
func dependency(_ name: String) -> Target.Dependency {
    if name == "Crypto" { return .target(name: "Crypto") }
    return name == "HTTPTypes"
        ? .product(name: name, package: "swift-http-types")
        : .product(name: name, package: "Baseline")
}

let package = Package(
    name: "BaselineFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Baseline", path: ".."),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.3.0"),
    ],
    targets: [
        .target(name: "CFuzzer"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzer"]),
        // EntityTag.swift imports Crypto for its digests only: see the file.
        .target(name: "Crypto", path: "Sources/CryptoStandIn"),
    ]
        + fuzzTargets.map { target in
            .executableTarget(
                name: target.name,
                dependencies: ["FuzzSupport"] + target.dependencies.map(dependency)
            )
        }
)
