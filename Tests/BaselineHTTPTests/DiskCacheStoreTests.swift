import BaselineTesting
import Foundation
import HTTPTypes
import Testing

@testable import BaselineHTTP

/// The disk store's own promises; the cache's rules run on it in `ResponseCacheTests`.
@Suite("DiskCacheStore", .timeLimit(.minutes(1)))
struct DiskCacheStoreTests {
    let folder: TemporaryDirectory

    init() throws {
        folder = try TemporaryDirectory(prefix: "disk-cache")
    }

    static func entryFiles(in directory: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".response") }.map { directory.appendingPathComponent($0) }
    }

    var files: [URL] { Self.entryFiles(in: folder.url) }

    func entry(_ text: String, bytes: Int = 0) -> CachedResponse {
        var fields: HTTPFields = [.cacheControl: "max-age=60", .eTag: #""\#(text)""#]
        fields.append(HTTPField(name: .vary, value: "Accept-Encoding"))
        fields.append(HTTPField(name: .vary, value: "Accept"))
        var body = Data(text.utf8)
        body.append(Data(repeating: 0x2A, count: bytes))
        return CachedResponse(
            response: HTTPResponse(status: .init(code: 200, reasonPhrase: "Fine"), headerFields: fields),
            body: body,
            receivedAt: Date(timeIntervalSince1970: 1_700_000_000.123_456)
        )
    }

    /// The size of one entry's file, measured in a folder of its own.
    func fileSize(of entry: CachedResponse, key: String) async throws -> Int {
        let probe = try TemporaryDirectory(prefix: "disk-cache-probe")
        let store = DiskCacheStore(directory: probe.url, byteLimit: 1 << 30)
        await store.store(entry, for: key)
        return await store.currentSize()
    }

    func expectSame(_ read: CachedResponse?, _ written: CachedResponse) {
        #expect(read?.response == written.response)
        #expect(read?.response.status.reasonPhrase == written.response.status.reasonPhrase)
        #expect(read?.body == written.body)
        #expect(read?.receivedAt == written.receivedAt)
    }

    @Test func anEntryReadsBackWholeAndInOrder() async {
        let store = DiskCacheStore(directory: folder.url, byteLimit: 1 << 20)
        let written = entry("v1", bytes: 1_000)
        await store.store(written, for: "https://api.example/photos?page=2")
        expectSame(await store.cachedResponse(for: "https://api.example/photos?page=2"), written)
        #expect(await store.cachedResponse(for: "https://api.example/photos?page=3") == nil)
        #expect(files.count == 1)
    }

    @Test func evictsTheLeastRecentlyUsedEntriesToStayWithinItsBytes() async throws {
        let size = try await fileSize(of: entry("a", bytes: 100), key: "a")
        let store = DiskCacheStore(directory: folder.url, byteLimit: size * 5 / 2)
        await store.store(entry("a", bytes: 100), for: "a")
        await store.store(entry("b", bytes: 100), for: "b")
        _ = await store.cachedResponse(for: "a")  // "b" is now the least recently used
        await store.store(entry("c", bytes: 100), for: "c")

        #expect(await store.cachedResponse(for: "b") == nil)
        #expect(await store.cachedResponse(for: "a") != nil)
        #expect(await store.cachedResponse(for: "c") != nil)
        #expect(await store.currentSize() == 2 * size)
    }

    @Test func theOrderOfUseSurvivesARelaunch() async throws {
        let size = try await fileSize(of: entry("a", bytes: 100), key: "a")
        do {
            let first = DiskCacheStore(directory: folder.url, byteLimit: size * 5 / 2)
            await first.store(entry("a", bytes: 100), for: "a")
            await first.store(entry("b", bytes: 100), for: "b")
            _ = await first.cachedResponse(for: "a")
        }
        let relaunched = DiskCacheStore(directory: folder.url, byteLimit: size * 5 / 2)
        #expect(await relaunched.cachedResponse(for: "a") != nil)
        await relaunched.store(entry("c", bytes: 100), for: "c")
        #expect(await relaunched.cachedResponse(for: "b") == nil)
        #expect(await relaunched.cachedResponse(for: "a")?.body == entry("a", bytes: 100).body)
    }

    @Test func replacingAnEntryCountsItsNewSize() async throws {
        let small = try await fileSize(of: entry("a", bytes: 100), key: "a")
        let large = try await fileSize(of: entry("a", bytes: 200), key: "a")
        // Room for the large one and one small one: counting the replaced
        // file too would evict "b".
        let store = DiskCacheStore(directory: folder.url, byteLimit: large + small + 10)
        await store.store(entry("a", bytes: 100), for: "a")
        await store.store(entry("a", bytes: 200), for: "a")
        await store.store(entry("b", bytes: 100), for: "b")
        #expect(store.folder.countedBytes == large + small)
        #expect(await store.currentSize() == large + small)
        #expect(await store.cachedResponse(for: "b") != nil)
        #expect(files.count == 2)
    }

    @Test func anEntryLargerThanTheLimitIsNotStoredAndDropsTheOldOne() async {
        let store = DiskCacheStore(directory: folder.url, byteLimit: 600)
        await store.store(entry("small"), for: "a")
        #expect(await store.cachedResponse(for: "a") != nil)
        await store.store(entry("large", bytes: 1_000), for: "a")
        #expect(await store.cachedResponse(for: "a") == nil)
        #expect(files.isEmpty)
    }

    @Test func removeAllLeavesOtherFilesAlone() async throws {
        let store = DiskCacheStore(directory: folder.url, byteLimit: 1 << 20)
        await store.store(entry("a"), for: "a")
        await store.store(entry("b"), for: "b")
        let notes = folder.url.appendingPathComponent("notes.txt")
        try Data("mine".utf8).write(to: notes)
        await store.removeAll()
        #expect(files.isEmpty)
        #expect(await store.cachedResponse(for: "a") == nil)
        #expect(FileManager.default.fileExists(atPath: notes.path))
        #expect(await store.currentSize() == 0)
    }

    // MARK: Bad files

    /// What a file can suffer on disk, and each is a miss that removes it.
    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        case cutShort, cutToNothing, byteChanged, garbage, otherVersion
        var testDescription: String { rawValue }

        func apply(to bytes: inout Data) {
            switch self {
            case .cutShort: bytes.removeLast(7)
            case .cutToNothing: bytes.removeAll()
            case .byteChanged: bytes[bytes.count / 2] ^= 0x01
            case .garbage: bytes = Data((0..<400).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) })
            case .otherVersion: bytes[4] = 99
            }
        }
    }

    @Test(arguments: Damage.allCases)
    func aDamagedEntryIsAMissAndIsRemoved(_ damage: Damage) async throws {
        let store = DiskCacheStore(directory: folder.url, byteLimit: 1 << 20)
        await store.store(entry("v1", bytes: 300), for: "a")
        let file = try #require(files.first)
        var bytes = try Data(contentsOf: file)
        damage.apply(to: &bytes)
        try bytes.write(to: file)

        #expect(await store.cachedResponse(for: "a") == nil)
        #expect(files.isEmpty)
        await store.store(entry("v2"), for: "a")
        #expect(await store.cachedResponse(for: "a")?.body == Data("v2".utf8))
    }

    @Test func anotherKeysEntryUnderTheSameNameIsAMissButStays() async throws {
        // A hash collision, made by hand: "b"'s file holds "a"'s entry.
        let store = DiskCacheStore(directory: folder.url, byteLimit: 1 << 20)
        await store.store(entry("a"), for: "a")
        let aFile = try #require(files.first)
        let folderHandle = CacheFolder(directory: folder.url, byteLimit: 1 << 20, fileExtension: "response")
        let bFile = folder.url.appendingPathComponent(folderHandle.fileName(for: "b"))
        try FileManager.default.moveItem(at: aFile, to: bFile)

        #expect(await store.cachedResponse(for: "b") == nil)
        #expect(FileManager.default.fileExists(atPath: bFile.path))
    }

    @Test func aFolderFullOfGarbageIsAllMisses() async throws {
        // Under the names lookups use, so each one reads garbage.
        for index in 0..<200 {
            let bytes = Data((0..<(index &* 37 % 2_000)).map { UInt8(truncatingIfNeeded: $0 &* (index | 1) &+ index) })
            let name =
                index % 4 == 3
                ? "junk-\(index)" : CacheFolder.fileName(for: "\(index)", fileExtension: "response")
            try bytes.write(to: folder.url.appendingPathComponent(name))
        }
        try FileManager.default.createDirectory(
            at: folder.url.appendingPathComponent("folder.response"),
            withIntermediateDirectories: true
        )
        let store = DiskCacheStore(directory: folder.url, byteLimit: 64 * 1024)
        for index in 0..<200 {
            #expect(await store.cachedResponse(for: "\(index)") == nil)
        }
        // The bad ones were removed; the strangers stay.
        #expect(files.map(\.lastPathComponent) == ["folder.response"])
        #expect(FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("junk-3").path))
        await store.store(entry("v1"), for: "a")
        #expect(await store.cachedResponse(for: "a")?.body == Data("v1".utf8))
        // The sweep counted the garbage with the entries and kept to the limit.
        #expect(await store.currentSize() <= 64 * 1024)
    }

    @Test func aFolderDeletedWhileInUseIsMadeAgain() async throws {
        let store = DiskCacheStore(directory: folder.url, byteLimit: 1 << 20)
        await store.store(entry("v1"), for: "a")
        try FileManager.default.removeItem(at: folder.url)

        #expect(await store.cachedResponse(for: "a") == nil)
        #expect(await store.currentSize() == 0)
        await store.store(entry("v2"), for: "a")
        #expect(await store.cachedResponse(for: "a")?.body == Data("v2".utf8))
        let permissions = try FileManager.default.attributesOfItem(atPath: folder.url.path)[.posixPermissions] as? Int
        #expect(permissions == 0o700)
        let filePermissions =
            try FileManager.default.attributesOfItem(atPath: try #require(files.first).path)[
                .posixPermissions
            ] as? Int
        #expect(filePermissions == 0o600)
    }

    @Test func aTemporaryFileLeftByACrashIsRemovedOnlyWhenOld() async throws {
        let fresh = folder.url.appendingPathComponent(".tmp-being-written")
        let abandoned = folder.url.appendingPathComponent(".tmp-abandoned")
        try Data("half".utf8).write(to: fresh)
        try Data("half".utf8).write(to: abandoned)
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-7_200)],
            ofItemAtPath: abandoned.path
        )
        let store = DiskCacheStore(directory: folder.url, byteLimit: 1 << 20)
        await store.store(entry("v1"), for: "a")  // the first write lists the folder
        // Another process may be writing the fresh one.
        #expect(FileManager.default.fileExists(atPath: fresh.path))
        #expect(!FileManager.default.fileExists(atPath: abandoned.path))
    }

    // MARK: Two processes

    /// Two stores on one folder share nothing but the files, as two processes would.
    @Test func twoStoresOnOneFolderSeeEachOthersEntries() async {
        let app = DiskCacheStore(directory: folder.url, byteLimit: 1 << 20)
        let extensionStore = DiskCacheStore(directory: folder.url, byteLimit: 1 << 20, sweeps: false)
        await app.store(entry("v1"), for: "a")
        #expect(await extensionStore.cachedResponse(for: "a")?.body == Data("v1".utf8))
        await extensionStore.store(entry("v2"), for: "a")
        #expect(await app.cachedResponse(for: "a")?.body == Data("v2".utf8))
        await extensionStore.removeCachedResponse(for: "a")
        #expect(await app.cachedResponse(for: "a") == nil)
    }

    @Test func aSweepRemovesOnlyTheFilesItListed() async throws {
        let store = DiskCacheStore(directory: folder.url, byteLimit: 1 << 20)
        await store.store(entry("x", bytes: 100), for: "a")
        await store.store(entry("x", bytes: 100), for: "b")
        let listed = store.folder.list()
        // Another process puts a new "a" in place after the listing.
        let other = DiskCacheStore(directory: folder.url, byteLimit: 1 << 20)
        await other.store(entry("y", bytes: 100), for: "a")

        let left = store.folder.evict(listed, downTo: 0)
        #expect(await store.cachedResponse(for: "a")?.body.prefix(1) == Data("y".utf8))
        #expect(await store.cachedResponse(for: "b") == nil)
        #expect(left == listed.first { $0.name == store.folder.fileName(for: "a") }?.size)
    }

    @Test func aReaderRemovesOnlyTheBadFileItRead() async throws {
        let folderHandle = CacheFolder(directory: folder.url, byteLimit: 1 << 20, fileExtension: "response")
        let name = folderHandle.fileName(for: "a")
        #expect(folderHandle.write([1, 2, 3], as: name))
        let (_, identity) = try #require(folderHandle.read(name, maximumSize: 1 << 20))
        // Meanwhile another process puts a good entry in its place.
        let other = DiskCacheStore(directory: folder.url, byteLimit: 1 << 20)
        await other.store(entry("good"), for: "a")

        folderHandle.remove(name, ifStill: identity)
        #expect(await other.cachedResponse(for: "a")?.body == Data("good".utf8))
    }

    @Test func theOtherProcessesWritesAreCountedAtTheNextSweep() async throws {
        func key(_ prefix: String, _ index: Int) -> String { prefix + (index < 10 ? "0" : "") + "\(index)" }
        let size = try await fileSize(of: entry("x", bytes: 100), key: key("x", 0))
        let limit = size * 10
        let app = DiskCacheStore(directory: folder.url, byteLimit: limit)
        let extensionStore = DiskCacheStore(directory: folder.url, byteLimit: limit, sweeps: false)
        await app.store(entry("x", bytes: 100), for: key("x", 0))  // lists the folder: one entry
        for index in 0..<20 {
            await extensionStore.store(entry("x", bytes: 100), for: key("e", index))
        }
        #expect(await app.currentSize() == 21 * size)  // the extension never sweeps
        for index in 1...10 {
            await app.store(entry("x", bytes: 100), for: key("x", index))
        }
        // The app's own count went over its limit, and its sweep saw everything.
        #expect(await app.currentSize() <= limit)
        #expect(await app.cachedResponse(for: key("x", 10)) != nil)
        #expect(await app.cachedResponse(for: key("e", 0)) == nil)
    }

    /// Readers racing writers see a whole entry, old or new: never a torn
    /// one, which would read as a miss.
    @Test func concurrentReadersNeverSeeHalfAnEntry() async {
        let first = DiskCacheStore(directory: folder.url, byteLimit: 1 << 22)
        let second = DiskCacheStore(directory: folder.url, byteLimit: 1 << 22)
        let versions = (0..<8).map { entry("v\($0)", bytes: 200_000 + $0) }
        let bodies = Set(versions.map(\.body))
        await first.store(versions[0], for: "a")
        await withTaskGroup(of: Bool.self) { group in
            for (index, version) in versions.enumerated().dropFirst() {
                group.addTask {
                    await (index % 2 == 0 ? first : second).store(version, for: "a")
                    return true
                }
                for reader in [first, second] {
                    group.addTask {
                        guard let read = await reader.cachedResponse(for: "a") else { return false }
                        return bodies.contains(read.body)
                    }
                }
            }
            for await whole in group { #expect(whole) }
        }
        #expect(files.count == 1)
    }
}
