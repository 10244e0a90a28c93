import Foundation
import Logging
import PostgresNIO
import SpacePhotosServer
import Testing

/// The PostgreSQL database the sync tests may use: `BASELINE_POSTGRES_URL`
/// (`scripts/postgres start` starts one and prints it).
///
/// Without it, PostgreSQL tests are skipped with a message; with
/// `BASELINE_REQUIRE_POSTGRES=1` (CI), they fail instead, so that a missing
/// or unreachable database cannot pass for a green run.
public enum PostgresTestDatabase {
    /// `BASELINE_POSTGRES_URL`, nil when unset or empty.
    public static let url: URL? = ProcessInfo.processInfo.environment["BASELINE_POSTGRES_URL"].flatMap {
        $0.isEmpty ? nil : URL(string: $0)
    }

    /// Whether `BASELINE_REQUIRE_POSTGRES=1`: a missing database fails the tests.
    public static let isRequired = ProcessInfo.processInfo.environment["BASELINE_REQUIRE_POSTGRES"] == "1"

    /// Whether PostgreSQL tests run: with a URL, or failing when one is required.
    public static let isEnabled = url != nil || isRequired

    /// Warnings only: a store stopped as it connects says so at `info`.
    public static let logger: Logger = {
        var logger = Logger(label: "tests.postgres")
        logger.logLevel = .warning
        return logger
    }()

    /// Why PostgreSQL tests did not run.
    public static let skipMessage: Comment =
        "PostgreSQL not tested: set BASELINE_POSTGRES_URL (scripts/postgres start prints one)"

    /// Runs `body` with the database's URL and a schema of its own, dropped
    /// afterwards; without a URL, records why and does not run it.
    public static func withSchema(_ body: (URL, String) async throws -> Void) async throws {
        guard let url else {
            if isRequired {
                Issue.record("BASELINE_REQUIRE_POSTGRES=1, but BASELINE_POSTGRES_URL is not set")
            } else {
                // Shown as a known issue: the run says PostgreSQL was not tested.
                withKnownIssue(skipMessage) { Issue.record(skipMessage) }
            }
            return
        }
        let schema = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        do {
            try await body(url, schema)
        } catch {
            try? await drop(schema, at: url)
            throw error
        }
        try await drop(schema, at: url)
    }

    /// Removes `schema` and its tables.
    public static func drop(_ schema: String, at url: URL) async throws {
        try await withConnection(to: url) { connection in
            try await connection.query("DROP SCHEMA IF EXISTS \(unescaped: "\"\(schema)\"") CASCADE", logger: logger)
        }
    }

    /// Runs `body` on a connection of its own to `url`, closed afterwards.
    @discardableResult
    public static func withConnection<Result>(
        to url: URL,
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let connection = try await PostgresConnection.connect(
            configuration: try PostgresSyncStore.connectionConfiguration(for: url),
            id: 1,
            logger: logger
        )
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
