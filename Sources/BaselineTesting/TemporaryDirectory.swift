import Foundation

/// A new, empty directory under the system's temporary directory, removed
/// (with everything in it) when the value is released.
///
/// Keep it in a test suite's stored properties: Swift Testing makes a suite
/// instance per test, so each test gets its own directory, gone at its end.
///
/// ```swift
/// @Suite struct TodoFileTests {
///     let directory: TemporaryDirectory
///     init() throws { directory = try TemporaryDirectory() }
///
///     @Test func savesToDisk() async throws {
///         let url = directory.url.appendingPathComponent("todos.sqlite")
///         …
///     }
/// }
/// ```
public final class TemporaryDirectory: Sendable {
    /// The directory.
    public let url: URL

    /// Creates the directory; `prefix` starts its name, to tell whose it is.
    public init(prefix: String = "baseline-tests") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
