import BaselineConcurrency
import Foundation
import Logging

/// Log lines appended to a file: the terminal app owns the screen, so its
/// log cannot go to standard error.
struct FileLogHandler: LogHandler {
    private let file: SharedFile
    private let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Sends every logger's lines to the file at `path` (created if needed).
    static func bootstrap(path: String) throws {
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
        }
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
        handle.seekToEndOfFile()
        let file = SharedFile(handle: handle)
        LoggingSystem.bootstrap { label in FileLogHandler(file: file, label: label) }
    }

    private init(file: SharedFile, label: String) {
        self.file = file
        self.label = label
    }

    func log(event: LogEvent) {
        let fields = metadata.merging(event.metadata ?? [:]) { $1 }
        let suffix =
            fields.isEmpty
            ? "" : " " + fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let line = "\(Date().formatted(.iso8601)) \(event.level) \(label): \(event.message)\(suffix)\n"
        file.append(Data(line.utf8))
    }

    /// One handle for every logger, written under a lock.
    final class SharedFile: Sendable {
        private let handle: LockedValue<FileHandle>

        init(handle: FileHandle) {
            self.handle = LockedValue(handle)
        }

        func append(_ data: Data) {
            handle.withLock { $0.write(data) }
        }
    }
}
