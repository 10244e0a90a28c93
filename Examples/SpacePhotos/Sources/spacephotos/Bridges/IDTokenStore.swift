import BaselinePersistence
import Foundation
import Logging
import SpacePhotosCore

/// Keeps the ID token in a private file, off the main actor: a
/// ``SecureValueStore`` of ``IDToken``.
///
/// Writes are atomic (a new file renamed into place) with mode 0600, so a crash
/// mid-write leaves the previous token, and no other user can read it. A file
/// that cannot be read or parsed is a `SecureValueStoreError`, never a crash.
/// The token never appears in its logs or errors.
///
/// ```swift
/// let store = IDTokenStore(fileURL: dataDirectory.appendingPathComponent("id-token.json"))
/// try await store.update(token)
/// let saved = try await store.load()    // nil when logged out
/// try await store.clear()
/// ```
public actor IDTokenStore {
    private let storage: SecureValueStore<IDToken>

    /// The file the token lives in.
    public nonisolated var fileURL: URL { storage.fileURL }

    /// A store for the token in `fileURL`; nothing is read or written until asked.
    public init(fileURL: URL, logger: Logger = Logger(label: "spacephotos.token-store")) {
        self.storage = SecureValueStore(fileURL: fileURL, logger: logger)
    }

    /// Stores `token`, replacing any earlier one.
    public func update(_ token: IDToken) async throws(SecureValueStoreError) {
        try await storage.save(token)
    }

    /// The stored token, or `nil` when there is none.
    public func load() async throws(SecureValueStoreError) -> IDToken? {
        guard let token = try await storage.load() else { return nil }
        // An empty token is no token: the file was not written by us.
        guard !token.rawValue.isEmpty else { throw .corrupt(path: fileURL.path) }
        return token
    }

    /// Removes the stored token (logging out). Clearing an empty store is fine.
    public func clear() async throws(SecureValueStoreError) {
        try await storage.clear()
    }
}
