import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Encoded images on disk, bounded by bytes, kept across launches.
///
/// Each image is one file in ``directory``, named by a hash of its URL; the
/// file starts with the URL itself, so a hash collision reads as a miss,
/// never as another image. Writes go to a temporary file renamed into place,
/// so a crash never leaves half a file under a real name.
///
/// Least recently used files are removed first when a store goes over the
/// limit. Use is recorded in the files' modification dates too, so the order
/// survives a restart: a new cache on the same directory picks up the files,
/// their total size and their order.
///
/// ```swift
/// let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0]
/// let disk = try DiskImageCache(directory: caches.appendingPathComponent("Images"), limit: 200 * 1024 * 1024)
/// let pipeline = ImagePipeline(client: client, configuration: .init(diskCache: disk))
/// ```
public actor DiskImageCache {
    private struct Entry {
        var size: Int
        /// Larger is more recent.
        var lastUse: UInt64
    }

    /// The directory holding the files.
    public nonisolated let directory: URL
    /// The most bytes kept (file sizes, including each file's short header).
    public nonisolated let limit: Int

    private var entries: [String: Entry] = [:]
    private var useCounter: UInt64 = 0
    private var storedSize = 0
    /// Whether the files already in the directory have been taken in.
    private var isLoaded = false
    /// Whether a failure to list the directory has been logged (once is enough).
    private var loggedListingFailure = false
    private let logger = Logger(label: "baseline.disk-image-cache")

    /// The bytes of the files held now. Like every first use, the first
    /// read takes in the directory, and may remove files over the limit.
    public var totalSize: Int {
        loadIfNeeded()
        return storedSize
    }

    private static let fileExtension = "image"
    private static let temporaryPrefix = ".tmp-"

    /// Opens the cache in `directory`, creating the directory if needed.
    ///
    /// The files already there are taken in on the cache's first use, on
    /// its own executor, so creating a cache from the main actor does not
    /// list a large directory there. That first use also removes the least
    /// recently used files if they are over `limit`, and any write a crash
    /// interrupted.
    ///
    /// - Throws: When the directory cannot be created.
    public init(directory: URL, limit: Int) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.directory = directory
        self.limit = max(0, limit)
    }

    /// The data stored for `key`, which becomes the most recently used;
    /// `nil` when there is none.
    public func data(for key: URL) -> Data? {
        loadIfNeeded()
        let name = Self.fileName(for: key)
        guard entries[name] != nil else { return nil }
        let file = fileURL(name)
        guard let contents = try? Data(contentsOf: file), let payload = Self.payload(of: contents, for: key) else {
            // Deleted behind our back, unreadable, or another URL's file.
            remove(name: name)
            return nil
        }
        useCounter += 1
        entries[name]?.lastUse = useCounter
        // Recorded on disk so the order survives a restart; a failure only loses order.
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: file.path)
        return payload
    }

    /// Stores `data` for `key` as the most recently used, replacing what was
    /// there, then removes least recently used files until the total is
    /// within the limit. Data larger than the limit is not stored. A write
    /// that fails is logged and leaves the cache as it was (it is a cache).
    public func store(_ data: Data, for key: URL) {
        loadIfNeeded()
        guard isLoaded else { return }
        let name = Self.fileName(for: key)
        var contents = Data(Self.header(for: key))
        contents.append(data)
        guard contents.count <= limit else {
            remove(name: name)
            return
        }
        let temporary = directory.appendingPathComponent(Self.temporaryPrefix + UUID().uuidString)
        do {
            try contents.write(to: temporary, options: .withoutOverwriting)
            guard rename(temporary.path, fileURL(name).path) == 0 else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            logger.warning(
                "Could not store an image in the disk cache",
                metadata: ["url": "\(key)", "error": "\(error)"]
            )
            return
        }
        storedSize -= entries[name]?.size ?? 0
        useCounter += 1
        entries[name] = Entry(size: contents.count, lastUse: useCounter)
        storedSize += contents.count
        for evicted in Self.evictionOrder(entries, total: storedSize, limit: limit) {
            remove(name: evicted)
        }
    }

    /// Removes the data for `key`, if any.
    public func remove(for key: URL) {
        loadIfNeeded()
        remove(name: Self.fileName(for: key))
    }

    /// Removes every stored image.
    public func removeAll() {
        loadIfNeeded()
        for name in entries.keys { remove(name: name) }
    }

    /// Whether data is stored for `key`, without changing the order.
    public func contains(_ key: URL) -> Bool {
        loadIfNeeded()
        return entries[Self.fileName(for: key)] != nil
    }

    // MARK: Files

    /// Takes in the files already in the directory, once it can be listed.
    private func loadIfNeeded() {
        guard !isLoaded else { return }
        let found: (entries: [String: Entry], useCounter: UInt64)
        do {
            found = try Self.scan(directory)
        } catch {
            // Tried again on the next use. Until then the cache holds nothing
            // and stores nothing, since files it does not know of would not
            // count against the limit; the app goes on with the network.
            if !loggedListingFailure {
                loggedListingFailure = true
                logger.warning(
                    "Could not list the disk cache's directory",
                    metadata: ["directory": "\(directory.path)", "error": "\(error)"]
                )
            }
            return
        }
        isLoaded = true
        entries = found.entries
        useCounter = found.useCounter
        storedSize = entries.values.reduce(0) { $0 + $1.size }
        for name in Self.evictionOrder(entries, total: storedSize, limit: limit) {
            remove(name: name)
        }
    }

    private func fileURL(_ name: String) -> URL {
        directory.appendingPathComponent(name)
    }

    private func remove(name: String) {
        guard let entry = entries.removeValue(forKey: name) else { return }
        storedSize -= entry.size
        try? FileManager.default.removeItem(at: fileURL(name))
    }

    /// Names to remove, least recently used first, to bring `total` within `limit`.
    private static func evictionOrder(_ entries: [String: Entry], total: Int, limit: Int) -> [String] {
        guard total > limit else { return [] }
        var excess = total - limit
        var names: [String] = []
        for (name, entry) in entries.sorted(by: { ($0.value.lastUse, $0.key) < ($1.value.lastUse, $1.key) }) {
            guard excess > 0 else { break }
            names.append(name)
            excess -= entry.size
        }
        return names
    }

    /// The cache files in `directory`, ordered by modification date; removes
    /// temporary files left by interrupted writes.
    private static func scan(_ directory: URL) throws -> (entries: [String: Entry], useCounter: UInt64) {
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey, .isRegularFileKey]
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys)
        var found: [(name: String, size: Int, date: Date)] = []
        for file in files {
            let name = file.lastPathComponent
            if name.hasPrefix(temporaryPrefix) {
                try? FileManager.default.removeItem(at: file)
                continue
            }
            guard file.pathExtension == fileExtension,
                let values = try? file.resourceValues(forKeys: Set(keys)),
                values.isRegularFile == true, let size = values.fileSize
            else { continue }
            found.append((name, size, values.contentModificationDate ?? .distantPast))
        }
        found.sort { ($0.date, $0.name) < ($1.date, $1.name) }
        var entries: [String: Entry] = [:]
        for (index, file) in found.enumerated() {
            entries[file.name] = Entry(size: file.size, lastUse: UInt64(index + 1))
        }
        return (entries, UInt64(found.count))
    }

    // MARK: Format

    /// The file name for `key`: a 128-bit hash (two FNV-1a hashes), in hex.
    package static func fileName(for key: URL) -> String {
        let bytes = Array(key.absoluteString.utf8)
        func fnv1a(offsetBasis: UInt64) -> UInt64 {
            bytes.reduce(offsetBasis) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
        }
        let first = fnv1a(offsetBasis: 0xCBF2_9CE4_8422_2325)
        let second = fnv1a(offsetBasis: 0x8422_2325_CBF2_9CE4)
        return hex(first) + hex(second) + "." + fileExtension
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The URL and a newline (a URL's string never contains one).
    private static func header(for key: URL) -> [UInt8] {
        Array(key.absoluteString.utf8) + [0x0A]
    }

    /// The data after the header, when the header names `key`.
    private static func payload(of contents: Data, for key: URL) -> Data? {
        let header = header(for: key)
        guard contents.starts(with: header) else { return nil }
        return Data(contents.dropFirst(header.count))
    }
}
