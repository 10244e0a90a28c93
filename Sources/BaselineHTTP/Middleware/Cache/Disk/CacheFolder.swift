import BaselineConcurrency
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Files in one folder, one per key, bounded in bytes, least recently used
/// removed first: the disk half of ``DiskCacheStore`` and of the image
/// pipeline's disk cache.
///
/// The folder is the only truth, so two processes (an app and its
/// extension) can share one:
/// - a file is written under a temporary name and renamed into place, so a
///   reader sees a whole old file or a whole new one, never half of one;
/// - a read marks the file as used by setting its modification date, which
///   is the order eviction follows;
/// - eviction lists the folder and removes the oldest files until the total
///   is below ``byteLimit``; between two sweeps, each process counts what it
///   wrote itself, so the folder can go over the limit by what the others
///   wrote since.
///
/// Nothing is read at creation: a relaunch serves hits at once, and the
/// folder is listed at the first write.
package final class CacheFolder: Sendable {
    /// A file's identity, so a reader that found a file bad removes that
    /// file and not a good one another process has put in its place.
    package struct FileIdentity: Equatable, Sendable {
        var device: UInt64
        var inode: UInt64
        /// The last change of the file's data or dates, so a file put in
        /// place since (even on a reused inode) is told apart.
        var changed: Int64

        init(_ status: stat) {
            device = UInt64(truncatingIfNeeded: status.st_dev)
            inode = UInt64(truncatingIfNeeded: status.st_ino)
            changed = CacheFolder.nanoseconds(of: status.changeTime)
        }
    }

    /// A file of the folder, as a sweep lists it.
    package struct File: Sendable {
        package var name: String
        package var size: Int
        /// Which file it was when listed.
        package var identity: FileIdentity
        /// The last use (its modification date), in nanoseconds since 1970.
        package var lastUse: Int64
    }

    private struct Accounting {
        /// The bytes of the folder's files as far as this process knows;
        /// `nil` until the first sweep lists the folder.
        var total: Int?
        /// While a sweep runs, the bytes written meanwhile: they are not in
        /// the sweep's listing.
        var writtenDuringSweep: Int?
        /// The last use recorded, so this process's uses are in order even
        /// within one tick of the clock.
        var lastStamp: Int64 = 0
    }

    /// The folder.
    package let directory: URL
    /// The most bytes the folder's files take.
    package let byteLimit: Int
    /// Whether writes evict over the limit. An app extension sharing the
    /// app's folder can leave eviction to the app.
    package let sweeps: Bool
    /// The extension of the folder's entries; other files are left alone.
    package let fileExtension: String
    private let path: String
    private let accounting = LockedValue(Accounting())

    /// Temporary files older than this are left over by a crash, not being written.
    private static let abandonedAfter: Int64 = 3_600 * 1_000_000_000
    private static let temporaryPrefix = ".tmp-"

    /// Creates the folder's handle; the folder itself is made at the first write.
    package init(directory: URL, byteLimit: Int, sweeps: Bool = true, fileExtension: String) {
        self.directory = directory
        self.path = directory.path
        self.byteLimit = max(0, byteLimit)
        self.sweeps = sweeps
        self.fileExtension = fileExtension
    }

    /// The file name for `key`: a 128-bit hash (two FNV-1a hashes) in hex,
    /// with the folder's extension. Entries keep their key, so a reader
    /// tells a collision from a hit.
    package func fileName(for key: String) -> String {
        Self.fileName(for: key, fileExtension: fileExtension)
    }

    /// ``fileName(for:)`` in a folder of files with `fileExtension`.
    package static func fileName(for key: String, fileExtension: String) -> String {
        var first: UInt64 = 0xCBF2_9CE4_8422_2325
        var second: UInt64 = 0x8422_2325_CBF2_9CE4
        for byte in key.utf8 {
            first = (first ^ UInt64(byte)) &* 0x100_0000_01B3
            second = (second ^ UInt64(byte)) &* 0x100_0000_01B3
        }
        return hex(first) + hex(second) + "." + fileExtension
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    // MARK: Reading

    /// The bytes of the file `name`, marked as the most recently used; `nil`
    /// when there is none, it is no regular file, it is larger than
    /// `maximumSize`, or it cannot be read whole.
    package func read(_ name: String, maximumSize: Int) -> (bytes: [UInt8], identity: FileIdentity)? {
        let descriptor = open(path + "/" + name, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG,
            let size = Self.size(of: status), size <= maximumSize
        else { return nil }
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = 0
            while count < size {
                let got = systemRead(descriptor, buffer.baseAddress! + count, size - count)
                if got > 0 {
                    count += got
                } else if got < 0, errno == EINTR {
                    continue
                } else {
                    // Shortened since the stat, or unreadable.
                    failed = true
                    return
                }
            }
        }
        guard !failed else { return nil }
        // The use, recorded where every process sees it; failing only loses order.
        markUsed(descriptor)
        // Identified after the use was marked, as a later check will see it.
        guard fstat(descriptor, &status) == 0 else { return nil }
        return (bytes, FileIdentity(status))
    }

    /// Whether the file `name` is there, without reading it or marking its use.
    package func contains(_ name: String) -> Bool {
        var status = stat()
        return lstat(path + "/" + name, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
    }

    // MARK: Writing

    /// Writes `bytes` as the file `name`, replacing it whole, then sweeps if
    /// the folder is over its limit. Returns whether the file was written.
    @discardableResult
    package func write(_ bytes: [UInt8], as name: String) -> Bool {
        guard bytes.count <= byteLimit else {
            remove(name)
            return false
        }
        let temporary = path + "/" + Self.temporaryPrefix + UUID().uuidString
        var descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor < 0, errno == ENOENT {
            // The folder is new, or was deleted while the app ran.
            try? FileManager.default.createDirectory(
                at: directory,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
            descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        }
        guard descriptor >= 0 else { return false }
        let written = bytes.withUnsafeBytes { Self.writeAll($0, to: descriptor) }
        if written { markUsed(descriptor) }
        guard close(descriptor) == 0, written else {
            unlink(temporary)
            return false
        }
        let target = path + "/" + name
        var previous = stat()
        let replaced = lstat(target, &previous) == 0 && (previous.st_mode & S_IFMT) == S_IFREG
        guard rename(temporary, target) == 0 else {
            unlink(temporary)
            return false
        }
        let added = bytes.count - (replaced ? Self.size(of: previous) ?? 0 : 0)
        let needsSweep = accounting.withLock { accounting in
            if let written = accounting.writtenDuringSweep { accounting.writtenDuringSweep = Self.sum(written, added) }
            guard let total = accounting.total else { return accounting.writtenDuringSweep == nil }
            accounting.total = max(0, Self.sum(total, added))
            // A process that does not evict lists the folder once, not at every write.
            return sweeps && Self.sum(total, added) > byteLimit && accounting.writtenDuringSweep == nil
        }
        if needsSweep { sweep(keeping: name) }
        return true
    }

    private static func writeAll(_ buffer: UnsafeRawBufferPointer, to descriptor: CInt) -> Bool {
        var offset = 0
        while offset < buffer.count {
            let wrote = systemWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if wrote > 0 {
                offset += wrote
            } else if wrote < 0, errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }

    /// Sets the file's dates to now, from the precise clock (the kernel
    /// dates files from a coarse one, which would tie uses milliseconds
    /// apart), and after this process's last use.
    private func markUsed(_ descriptor: CInt) {
        let now = Self.nanoseconds(of: timespec.now())
        let stamp = accounting.withLock { accounting in
            accounting.lastStamp = max(now, accounting.lastStamp &+ 1)
            return accounting.lastStamp
        }
        let time = timespec(tv_sec: .init(stamp / 1_000_000_000), tv_nsec: .init(stamp % 1_000_000_000))
        var times = (time, time)
        _ = withUnsafePointer(to: &times) { pointer in
            pointer.withMemoryRebound(to: timespec.self, capacity: 2) { futimens(descriptor, $0) }
        }
    }

    // MARK: Removing

    /// Removes the file `name`; with `identity`, only if it is still that
    /// file (another process may have replaced it since it was read).
    package func remove(_ name: String, ifStill identity: FileIdentity? = nil) {
        let target = path + "/" + name
        var status = stat()
        guard lstat(target, &status) == 0 else { return }
        if let identity, identity != FileIdentity(status) { return }
        guard unlink(target) == 0 else { return }
        let size = Self.size(of: status) ?? 0
        accounting.withLock { accounting in
            accounting.total = accounting.total.map { max(0, $0 - size) }
            if let written = accounting.writtenDuringSweep { accounting.writtenDuringSweep = Self.sum(written, -size) }
        }
    }

    /// Removes every entry of the folder (other files are left alone).
    package func removeAll() {
        for file in list() { remove(file.name) }
        accounting.withLock { $0.total = $0.writtenDuringSweep == nil ? 0 : $0.total }
    }

    // MARK: Sweeping

    /// The bytes this process counts in the folder; `nil` before the first listing.
    package var countedBytes: Int? {
        accounting.withLock { $0.total }
    }

    /// The bytes of the folder's entries now, from a listing.
    package func currentSize() -> Int {
        list().reduce(0) { Self.sum($0, $1.size) }
    }

    /// Lists the folder and removes the least recently used entries until
    /// they take at most nine tenths of the limit, so the next writes do not
    /// each list the folder again; never `keeping`, the file just written.
    /// One sweep at a time; a write during a sweep does not start another.
    package func sweep(keeping: String? = nil) {
        let claimed = accounting.withLock { accounting -> Bool in
            guard accounting.writtenDuringSweep == nil else { return false }
            accounting.writtenDuringSweep = 0
            return true
        }
        guard claimed else { return }
        let files = list()
        var total = files.reduce(0) { Self.sum($0, $1.size) }
        if sweeps, total > byteLimit {
            total = evict(files, downTo: byteLimit - byteLimit / 10, keeping: keeping)
        }
        accounting.withLock { accounting in
            accounting.total = max(0, Self.sum(total, accounting.writtenDuringSweep ?? 0))
            accounting.writtenDuringSweep = nil
        }
    }

    /// Removes the least recently used of `files` (a listing) until they
    /// take at most `target` bytes, never `keeping`, and returns their bytes
    /// left. A file written since the listing, by this process or another,
    /// is not the one listed, and stays.
    package func evict(_ files: [File], downTo target: Int, keeping: String? = nil) -> Int {
        var total = files.reduce(0) { Self.sum($0, $1.size) }
        let folderDescriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folderDescriptor >= 0 else { return total }
        defer { close(folderDescriptor) }
        for file in files.sorted(by: { ($0.lastUse, $0.name) < ($1.lastUse, $1.name) }) where file.name != keeping {
            guard total > target else { break }
            var status = stat()
            guard fstatat(folderDescriptor, file.name, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
                total -= file.size  // gone already; a remove() counted it
                continue
            }
            guard FileIdentity(status) == file.identity else { continue }
            if unlinkat(folderDescriptor, file.name, 0) == 0 { total -= file.size }
        }
        return total
    }

    /// The folder's entries; removes temporary files a crash left behind.
    /// A folder that cannot be listed (deleted, say) has none.
    package func list() -> [File] {
        guard let folder = opendir(path) else { return [] }
        defer { closedir(folder) }
        let folderDescriptor = dirfd(folder)
        let suffix = "." + fileExtension
        let now = Self.nanoseconds(of: timespec.now())
        var files: [File] = []
        while let entry = readdir(folder) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            let isTemporary = name.hasPrefix(Self.temporaryPrefix)
            guard isTemporary || name.hasSuffix(suffix) else { continue }
            var status = stat()
            guard fstatat(folderDescriptor, name, &status, AT_SYMLINK_NOFOLLOW) == 0,
                (status.st_mode & S_IFMT) == S_IFREG, let size = Self.size(of: status)
            else { continue }
            let modified = Self.nanoseconds(of: status.modificationTime)
            if isTemporary {
                if now &- modified > Self.abandonedAfter { unlinkat(folderDescriptor, name, 0) }
                continue
            }
            files.append(File(name: name, size: size, identity: FileIdentity(status), lastUse: modified))
        }
        return files
    }

    /// A file's size; `nil` for the negative one a broken file system may report.
    private static func size(of status: stat) -> Int? {
        status.st_size >= 0 ? Int(clamping: status.st_size) : nil
    }

    /// `a + b`, at most `Int.max`: sizes come from the file system, and
    /// huge sparse files must not stop the app.
    private static func sum(_ a: Int, _ b: Int) -> Int {
        let (result, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : result
    }

    fileprivate static func nanoseconds(of time: timespec) -> Int64 {
        let (seconds, overflow) = Int64(time.tv_sec).multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? (time.tv_sec < 0 ? .min : .max) : seconds &+ Int64(time.tv_nsec)
    }
}
