import Foundation
import Logging

/// The messages a server logs, as an async sequence: a test waits for the
/// server to reach a point ("Slow answer: waiting") instead of guessing
/// when it has.
///
/// ```swift
/// let events = ServerLogEvents()
/// try await withServer({ $0.logger = events.logger() }) { server in
///     ...
///     try await events.first(containing: "Slow answer: waiting")
/// }
/// ```
final class ServerLogEvents: Sendable {
    private let stream: AsyncStream<String>
    private let sink: AsyncStream<String>.Continuation

    init() {
        (stream, sink) = AsyncStream.makeStream(of: String.self)
    }

    /// A logger at debug level that reports every message here.
    func logger(label: String = "spacephotos.server") -> Logger {
        let sink = self.sink
        var logger = Logger(label: label) { _ in Handler(sink: sink) }
        logger.logLevel = .debug
        return logger
    }

    /// Returns when a message containing `text` is logged (or was, since the
    /// last call); throws when the events end first.
    func first(containing text: String) async throws {
        for await message in stream where message.contains(text) { return }
        throw CancellationError()
    }

    private struct Handler: LogHandler {
        let sink: AsyncStream<String>.Continuation
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .debug

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            sink.yield(event.message.description)
        }
    }
}
