import Foundation
import Logging

/// Keeps the ID token in a private file, off the main actor.
///
/// Writes are atomic (a new file renamed into place) with mode 0600, so a crash
/// mid-write leaves the previous token, and no other user can read it. A file
/// that cannot be read or parsed is an ``IDTokenStoreError``, never a crash.
/// The token never appears in its logs or errors.
///
/// ```swift
/// let store = IDTokenStore(fileURL: dataDirectory.appendingPathComponent("id-token.json"))
/// try await store.update(token)
/// let saved = try await store.load()    // nil when logged out
/// try await store.clear()
/// ```
public actor IDTokenStore {
    /// The file is a small versioned JSON document, so that a damaged or
    /// foreign file is recognised as such instead of being taken for a token.
    private struct Document: Codable {
        var version: Int
        var idToken: IDToken
    }

    /// Files larger than this are not tokens: refuse them rather than read them.
    static let maximumFileSize = 64 * 1024

    public nonisolated let fileURL: URL
    private let logger: Logger

    public init(fileURL: URL, logger: Logger = Logger(label: "spacephotos.token-store")) {
        self.fileURL = fileURL
        self.logger = logger
    }

    /// Stores `token`, replacing any earlier one.
    public func update(_ token: IDToken) throws(IDTokenStoreError) {
        let data: Data
        do {
            data = try JSONEncoder().encode(Document(version: 1, idToken: token))
        } catch {
            throw .unwritable(path: fileURL.path, reason: "encoding failed")
        }
        do {
            try AtomicFile.write(data, to: fileURL)
        } catch {
            throw .unwritable(path: fileURL.path, reason: error.description)
        }
        logger.debug("Stored the ID token", metadata: ["path": "\(fileURL.path)"])
    }

    /// The stored token, or `nil` when there is none.
    public func load() throws(IDTokenStoreError) -> IDToken? {
        let path = fileURL.path
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let data: Data
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            if let size = attributes[.size] as? NSNumber, size.intValue > Self.maximumFileSize {
                throw IDTokenStoreError.corrupt(path: path)
            }
            data = try Data(contentsOf: fileURL)
        } catch let error as IDTokenStoreError {
            throw error
        } catch {
            throw .unreadable(path: path, reason: (error as NSError).localizedDescription)
        }
        guard let document = try? JSONDecoder().decode(Document.self, from: data),
              document.version == 1, !document.idToken.rawValue.isEmpty
        else {
            logger.warning("The ID token file is corrupt", metadata: ["path": "\(path)"])
            throw .corrupt(path: path)
        }
        return document.idToken
    }

    /// Removes the stored token (logging out). Clearing an empty store is fine.
    public func clear() throws(IDTokenStoreError) {
        do {
            try FileManager.default.removeItem(at: fileURL)
        } catch CocoaError.fileNoSuchFile {
            return
        } catch {
            guard FileManager.default.fileExists(atPath: fileURL.path) else { return }
            throw .unwritable(path: fileURL.path, reason: (error as NSError).localizedDescription)
        }
    }
}

/// Why the token store failed. Never carries the token.
public enum IDTokenStoreError: Error, Equatable, Sendable {
    /// The file exists but is not a token document (damaged, truncated, foreign).
    case corrupt(path: String)
    /// The file exists but could not be read.
    case unreadable(path: String, reason: String)
    /// The token could not be written or removed.
    case unwritable(path: String, reason: String)
}
