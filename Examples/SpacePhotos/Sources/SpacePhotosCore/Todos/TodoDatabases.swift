import BaselinePersistence
import Foundation
import GRDB

/// Each member's own to-do database, one open at a time: the logged-in
/// member's.
///
/// ```swift
/// try await databases.open(for: member)        // at login: closes the last member's
/// let database = try databases.current()       // what the list and its sync use
/// ```
///
/// A file per member, because a to-do database holds more than the list:
/// the changes not yet synced are its member's, and must never be sent
/// under another login (the sync engine refuses a database bound to
/// another account; this keeps each member's list working). A member who
/// logs in again finds their list, unsent changes included, as they left it.
public actor TodoDatabases {
    /// Opens a member's database.
    public typealias Opener = @Sendable (User.ID) async throws -> SQLiteDatabase

    private let opener: Opener
    private var current: (member: User.ID, database: SQLiteDatabase)?
    /// Counts opens, so that an open overtaken by a later one gives way.
    private var generation = 0

    /// Databases that `opener` opens, one per member.
    public init(opener: @escaping Opener) {
        self.opener = opener
    }

    /// A file per member in `directory`, `todos-<member>.sqlite` (the id
    /// percent-encoded), migrated with ``TodoSchema/migrator``.
    ///
    /// The single `todos.sqlite` of earlier versions becomes the file of the
    /// first member to log in, if it synced for no one or for them.
    public static func files(
        in directory: URL,
        configuration: GRDB.Configuration = GRDB.Configuration()
    ) -> TodoDatabases {
        TodoDatabases { member in
            let file = file(for: member, in: directory)
            try await adoptSharedFile(in: directory, as: file, for: member, configuration: configuration)
            return try await SQLiteDatabase.open(at: file, migrator: TodoSchema.migrator, configuration: configuration)
        }
    }

    /// Opens `member`'s database, closing the one open before; nothing
    /// happens when it is `member`'s already.
    ///
    /// - Throws: What opening threw, or `CancellationError` when another
    ///   open started meanwhile (that one wins).
    public func open(for member: User.ID) async throws {
        if current?.member == member { return }
        generation += 1
        let mine = generation
        let previous = current
        current = nil
        try? await previous?.database.close()
        let database = try await opener(member)
        guard generation == mine else {
            try? await database.close()
            throw CancellationError()
        }
        current = (member, database)
    }

    /// The open database.
    ///
    /// - Throws: ``TodoError/noList`` before a member's is open.
    public func database() throws(TodoError) -> SQLiteDatabase {
        guard let current else { throw .noList }
        return current.database
    }

    /// `member`'s database, if it is the open one.
    ///
    /// - Throws: ``TodoError/noList`` when another member's, or none, is open.
    public func database(for member: User.ID) throws(TodoError) -> SQLiteDatabase {
        guard let current, current.member == member else { throw .noList }
        return current.database
    }

    /// `member`'s file in `directory`: `todos-<member>.sqlite`.
    public static func file(for member: User.ID, in directory: URL) -> URL {
        directory.appendingPathComponent("todos-\(fileName(for: member)).sqlite")
    }

    /// A member id as a file name: ASCII letters, digits, `-` and `_` as
    /// they are, every other byte of its UTF-8 percent-encoded, so no id
    /// names a path and every platform spells the name alike.
    static func fileName(for member: User.ID) -> String {
        var name = ""
        for byte in member.rawValue.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                name.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                name += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return name
    }

    /// Moves the shared `todos.sqlite` (with its journal files) to `file`
    /// when `file` does not exist yet and the shared one is `member`'s to
    /// take.
    private static func adoptSharedFile(
        in directory: URL,
        as file: URL,
        for member: User.ID,
        configuration: GRDB.Configuration
    ) async throws {
        let shared = directory.appendingPathComponent("todos.sqlite")
        let files = FileManager.default
        guard !files.fileExists(atPath: file.path), files.fileExists(atPath: shared.path) else { return }
        let database = try await SQLiteDatabase.open(
            at: shared,
            migrator: TodoSchema.migrator,
            configuration: configuration
        )
        let account = try await database.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM _sync_state WHERE key = 'account'")
        }
        try await database.close()
        guard account == nil || account == member.rawValue else { return }
        for suffix in ["", "-wal", "-shm"] {
            let from = URL(fileURLWithPath: shared.path + suffix)
            guard files.fileExists(atPath: from.path) else { continue }
            try files.moveItem(at: from, to: URL(fileURLWithPath: file.path + suffix))
        }
    }
}

extension String {
    fileprivate nonisolated func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
