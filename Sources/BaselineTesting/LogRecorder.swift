import BaselineConcurrency
import Logging

/// Records what code logs, so a test can check that something was logged
/// (a misuse warning) or that something never was (a password, a token).
///
/// ```swift
/// let logs = LogRecorder()
/// let service = AuthService(api: api, store: store, logger: logs.logger())
/// try await service.logIn(for: id, with: password)
/// #expect(!logs.text.contains(token.rawValue))
/// ```
public final class LogRecorder: Sendable {
    /// One recorded message.
    public struct Entry: Sendable {
        /// The level it was logged at.
        public let level: Logger.Level
        /// The message.
        public let message: String
        /// The metadata, rendered as text.
        public let metadata: [String: String]
        /// The label of the logger that logged it.
        public let label: String
    }

    private let recorded = LockedValue<[Entry]>([])

    /// A recorder with nothing recorded.
    public init() {}

    /// Everything recorded so far, in order.
    public var entries: [Entry] { recorded.current }

    /// Every entry as one text (messages and metadata), for `contains` checks.
    public var text: String {
        entries.map { entry in
            ([entry.message] + entry.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
                .joined(separator: " ")
        }.joined(separator: "\n")
    }

    /// A logger that records into this recorder.
    public func logger(label: String = "test", level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: label) { label in Handler(label: label, recorder: self) }
        logger.logLevel = level
        return logger
    }

    fileprivate func append(_ entry: Entry) {
        recorded.withLock { $0.append(entry) }
    }

    private struct Handler: LogHandler {
        let label: String
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
            recorder.append(
                Entry(
                    level: event.level,
                    message: event.message.description,
                    metadata: merged.mapValues(\.description),
                    label: label
                )
            )
        }
    }
}
