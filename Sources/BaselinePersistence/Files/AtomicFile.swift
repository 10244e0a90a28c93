import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole-file writes that readers never see half done, for small private files.
///
/// The bytes go to a new temporary file in the same directory (created with
/// mode 0600, never readable by others, not even for an instant), are flushed
/// to disk, and the temporary file is renamed over the destination. `rename`
/// is atomic within a file system: a reader, or a crash, sees the old file or
/// the new one, never a mix.
public enum AtomicFile {
    /// Which step failed, and the system's reason.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// The step that failed: `open`, `write`, `fsync`, `rename`…
        public var operation: String
        /// The system's explanation.
        public var reason: String
        /// The step and the reason, as in `rename failed: No such file or directory`.
        public var description: String { "\(operation) failed: \(reason)" }

        init(operation: String, reason: String) {
            self.operation = operation
            self.reason = reason
        }

        init(operation: String, code: Int32) {
            self.init(operation: operation, reason: String(cString: strerror(code)))
        }
    }

    /// Writes `data` to `url` atomically, the file ending with mode `permissions`.
    public static func write(_ data: Data, to url: URL, permissions: mode_t = 0o600) throws(Failure) {
        let directory = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(
                at: directory,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw Failure(operation: "create directory", reason: (error as NSError).localizedDescription)
        }
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp").path
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
        guard fd >= 0 else { throw Failure(operation: "open", code: errno) }
        var renamed = false
        defer { if !renamed { unlink(temporary) } }
        do {
            defer { close(fd) }
            // The umask may have taken bits away; make the mode exactly what was asked.
            guard fchmod(fd, permissions) == 0 else { throw Failure(operation: "chmod", code: errno) }
            try writeAll(data, to: fd)
            guard fsync(fd) == 0 else { throw Failure(operation: "fsync", code: errno) }
        }
        guard rename(temporary, url.path) == 0 else { throw Failure(operation: "rename", code: errno) }
        renamed = true
        // Flush the directory entry too, so the rename itself survives a crash.
        let directoryFD = open(directory.path, O_RDONLY | O_CLOEXEC)
        if directoryFD >= 0 {
            _ = fsync(directoryFD)
            close(directoryFD)
        }
    }

    private static func writeAll(_ data: Data, to fd: Int32) throws(Failure) {
        let failure: Failure? = data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return Failure(operation: "write", code: errno)
                }
                offset += written
            }
            return nil
        }
        if let failure { throw failure }
    }
}
