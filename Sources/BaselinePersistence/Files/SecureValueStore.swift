import Foundation
import Logging

/// Keeps one `Codable` value in a private file: a token, a session, settings.
///
/// Writes are atomic (``AtomicFile``: a new file renamed into place, flushed
/// to disk) with mode 0600, so a crash mid-write leaves the previous value and
/// no other user can read it. A file that cannot be read or parsed is a
/// ``SecureValueStoreError``, never a crash. Values never appear in its logs or
/// errors. Work runs on the actor, off the main actor.
///
/// This is a file with owner-only permissions, not a keychain: on Apple
/// platforms, prefer the Keychain for credentials that must survive a device
/// backup unencrypted.
///
/// ```swift
/// let session = SecureValueStore<Session>(fileURL: dataDirectory.appendingPathComponent("session.json"))
/// try await session.save(Session(token: token, userID: id))
/// let restored = try await session.load()   // nil when nothing is stored
/// try await session.clear()
/// ```
public actor SecureValueStore<Value: Codable & Sendable> {
    /// A small versioned envelope, so that a damaged or foreign file is
    /// recognised as such instead of being mistaken for a value.
    private struct Envelope: Codable {
        var version: Int
        var value: Value
    }

    /// Files larger than this are not ours: refuse them rather than read them.
    public static var maximumFileSize: Int { 1024 * 1024 }

    /// The file the value lives in.
    public nonisolated let fileURL: URL
    private let logger: Logger

    /// A store for the value in `fileURL` (created, with its directory, on first save).
    public init(fileURL: URL, logger: Logger = Logger(label: "baseline.secure-value-store")) {
        self.fileURL = fileURL
        self.logger = logger
    }

    /// Stores `value`, replacing any earlier one.
    public func save(_ value: Value) throws(SecureValueStoreError) {
        let data: Data
        do {
            data = try JSONEncoder().encode(Envelope(version: 1, value: value))
        } catch {
            throw .unwritable(path: fileURL.path, reason: "the value could not be encoded")
        }
        do {
            try AtomicFile.write(data, to: fileURL)
        } catch {
            throw .unwritable(path: fileURL.path, reason: error.description)
        }
        logger.debug("Stored a value", metadata: ["path": "\(fileURL.path)"])
    }

    /// The stored value, or `nil` when there is none.
    public func load() throws(SecureValueStoreError) -> Value? {
        let path = fileURL.path
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let data: Data
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            if let size = attributes[.size] as? NSNumber, size.intValue > Self.maximumFileSize {
                throw SecureValueStoreError.corrupt(path: path)
            }
            data = try Data(contentsOf: fileURL)
        } catch let error as SecureValueStoreError {
            throw error
        } catch {
            throw .unreadable(path: path, reason: (error as NSError).localizedDescription)
        }
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: data), envelope.version == 1 else {
            logger.warning("The stored value's file is corrupt", metadata: ["path": "\(path)"])
            throw .corrupt(path: path)
        }
        return envelope.value
    }

    /// Removes the stored value. Clearing an empty store is fine.
    public func clear() throws(SecureValueStoreError) {
        do {
            try FileManager.default.removeItem(at: fileURL)
        } catch {
            guard FileManager.default.fileExists(atPath: fileURL.path) else { return }
            throw .unwritable(path: fileURL.path, reason: (error as NSError).localizedDescription)
        }
    }
}

/// Why a ``SecureValueStore`` failed. Never carries the value.
public enum SecureValueStoreError: Error, Equatable, Sendable {
    /// The file exists but does not hold a value (damaged, truncated, foreign).
    case corrupt(path: String)
    /// The file exists but could not be read.
    case unreadable(path: String, reason: String)
    /// The value could not be written or removed.
    case unwritable(path: String, reason: String)
}
