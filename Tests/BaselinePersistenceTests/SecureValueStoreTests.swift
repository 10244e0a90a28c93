import BaselinePersistence
import BaselineTesting
import Foundation
import Testing

@Suite("SecureValueStore")
struct SecureValueStoreTests {
    struct Session: Codable, Sendable, Equatable {
        var token: String
        var userID: String
        var expires: Date
    }

    let directory: TemporaryDirectory
    let fileURL: URL
    let store: SecureValueStore<Session>
    let session = Session(token: "s3cr3t", userID: "astro", expires: Date(timeIntervalSince1970: 2_000_000_000))

    init() throws {
        directory = try TemporaryDirectory()
        fileURL = directory.url.appendingPathComponent("nested/session.json")
        store = SecureValueStore(fileURL: fileURL, logger: LogRecorder().logger())
    }

    @Test func aValueRoundTripsThroughTheFile() async throws {
        #expect(try await store.load() == nil)
        try await store.save(session)
        #expect(try await store.load() == session)
        #expect(try await SecureValueStore<Session>(fileURL: fileURL).load() == session)
        try await store.clear()
        #expect(try await store.load() == nil)
    }

    @Test func theFileIsOwnerOnly() async throws {
        try await store.save(session)
        let mode = try FileManager.default.attributesOfItem(atPath: fileURL.path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
    }

    @Test func aValueOfAnotherShapeIsCorrupt() async throws {
        try await SecureValueStore<[String]>(fileURL: fileURL).save(["not", "a", "session"])
        await #expect(throws: SecureValueStoreError.corrupt(path: fileURL.path)) { try await store.load() }
    }

    @Test func aTruncatedFileIsCorruptAndNothingLeaks() async throws {
        let logs = LogRecorder()
        let store = SecureValueStore<Session>(fileURL: fileURL, logger: logs.logger())
        try await store.save(session)
        let whole = try Data(contentsOf: fileURL)
        try whole.prefix(whole.count / 2).write(to: fileURL)
        do {
            _ = try await store.load()
            Issue.record("a truncated file must not load")
        } catch {
            #expect(error == .corrupt(path: fileURL.path))
            #expect(!"\(error)".contains("s3cr3t"))
        }
        #expect(!logs.text.contains("s3cr3t"))
    }

    @Test func aWriteFailureIsTypedAndKeepsTheOldValue() async throws {
        try await store.save(session)
        // Make the destination a non-empty directory: the rename over it must fail.
        let blocked = directory.url.appendingPathComponent("blocked")
        try FileManager.default.createDirectory(
            at: blocked.appendingPathComponent("inside"),
            withIntermediateDirectories: true
        )
        let blockedStore = SecureValueStore<Session>(fileURL: blocked, logger: LogRecorder().logger())
        await #expect {
            try await blockedStore.save(session)
        } throws: { error in
            if case .unwritable = error as? SecureValueStoreError { true } else { false }
        }
        #expect(try await store.load() == session)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter {
            $0.hasSuffix(".tmp")
        }
        #expect(leftovers.isEmpty)
    }
}
