import BaselinePersistence
import BaselineTesting
import Foundation
import SpacePhotosCore
import Testing

@testable import spacephotos

@Suite("IDTokenStore")
struct IDTokenStoreTests {
    let directory: TemporaryDirectory
    let fileURL: URL
    let store: IDTokenStore

    init() throws {
        directory = try TemporaryDirectory()
        fileURL = directory.url.appendingPathComponent("tokens/id-token.json")
        store = IDTokenStore(fileURL: fileURL, logger: LogRecorder().logger())
    }

    @Test func aStoredTokenReadsBack() async throws {
        try await store.update(IDToken(rawValue: "abc.def.ghi"))
        #expect(try await store.load() == IDToken(rawValue: "abc.def.ghi"))
        // A new store on the same file (the next launch) reads it too.
        #expect(try await IDTokenStore(fileURL: fileURL).load() == IDToken(rawValue: "abc.def.ghi"))
    }

    @Test func anEmptyStoreHasNoToken() async throws {
        #expect(try await store.load() == nil)
    }

    @Test func theFileIsPrivateToItsOwner() async throws {
        try await store.update(IDToken(rawValue: "secret"))
        let attributes = try FileManager.default.attributesOfItem(atPath: fileURL.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    @Test func clearingLogsOut() async throws {
        try await store.update(IDToken(rawValue: "secret"))
        try await store.clear()
        #expect(try await store.load() == nil)
        try await store.clear()  // clearing twice is fine
    }

    @Test(arguments: [
        Data("not json".utf8),
        Data(#"{"version":1}"#.utf8),
        Data(#"{"version":2,"value":"x"}"#.utf8),
        Data(#"{"version":1,"value":""}"#.utf8),
        Data(#"{"version":1,"val"#.utf8),
        Data([0xFF, 0xFE, 0x00]),
    ])
    func aCorruptFileIsATypedError(contents: Data) async throws {
        try FileManager.default.createDirectory(
            at: fileURL.deletingLastPathComponent(),
            withIntermediateDirectories: true
        )
        try contents.write(to: fileURL)
        await #expect(throws: SecureValueStoreError.corrupt(path: fileURL.path)) { try await store.load() }
    }

    @Test func anOversizedFileIsRefusedUnread() async throws {
        try FileManager.default.createDirectory(
            at: fileURL.deletingLastPathComponent(),
            withIntermediateDirectories: true
        )
        try Data(count: 1_000_000).write(to: fileURL)
        await #expect(throws: SecureValueStoreError.corrupt(path: fileURL.path)) { try await store.load() }
    }

    @Test func anUnreadableFileIsATypedError() async throws {
        // A directory where the file should be cannot be read as a file, even by root.
        try FileManager.default.createDirectory(at: fileURL, withIntermediateDirectories: true)
        await #expect {
            try await store.load()
        } throws: { error in
            if case .unreadable = error as? SecureValueStoreError { true } else { false }
        }
    }

    @Test func anUpdateReplacesTheFileAtomically() async throws {
        try await store.update(IDToken(rawValue: "first"))
        // A reader that opened the old file keeps seeing it whole: the update
        // renamed a new file into place instead of rewriting this one.
        let reader = try FileHandle(forReadingFrom: fileURL)
        defer { try? reader.close() }
        try await store.update(IDToken(rawValue: "second"))
        let old = try #require(try reader.readToEnd())
        #expect(String(decoding: old, as: UTF8.self).contains("first"))
        #expect(try await store.load() == IDToken(rawValue: "second"))
        // No temporary files are left behind.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: fileURL.deletingLastPathComponent().path)
        #expect(leftovers == ["id-token.json"])
    }

    @Test func concurrentUpdatesLeaveOneWholeToken() async throws {
        let store = self.store
        let tokens = (0..<50).map { IDToken(rawValue: "token-\($0)-" + String(repeating: "x", count: $0 * 100)) }
        await withTaskGroup(of: Void.self) { group in
            for token in tokens {
                group.addTask { try? await store.update(token) }
            }
        }
        let stored = try #require(try await store.load())
        #expect(tokens.contains(stored))
    }

    @Test func theTokenNeverAppearsInLogsOrErrors() async throws {
        let logs = LogRecorder()
        let store = IDTokenStore(fileURL: fileURL, logger: logs.logger())
        let token = IDToken(rawValue: "very-secret-token")
        try await store.update(token)
        // Damage the file after a valid write: the error names the file, not its content.
        try Data(#"{"version":1,"value":"very-secret-token""#.utf8).write(to: fileURL)
        do {
            _ = try await store.load()
            Issue.record("A damaged file should not load")
        } catch {
            #expect(!"\(error)".contains("very-secret-token"))
        }
        #expect(!logs.text.contains("very-secret-token"))
        #expect(!"\(token)".contains("very-secret-token"))
        #expect(!String(reflecting: token).contains("very-secret-token"))
        var dumped = ""
        dump(token, to: &dumped)
        #expect(!dumped.contains("very-secret-token"))
    }
}
