import Foundation
import Logging

/// Keeps one `Codable` value in a private file: a token, a session, settings.
///
/// Writes are atomic (``AtomicFile``: a new file renamed into place, flushed
/// to disk) with mode 0600, so a crash mid-write leaves the previous value and
/// no other user can read it. A file that cannot be read or parsed is a
/// ``SecureValueStoreError``, never a crash. Values never appear in its logs or
/// errors.
///
/// The file is read and written off the caller's actor, one operation at a
/// time; the value is encoded and decoded on the caller's actor. A value is
/// small (at most ``maximumFileSize``), and that is what lets a type whose
/// `Codable` conformance is isolated to the main actor be stored from the
/// main actor: in an Xcode 26 app target, where a `struct Session: Codable`
/// is main-actor isolated by default, it needs no `nonisolated`.
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
public final class SecureValueStore<Value: Codable>: Sendable {
    /// A small versioned envelope, so that a damaged or foreign file is
    /// recognised as such instead of being mistaken for a value.
    private struct Envelope: Codable {
        var version: Int
        var value: Value
    }

    /// Files larger than this are not ours: refuse them rather than read them.
    public static var maximumFileSize: Int { 1024 * 1024 }

    /// The file the value lives in.
    public let fileURL: URL
    private let file: SecureFileSlot
    private let logger: Logger

    /// A store for the value in `fileURL` (created, with its directory, on first save).
    public init(fileURL: URL, logger: Logger = Logger(label: "baseline.secure-value-store")) {
        self.fileURL = fileURL
        self.file = SecureFileSlot(url: fileURL, maximumSize: Self.maximumFileSize)
        self.logger = logger
    }

    /// Stores `value`, replacing any earlier one.
    nonisolated(nonsending) public func save(_ value: Value) async throws(SecureValueStoreError) {
        let data: Data
        do {
            data = try JSONEncoder().encode(Envelope(version: 1, value: value))
        } catch {
            throw .unwritable(path: fileURL.path, reason: "the value could not be encoded")
        }
        try await file.write(data)
        logger.debug("Stored a value", metadata: ["path": "\(fileURL.path)"])
    }

    /// The stored value, or `nil` when there is none.
    nonisolated(nonsending) public func load() async throws(SecureValueStoreError) -> Value? {
        guard let data = try await file.read() else { return nil }
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: data), envelope.version == 1 else {
            logger.warning("The stored value's file is corrupt", metadata: ["path": "\(fileURL.path)"])
            throw .corrupt(path: fileURL.path)
        }
        return envelope.value
    }

    /// Removes the stored value. Clearing an empty store is fine.
    nonisolated(nonsending) public func clear() async throws(SecureValueStoreError) {
        try await file.remove()
    }
}

/// The file behind a ``SecureValueStore``: its bytes only, so that its work
/// runs off the caller's actor, one operation at a time.
private actor SecureFileSlot {
    let url: URL
    let maximumSize: Int

    init(url: URL, maximumSize: Int) {
        self.url = url
        self.maximumSize = maximumSize
    }

    func write(_ data: Data) throws(SecureValueStoreError) {
        do {
            try AtomicFile.write(data, to: url)
        } catch {
            throw .unwritable(path: url.path, reason: error.description)
        }
    }

    func read() throws(SecureValueStoreError) -> Data? {
        let path = url.path
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            if let size = attributes[.size] as? NSNumber, size.int64Value > Int64(maximumSize) {
                throw SecureValueStoreError.corrupt(path: path)
            }
            return try Data(contentsOf: url)
        } catch let error as SecureValueStoreError {
            throw error
        } catch {
            throw .unreadable(path: path, reason: (error as NSError).localizedDescription)
        }
    }

    func remove() throws(SecureValueStoreError) {
        do {
            try FileManager.default.removeItem(at: url)
        } catch {
            guard FileManager.default.fileExists(atPath: url.path) else { return }
            throw .unwritable(path: url.path, reason: (error as NSError).localizedDescription)
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
