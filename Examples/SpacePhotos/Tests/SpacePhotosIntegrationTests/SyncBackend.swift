import BaselineTesting
import Foundation
import SpacePhotosServer
import SpacePhotosTestSupport
import Testing

/// The durable stores a sync test runs against: an SQLite file, and
/// PostgreSQL when `BASELINE_POSTGRES_URL` names one (``PostgresTestDatabase``).
enum SyncBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// Runs `body` with fresh storage of this kind (a new file, or a new
    /// schema), removed afterwards; records why when PostgreSQL is not set up.
    func withStorage(_ body: (SyncStorage) async throws -> Void) async throws {
        switch self {
        case .sqlite:
            let directory = try TemporaryDirectory()
            defer { withExtendedLifetime(directory) {} }
            try await body(.sqlite(directory.url.appendingPathComponent("sync.sqlite")))
        case .postgres:
            try await PostgresTestDatabase.withSchema { url, schema in
                try await body(.postgres(url, schema: schema))
            }
        }
    }
}
