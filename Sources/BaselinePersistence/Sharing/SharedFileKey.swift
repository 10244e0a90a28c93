public import BaselineConcurrency
public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension SharedKey where Value: Codable {
    /// A value stored as JSON in the file at `url`.
    ///
    /// ```swift
    /// .sharing(\.tab, action: \.tab, .file(support.appending(path: "tab.json")))
    /// ```
    ///
    /// - **Saving** replaces the file atomically (``AtomicFile``): a reader,
    ///   another process or a crash sees the old file or the new one, never
    ///   half of each. Two processes saving: the last complete write wins.
    /// - **Owner only** (`ownerOnly`) makes the file mode 0600; otherwise 0644.
    ///   The folder is made, mode 0700, when missing.
    /// - **Other processes.** While the key is held, its folder is watched:
    ///   a file another process writes is loaded, and holders see it. Write
    ///   the file as this key does, by replacing it (a program writing it in
    ///   place may be read half done, and that file moved aside).
    ///   Each folder watched takes an inotify instance on Linux (128 per user
    ///   by default); past the limit, holders still share values within the
    ///   process but no longer hear other processes.
    /// - **Bad files.** A file that does not decode is moved aside, next to
    ///   it, as `<name>.corrupt` (`.corrupt-2`, … when that is taken: an
    ///   earlier one is never overwritten) — that file only: one that
    ///   replaced it since it was read stays — and the load fails with
    ///   ``SharedFileError/corrupt(movedTo:reason:)``: the holders show their
    ///   initial value and the error, and the next save writes a new file.
    ///   A file larger than `maximumSize` is ``SharedFileError/tooLarge(size:limit:)``
    ///   and left where it is.
    public static func file(
        _ url: URL,
        ownerOnly: Bool = false,
        maximumSize: Int = 4 << 20,
        encoder: JSONEncoder = JSONEncoder(),
        decoder: JSONDecoder = JSONDecoder()
    ) -> SharedKey {
        let file = SharedFile(
            url: url.standardizedFileURL,
            permissions: ownerOnly ? 0o600 : 0o644,
            maximumSize: maximumSize
        )
        return SharedKey(
            id: "file:\(file.url.path)",
            load: {
                guard let (data, identity) = try file.read() else { return nil }
                do {
                    return try decoder.decode(Value.self, from: data)
                } catch {
                    throw file.moveAside(identity, reason: String(describing: error))
                }
            },
            save: { value in
                let data: Data
                do { data = try encoder.encode(value) } catch {
                    throw SharedFileError.encoding(String(describing: error))
                }
                do throws(AtomicFile.Failure) {
                    try AtomicFile.write(data, to: file.url, permissions: file.permissions)
                } catch { throw SharedFileError.write(error) }
            },
            changes: {
                try? FileManager.default.createDirectory(
                    at: file.url.deletingLastPathComponent(),
                    withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700]
                )
                return DirectoryWatcher.changes(in: file.url.deletingLastPathComponent())
            }
        )
    }
}

/// Why a shared file could not be loaded or saved.
public enum SharedFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file did not decode; it was moved to `movedTo` (`nil` when even
    /// that failed, or another process moved it first).
    case corrupt(movedTo: URL?, reason: String)
    /// The file is larger than the key accepts.
    case tooLarge(size: Int, limit: Int)
    /// The file could not be read.
    case read(String)
    /// The value could not be encoded.
    case encoding(String)
    /// The file could not be written.
    case write(AtomicFile.Failure)

    /// The failure, for a screen or a log.
    public var description: String {
        switch self {
        case let .corrupt(movedTo?, reason):
            "The stored file did not decode (\(reason)); it was moved to \(movedTo.lastPathComponent)."
        case let .corrupt(nil, reason): "The stored file did not decode (\(reason))."
        case let .tooLarge(size, limit): "The stored file is \(size) bytes, more than the \(limit) allowed."
        case let .read(reason): "The stored file could not be read: \(reason)."
        case let .encoding(reason): "The value could not be encoded: \(reason)."
        case let .write(failure): "The value could not be saved: \(failure)."
        }
    }
}

extension AtomicFile.Failure: Equatable {
    /// Equal when the same step failed for the same reason.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.operation == rhs.operation && lhs.reason == rhs.reason
    }
}

/// A shared value's file: reading it within a size limit, and moving a bad
/// one aside.
struct SharedFile: Sendable {
    let url: URL
    let permissions: mode_t
    let maximumSize: Int

    /// Which file was read: its device and inode, which a replacement does not share.
    typealias Identity = (device: UInt64, inode: UInt64)

    /// The file's bytes and identity; `nil` when there is no file.
    func read() throws(SharedFileError) -> (Data, Identity)? {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw .read(String(cString: strerror(errno)))
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw .read(String(cString: strerror(errno))) }
        let identity = (UInt64(truncatingIfNeeded: status.st_dev), UInt64(truncatingIfNeeded: status.st_ino))
        let size = Int(clamping: status.st_size)
        guard size <= maximumSize else { throw .tooLarge(size: size, limit: maximumSize) }
        // Read to the end, within the limit: the file may have grown since fstat.
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .read(String(cString: strerror(errno)))
            }
            if count == 0 { return (data, identity) }
            guard data.count <= maximumSize - count else {
                throw .tooLarge(size: data.count + count, limit: maximumSize)
            }
            data.append(contentsOf: buffer[..<count])
        }
    }

    /// Moves the file that was read (`identity`) to the first free
    /// `<name>.corrupt[-N]` beside it, and returns the error to report.
    ///
    /// The file at the path may no longer be the one read: another holder
    /// or process may have replaced it since. So it is first taken away
    /// under a private name (`rename` is atomic) and checked; a newer file
    /// is put back, unless an even newer one has arrived meanwhile, and
    /// nothing is moved aside. `link` never replaces an existing file, so
    /// an earlier bad file stays.
    func moveAside(_ identity: Identity, reason: String) -> SharedFileError {
        let folder = url.deletingLastPathComponent()
        let taken = folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).corrupting").path
        guard rename(url.path, taken) == 0 else { return .corrupt(movedTo: nil, reason: reason) }
        var status = stat()
        let same =
            stat(taken, &status) == 0 && UInt64(truncatingIfNeeded: status.st_dev) == identity.device
            && UInt64(truncatingIfNeeded: status.st_ino) == identity.inode
        guard same else {
            _ = link(taken, url.path)  // fails when an even newer file is there: that one wins
            unlink(taken)
            return .corrupt(movedTo: nil, reason: reason)
        }
        for attempt in 1...100 {
            let aside = folder.appendingPathComponent(
                url.lastPathComponent + (attempt == 1 ? ".corrupt" : ".corrupt-\(attempt)")
            )
            if link(taken, aside.path) == 0 {
                unlink(taken)
                return .corrupt(movedTo: aside, reason: reason)
            }
            if errno != EEXIST { break }
        }
        return .corrupt(movedTo: URL(fileURLWithPath: taken), reason: reason)
    }
}
