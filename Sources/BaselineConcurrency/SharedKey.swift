/// Where a shared value lives: in memory, in a file, in a database row.
///
/// A key says how to load the stored value, how to save a new one, and when
/// someone outside this process may have changed it. Every holder of a key
/// with the same ``id`` in a process sees one value: BaselineStore's
/// `Shared` state and `sharing` reducer keep them in step, and
/// BaselinePersistence makes keys for a JSON file (`.file(_:)`) and a row
/// of the app's database (`.row(_:in:)`).
///
/// ```swift
/// .sharing(\.tab, action: \.tab, .inMemory("tab"))
/// .sharing(\.tab, action: \.tab, .file(support.appending(path: "tab.json")))
/// .sharing(\.count, action: \.count, .row("counter", in: database))
/// ```
///
/// A key of your own (the keychain, `UserDefaults`) is a key with these
/// closures: ``load`` and ``save`` may throw, and the holders show the error.
public struct SharedKey<Value: Sendable>: Sendable {
    /// Names the stored value: two keys with the same id (and value type)
    /// share one value in the process. A file's or a row's key includes its
    /// path.
    public let id: String
    /// Reads the stored value; `nil` when nothing is stored yet (each holder
    /// keeps its initial value until one writes).
    public var load: @Sendable () async throws -> Value?
    /// Stores `value`, or `nil` for a value that lives only in memory. Saves
    /// of one key run one at a time, in order; a save still waiting when a
    /// newer value is written is skipped (the newer one is saved instead).
    public var save: (@Sendable (Value) async throws -> Void)?
    /// Signals that the stored value may have changed outside this process
    /// (a file replaced, a row committed by another connection); the value
    /// is then loaded again, and holders see it when it differs. Iterated
    /// while anyone holds the key.
    public var changes: @Sendable () -> AsyncStream<Void>

    /// A key with the given behaviour.
    public init(
        id: String,
        load: @escaping @Sendable () async throws -> Value?,
        save: (@Sendable (Value) async throws -> Void)?,
        changes: @escaping @Sendable () -> AsyncStream<Void> = { AsyncStream { _ in } }
    ) {
        self.id = id
        self.load = load
        self.save = save
        self.changes = changes
    }

    /// A value kept in memory for as long as the process runs: shared by
    /// every holder of `name`, lost at exit.
    public static func inMemory(_ name: String) -> SharedKey {
        SharedKey(id: "memory:\(name)", load: { nil }, save: nil)
    }
}
