import Foundation
import Testing

@testable import SpacePhotosServer

/// The refresh-token table stays bounded however many refreshes come, keeps
/// spotting the reuse of a recently spent token, and with a file writes a
/// line per change rather than the whole table.
// A time limit: rewriting the whole table on each change makes the
// ten-thousand-refresh runs take many minutes.
@Suite("RefreshTokenStore: rotation, reuse, bounds, the journal", .timeLimit(.minutes(3)))
struct RefreshTokenStoreTests {
    let start = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func tenThousandRefreshesOfOneChainKeepABoundedTable() async throws {
        let store = RefreshTokenStore(lifetime: .seconds(3600))
        var token = await store.issue(for: "astro", now: start)
        for step in 1...10_000 {
            token = try await store.rotate(token, now: start.addingTimeInterval(Double(step) / 100)).token
        }
        #expect(await store.chainCount == 1)
        #expect(await store.tokenCount == 1 + store.retiredPerChain)
        _ = try await store.rotate(token, now: start.addingTimeInterval(101))
    }

    @Test func reusingARecentlySpentTokenRevokesTheChain() async throws {
        let store = RefreshTokenStore(lifetime: .seconds(3600))
        var tokens = [await store.issue(for: "astro", now: start)]
        for _ in 0..<5 { tokens.append(try await store.rotate(tokens[tokens.count - 1], now: start).token) }
        await #expect(throws: RefreshTokenStore.Failure.invalid) { try await store.rotate(tokens[2], now: start) }
        // The current token went with the chain.
        await #expect(throws: RefreshTokenStore.Failure.invalid) { try await store.rotate(tokens[5], now: start) }
        #expect(await store.chainCount == 0)
        #expect(await store.tokenCount == 0)
    }

    @Test func aTokenSpentLongerAgoThanTheChainKeepsIsUnknown() async throws {
        // The trade-off of the bound: past `retiredPerChain` rotations, a
        // spent token is refused like any unknown one, without ending the chain.
        let store = RefreshTokenStore(lifetime: .seconds(3600), retiredPerChain: 2)
        let first = await store.issue(for: "astro", now: start)
        var current = first
        for _ in 0..<3 { current = try await store.rotate(current, now: start).token }
        await #expect(throws: RefreshTokenStore.Failure.invalid) { try await store.rotate(first, now: start) }
        _ = try await store.rotate(current, now: start)
    }

    @Test func pastTheMostChainsTheLeastRecentlyRefreshedEnd() async throws {
        let store = RefreshTokenStore(lifetime: .seconds(3600), maximumChains: 5)
        var tokens: [String] = []
        for index in 0..<8 { tokens.append(await store.issue(for: "member-\(index)", now: start)) }
        // The sixth, seventh and eighth logins ended the three oldest chains.
        #expect(await store.chainCount == 5)
        for index in 0..<3 {
            await #expect(throws: RefreshTokenStore.Failure.invalid) {
                try await store.rotate(tokens[index], now: start)
            }
        }
        for index in 3..<8 {
            #expect(try await store.rotate(tokens[index], now: start).subject == "member-\(index)")
        }
    }

    @Test func expiredChainsAreDroppedAFewAtATimeAsCallsCome() async throws {
        let store = RefreshTokenStore(lifetime: .seconds(60))
        for index in 0..<100 { _ = await store.issue(for: "member-\(index)", now: start) }
        let later = start.addingTimeInterval(61)
        // Each call drops up to four expired chains, oldest first.
        for index in 0..<25 { _ = await store.issue(for: "late-\(index)", now: later) }
        #expect(await store.chainCount == 25)
    }

    @Test func anExpiredTokenIsRefused() async throws {
        let store = RefreshTokenStore(lifetime: .seconds(60))
        let token = await store.issue(for: "astro", now: start)
        await #expect(throws: RefreshTokenStore.Failure.invalid) {
            try await store.rotate(token, now: start.addingTimeInterval(60))
        }
    }

    // MARK: With a file

    /// A folder removed when the test ends.
    final class Folder {
        let url: URL
        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(at: url) }
    }

    static func attributes(_ file: URL) throws -> (inode: Int, size: Int, mode: Int) {
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        return (
            (attributes[.systemFileNumber] as? NSNumber)?.intValue ?? -1,
            (attributes[.size] as? NSNumber)?.intValue ?? -1,
            (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
        )
    }

    @Test func aRefreshAppendsALineInsteadOfRewritingTheTable() async throws {
        let folder = try Folder()
        let file = folder.url.appendingPathComponent("tokens.json")
        let store = RefreshTokenStore(lifetime: .seconds(3600), file: file)
        var tokens: [String] = []
        for index in 0..<2_000 { tokens.append(await store.issue(for: "member-\(index)", now: start)) }
        let before = try Self.attributes(file)
        #expect(before.mode == 0o600)
        _ = try await store.rotate(tokens[1_000], now: start)
        let after = try Self.attributes(file)
        // The same file, one line longer: not a new table renamed over it.
        #expect(after.inode == before.inode)
        #expect(after.size > before.size)
        #expect(after.size - before.size < 300)
    }

    @Test func tenThousandRefreshesKeepTheJournalSmallAndItReadsBack() async throws {
        let folder = try Folder()
        let file = folder.url.appendingPathComponent("tokens.json")
        let store = RefreshTokenStore(lifetime: .seconds(3600), file: file)
        var tokens = [await store.issue(for: "astro", now: start)]
        for _ in 0..<10_000 { tokens.append(try await store.rotate(tokens[tokens.count - 1], now: start).token) }
        let size = try Self.attributes(file).size
        // At most 2 × 9 + 1,024 lines of about 190 bytes before a rewrite.
        #expect(size < 256 * 1024)
        #expect(try Self.attributes(file).mode == 0o600)

        // A restart reads the table back: the current token works, and a
        // recently spent one still revokes the chain.
        let restarted = RefreshTokenStore(lifetime: .seconds(3600), file: file)
        #expect(await restarted.tokenCount == 1 + restarted.retiredPerChain)
        let next = try await restarted.rotate(tokens[10_000], now: start)
        #expect(next.subject == "astro")
        await #expect(throws: RefreshTokenStore.Failure.invalid) {
            try await restarted.rotate(tokens[9_998], now: start)
        }
        await #expect(throws: RefreshTokenStore.Failure.invalid) { try await restarted.rotate(next.token, now: start) }

        // And so does the next restart: the revocation was written down.
        let again = RefreshTokenStore(lifetime: .seconds(3600), file: file)
        #expect(await again.chainCount == 0)
    }

    @Test func aLineCutShortByACrashIsSkippedAndTheJournalRewritten() async throws {
        let folder = try Folder()
        let file = folder.url.appendingPathComponent("tokens.json")
        let store = RefreshTokenStore(lifetime: .seconds(3600), file: file)
        let first = await store.issue(for: "astro", now: start)
        let second = await store.issue(for: "comet", now: start)
        let handle = try FileHandle(forWritingTo: file)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"chain":2,"tok"#.utf8))
        try handle.close()

        let restarted = RefreshTokenStore(lifetime: .seconds(3600), file: file)
        let rotated = try await restarted.rotate(first, now: start)
        #expect(rotated.subject == "astro")
        // Every line of the rewritten journal reads.
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.hasSuffix("\n"))
        for line in text.split(separator: "\n") {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "\(line)")
        }
        let again = RefreshTokenStore(lifetime: .seconds(3600), file: file)
        #expect(try await again.rotate(second, now: start).subject == "comet")
        #expect(try await again.rotate(rotated.token, now: start).subject == "astro")
    }

    @Test func aFileThatIsNotAJournalStartsAnEmptyTable() async throws {
        let folder = try Folder()
        let file = folder.url.appendingPathComponent("tokens.json")
        try Data(#"{"entries":{},"liveToken":{},"nextChain":3}"#.utf8).write(to: file)
        let store = RefreshTokenStore(lifetime: .seconds(3600), file: file)
        #expect(await store.tokenCount == 0)
        let token = await store.issue(for: "astro", now: start)
        let restarted = RefreshTokenStore(lifetime: .seconds(3600), file: file)
        #expect(try await restarted.rotate(token, now: start).subject == "astro")
    }
}
