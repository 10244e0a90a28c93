// swift-tools-version: 6.2
//
// Checks run on an optimised (release) build, which the test suites (debug)
// never see. A task-local of closure type once crashed a presented child's
// effects in release builds only; this runs those paths optimised.
//
//   swift run -c release --package-path ReleaseChecks store-release-check

import PackageDescription

let package = Package(
    name: "ReleaseChecks",
    platforms: [.macOS(.v14), .iOS(.v17)],
    dependencies: [
        .package(name: "Baseline", path: "..")
    ],
    targets: [
        .executableTarget(
            name: "store-release-check",
            dependencies: [
                .product(name: "BaselineStore", package: "Baseline")
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        )
    ]
)
