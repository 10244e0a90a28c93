import BaselineHTTP
import Foundation

/// Encoded images on disk, bounded by bytes, kept across launches.
///
/// Each image is one file in ``directory``, named by a hash of its URL; the
/// file starts with the URL itself, so a hash collision reads as a miss,
/// never as another image. The folder works as BaselineHTTP's `DiskCacheStore`'s does:
/// - a file is written under a temporary name and renamed into place, so a
///   crash or another process never sees half an image;
/// - a read records its use in the file's modification date, so the least
///   recently used order survives a restart;
/// - a write that takes the folder over ``limit`` lists it and removes the
///   least recently used files down to nine tenths of the limit (never the
///   file just written);
/// - an app and its extension may share the folder: each works from the
///   files themselves.
///
/// Opening reads nothing, so creating a cache from the main actor costs no
/// listing, and the first hit after a restart is one file read.
///
/// ```swift
/// let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0]
/// let disk = try DiskImageCache(directory: caches.appendingPathComponent("Images"), limit: 200 * 1024 * 1024)
/// let pipeline = ImagePipeline(client: client, configuration: .init(diskCache: disk))
/// ```
public final class DiskImageCache: Sendable {
    /// The directory holding the files.
    public let directory: URL
    /// The most bytes kept (file sizes, including each file's short header).
    public let limit: Int
    private let folder: CacheFolder

    private static let fileExtension = "image"

    /// Opens the cache in `directory`, creating the directory if needed.
    ///
    /// - Throws: When the directory cannot be created.
    public init(directory: URL, limit: Int) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.directory = directory
        self.limit = max(0, limit)
        folder = CacheFolder(directory: directory, byteLimit: self.limit, fileExtension: Self.fileExtension)
    }

    /// The bytes of the files held now, from a listing of the directory.
    public var totalSize: Int {
        get async { folder.currentSize() }
    }

    /// The data stored for `key`, which becomes the most recently used;
    /// `nil` when there is none. A file that is not this URL's is removed.
    public func data(for key: URL) async -> Data? {
        let name = Self.fileName(for: key)
        guard let (contents, identity) = folder.read(name, maximumSize: limit) else { return nil }
        guard let payload = Self.payload(of: contents, for: key) else {
            folder.remove(name, ifStill: identity)
            return nil
        }
        return payload
    }

    /// Stores `data` for `key` as the most recently used, replacing what was
    /// there, then removes least recently used files if the directory is
    /// over the limit. Data larger than the limit is not stored, and a write
    /// that fails leaves no file for `key` (it is a cache).
    public func store(_ data: Data, for key: URL) async {
        let name = Self.fileName(for: key)
        var contents = Self.header(for: key)
        contents += data
        if !folder.write(contents, as: name) { folder.remove(name) }
    }

    /// Removes the data for `key`, if any.
    public func remove(for key: URL) async {
        folder.remove(Self.fileName(for: key))
    }

    /// Removes every stored image.
    public func removeAll() async {
        folder.removeAll()
    }

    /// Whether data is stored for `key`, without reading it or changing the order.
    public func contains(_ key: URL) async -> Bool {
        folder.contains(Self.fileName(for: key))
    }

    // MARK: Format

    /// The file name for `key`: a 128-bit hash of its text, in hex.
    package static func fileName(for key: URL) -> String {
        CacheFolder.fileName(for: key.absoluteString, fileExtension: fileExtension)
    }

    /// The URL and a newline (a URL's string never contains one).
    private static func header(for key: URL) -> [UInt8] {
        Array(key.absoluteString.utf8) + [0x0A]
    }

    /// The data after the header, when the header names `key`.
    private static func payload(of contents: [UInt8], for key: URL) -> Data? {
        let header = header(for: key)
        guard contents.starts(with: header) else { return nil }
        return Data(contents[header.count...])
    }
}
