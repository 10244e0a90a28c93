import Foundation
import Logging

/// An ``HTTPCacheStore`` on disk: responses kept across launches, bounded in
/// bytes, least recently used removed first.
///
/// ```swift
/// let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0]
/// let store = DiskCacheStore(directory: caches.appending(path: "HTTP"), byteLimit: 50 * 1024 * 1024)
/// let client = HTTPClient(baseURL: apiURL, middleware: [ResponseCache(store: store)])
/// ```
///
/// Each entry is one file, named by a hash of its key, holding the key, the
/// response head, the body and a checksum. What it promises:
/// - **Writes are atomic.** A file is written under a temporary name and
///   renamed into place, so a crash or a reader in another process never
///   sees half an entry.
/// - **Bad files are misses.** A file cut short, changed on disk, of
///   another format or another key reads as a miss, and a bad one is
///   removed. So a folder full of garbage, or deleted while the app runs,
///   costs requests, never a crash; the folder is made again at the next write.
/// - **Ready at once.** Creating a store reads nothing: the first hit after
///   a relaunch is one file read. The folder is listed at the first write,
///   to learn its size: one `stat` per file, about 40 ms for 10,000 entries
///   on a small virtual machine.
/// - **Shared safely.** Two processes (an app and its extension) may use one
///   folder: reads and eviction go by the files themselves, use is recorded
///   in their modification dates, and a reader removes a bad file only if no
///   one has replaced it since. Each process counts its own writes between
///   sweeps, so the folder can exceed ``byteLimit`` by what the others wrote
///   since their last sweep. Pass `sweeps: false` in the process that should
///   not spend time evicting.
///
/// Files are created owner-only (mode 0600, the folder 0700): entries may
/// hold what only the user was allowed to see. Clear the store with
/// ``removeAll()`` when the user logs out.
///
/// Files are not flushed to storage one by one: after a power loss, an entry
/// written just before may be missing or cut short, which reads as a miss.
public final class DiskCacheStore: HTTPCacheStore {
    let folder: CacheFolder
    private let logger = Logger(label: "baseline.disk-cache-store")

    /// The folder holding the entries.
    public var directory: URL { folder.directory }
    /// The most bytes the entries' files take.
    public var byteLimit: Int { folder.byteLimit }

    /// Creates a store in `directory`, which is made at the first write
    /// if needed.
    ///
    /// - Parameters:
    ///   - directory: The folder, used by this store alone (other files in it are left alone).
    ///   - byteLimit: The most bytes the files take; an entry larger than it is not stored.
    ///   - sweeps: Whether writes remove the least recently used entries
    ///     beyond the limit. Pass `false` in an app extension that shares
    ///     the app's folder.
    public init(directory: URL, byteLimit: Int, sweeps: Bool = true) {
        folder = CacheFolder(directory: directory, byteLimit: byteLimit, sweeps: sweeps, fileExtension: "response")
    }

    /// The entry for `key`, marked as the most recently used; `nil` when
    /// there is none or its file is bad (which is then removed).
    public func cachedResponse(for key: String) async -> CachedResponse? {
        let name = folder.fileName(for: key)
        guard let (bytes, identity) = folder.read(name, maximumSize: folder.byteLimit) else { return nil }
        do {
            return try CacheRecord.decode(bytes, key: key)
        } catch .otherKey {
            return nil
        } catch {
            logger.debug("Removed a bad disk cache entry", metadata: ["file": "\(name)", "reason": "\(error)"])
            folder.remove(name, ifStill: identity)
            return nil
        }
    }

    /// Stores `entry` for `key`, then removes the least recently used
    /// entries if the folder is over ``byteLimit``. An entry that does not
    /// fit, or a write that fails, leaves no entry for `key`.
    public func store(_ entry: CachedResponse, for key: String) async {
        let name = folder.fileName(for: key)
        guard let bytes = CacheRecord.encode(entry, key: key), folder.write(bytes, as: name) else {
            // An older entry would outlive the response that replaced it.
            folder.remove(name)
            return
        }
    }

    /// Removes the entry for `key`, if any.
    public func removeCachedResponse(for key: String) async {
        folder.remove(folder.fileName(for: key))
    }

    /// Removes every entry.
    public func removeAll() async {
        folder.removeAll()
    }

    /// The bytes the entries' files take now, from a listing of the folder.
    public func currentSize() async -> Int {
        folder.currentSize()
    }
}
