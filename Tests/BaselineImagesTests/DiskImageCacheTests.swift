import BaselineImages
import BaselineTesting
import Foundation
import Testing

@Suite("DiskImageCache", .timeLimit(.minutes(1)))
struct DiskImageCacheTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "disk-image-cache")
    }

    let a = URL(string: "https://images.test/a.png")!
    let b = URL(string: "https://images.test/b.png")!
    let c = URL(string: "https://images.test/c.png")!

    /// The bytes a file for one of the URLs above takes with `count` bytes of
    /// data: the data plus the URL and a newline.
    func fileSize(_ count: Int) -> Int { count + a.absoluteString.utf8.count + 1 }

    func bytes(_ value: UInt8) -> Data { Data(repeating: value, count: 100) }

    @Test func storesAndReadsBack() async throws {
        let cache = try DiskImageCache(directory: directory.url, limit: 10_000)
        await cache.store(bytes(1), for: a)
        #expect(await cache.data(for: a) == bytes(1))
        #expect(await cache.data(for: b) == nil)
        #expect(await cache.totalSize == fileSize(100))
        await cache.store(bytes(2), for: a)
        #expect(await cache.data(for: a) == bytes(2))
        #expect(await cache.totalSize == fileSize(100))
    }

    @Test func evictsTheLeastRecentlyUsedByBytes() async throws {
        // Over the limit, the oldest go until the files take nine tenths of it.
        let cache = try DiskImageCache(directory: directory.url, limit: 2 * fileSize(100) + fileSize(100) / 2)
        await cache.store(bytes(1), for: a)
        await cache.store(bytes(2), for: b)
        _ = await cache.data(for: a)  // b is now the oldest
        await cache.store(bytes(3), for: c)
        #expect(await cache.data(for: b) == nil)
        #expect(await cache.data(for: a) == bytes(1))
        #expect(await cache.data(for: c) == bytes(3))
        #expect(await cache.totalSize == 2 * fileSize(100))
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(files.count == 2)
    }

    @Test func dataOverTheLimitIsNotStored() async throws {
        let cache = try DiskImageCache(directory: directory.url, limit: 50)
        await cache.store(bytes(1), for: a)
        #expect(await cache.data(for: a) == nil)
        #expect(await cache.totalSize == 0)
    }

    @Test func survivesARestart() async throws {
        do {
            let cache = try DiskImageCache(directory: directory.url, limit: 10_000)
            await cache.store(bytes(1), for: a)
            await cache.store(bytes(2), for: b)
        }
        let reopened = try DiskImageCache(directory: directory.url, limit: 10_000)
        #expect(await reopened.totalSize == 2 * fileSize(100))
        #expect(await reopened.data(for: a) == bytes(1))
        #expect(await reopened.data(for: b) == bytes(2))
        #expect(await reopened.data(for: c) == nil)
    }

    @Test func aRestartKeepsTheLeastRecentlyUsedOrder() async throws {
        do {
            let cache = try DiskImageCache(directory: directory.url, limit: 10_000)
            await cache.store(bytes(1), for: a)
            await cache.store(bytes(2), for: b)
        }
        // a used after b, as the modification dates record it.
        let files = directory.url
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: 2_000_000_000)],
            ofItemAtPath: files.appendingPathComponent(DiskImageCache.fileName(for: a)).path
        )
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: 1_000_000_000)],
            ofItemAtPath: files.appendingPathComponent(DiskImageCache.fileName(for: b)).path
        )
        // A write over the limit evicts the one used longest ago.
        let reopened = try DiskImageCache(directory: directory.url, limit: 2 * fileSize(100) + fileSize(100) / 2)
        await reopened.store(bytes(3), for: c)
        #expect(await reopened.totalSize == 2 * fileSize(100))
        #expect(await reopened.data(for: b) == nil)
        #expect(await reopened.data(for: a) == bytes(1))
        #expect(await reopened.data(for: c) == bytes(3))
    }

    @Test func aSmallerLimitKeepsTheImageJustStored() async throws {
        let cache = try DiskImageCache(directory: directory.url, limit: fileSize(100))
        await cache.store(bytes(1), for: a)
        await cache.store(bytes(2), for: b)
        #expect(await cache.data(for: a) == nil)
        #expect(await cache.data(for: b) == bytes(2))
    }

    /// A temporary file is removed once it is too old to be another
    /// process's write in progress.
    @Test func removesLeftoverTemporaryFilesAndIgnoresStrangers() async throws {
        let leftover = directory.url.appendingPathComponent(".tmp-interrupted")
        try Data("half".utf8).write(to: leftover)
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-7_200)],
            ofItemAtPath: leftover.path
        )
        let stranger = directory.url.appendingPathComponent("notes.txt")
        try Data("mine".utf8).write(to: stranger)
        let cache = try DiskImageCache(directory: directory.url, limit: 10_000)
        #expect(await cache.totalSize == 0)
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
        #expect(FileManager.default.fileExists(atPath: stranger.path))
    }

    @Test func openingAndReadingLeaveTheDirectoryUnlistedUntilTheFirstWrite() async throws {
        // Opening may happen on the main actor, and a hit must be quick.
        let leftover = directory.url.appendingPathComponent(".tmp-interrupted")
        try Data("half".utf8).write(to: leftover)
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-7_200)],
            ofItemAtPath: leftover.path
        )
        let cache = try DiskImageCache(directory: directory.url, limit: 10_000)
        #expect(await cache.contains(a) == false)
        #expect(await cache.data(for: a) == nil)
        #expect(FileManager.default.fileExists(atPath: leftover.path))
        await cache.store(bytes(1), for: a)
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
        #expect(await cache.contains(a))
    }

    @Test func removeAndRemoveAll() async throws {
        let cache = try DiskImageCache(directory: directory.url, limit: 10_000)
        await cache.store(bytes(1), for: a)
        await cache.store(bytes(2), for: b)
        await cache.remove(for: a)
        #expect(await cache.data(for: a) == nil)
        #expect(await cache.totalSize == fileSize(100))
        await cache.removeAll()
        #expect(await cache.data(for: b) == nil)
        #expect(await cache.totalSize == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }

    @Test func aDirectoryThatCannotBeListedIsTriedAgainOnTheNextUse() async throws {
        let images = directory.url.appendingPathComponent("images")
        let cache = try DiskImageCache(directory: images, limit: 10_000)
        // Replaced by a file before the first use: nothing can be listed.
        try FileManager.default.removeItem(at: images)
        try Data("not a directory".utf8).write(to: images)
        await cache.store(bytes(1), for: a)
        #expect(await cache.data(for: a) == nil)
        #expect(await cache.totalSize == 0)

        try FileManager.default.removeItem(at: images)
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        await cache.store(bytes(1), for: a)
        #expect(await cache.data(for: a) == bytes(1))
        #expect(await cache.totalSize == fileSize(100))
    }

    @Test func createsItsDirectory() async throws {
        let nested = directory.url.appendingPathComponent("deep/Images")
        let cache = try DiskImageCache(directory: nested, limit: 10_000)
        await cache.store(bytes(1), for: a)
        #expect(await cache.data(for: a) == bytes(1))
    }
}
