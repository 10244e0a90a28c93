import BaselineTesting
import Foundation
import SpacePhotosCore
import Testing

/// The session's tokens while a refresh is on the network: a logout or a new
/// login wins over it, and the refresh token is presented once.
@Suite("SessionTokens", .timeLimit(.minutes(2)))
struct SessionTokensTests {
    let directory: TemporaryDirectory
    let refresh = ControllableCall<RefreshToken, AuthAPI.Grant>()
    let tokens: SessionTokens

    init() throws {
        directory = try TemporaryDirectory()
        let refresh = refresh
        tokens = SessionTokens(
            directory: directory.url,
            refresh: { try await refresh($0) },
            logger: LogRecorder().logger()
        )
    }

    static func grant(_ idToken: String, _ refreshToken: String) -> AuthAPI.Grant {
        AuthAPI.Grant(
            idToken: IDToken(rawValue: idToken),
            expiresIn: 900,
            refreshToken: RefreshToken(rawValue: refreshToken)
        )
    }

    /// Starts a refresh and returns it once it is on the network.
    func refreshOnTheNetwork(
        rejected: String
    ) async throws -> (Task<String, any Error>, ControllableCall<RefreshToken, AuthAPI.Grant>.Invocation) {
        let tokens = tokens
        let task = Task { try await tokens.refreshAccessToken(rejected: rejected) }
        return (task, try await refresh.nextCall())
    }

    /// Refreshes the test did not expect fail at once (instead of waiting
    /// for an answer that never comes), so a regression fails fast.
    struct UnexpectedRefresh: Error {}
    func failingFurtherRefreshes() -> Task<Void, Never> {
        let refresh = refresh
        return Task {
            while let call = try? await refresh.nextCall() { call.resume(throwing: UnexpectedRefresh()) }
        }
    }

    @Test func aRefreshStoresBothNewTokens() async throws {
        try await tokens.save(Self.grant("id-1", "refresh-1"))
        let (task, call) = try await refreshOnTheNetwork(rejected: "id-1")
        #expect(call.arguments == RefreshToken(rawValue: "refresh-1"))
        call.resume(returning: Self.grant("id-2", "refresh-2"))

        #expect(try await task.value == "id-2")
        #expect(try await tokens.accessToken() == "id-2")
        #expect(try await tokens.refreshTokenForTesting() == RefreshToken(rawValue: "refresh-2"))
        #expect(await tokens.refreshCount == 1)
    }

    @Test func loggingOutDuringARefreshKeepsTheSessionEnded() async throws {
        try await tokens.save(Self.grant("id-1", "refresh-1"))
        let (task, call) = try await refreshOnTheNetwork(rejected: "id-1")

        try await tokens.clear()
        call.resume(returning: Self.grant("id-2", "refresh-2"))

        await #expect(throws: SessionError.notLoggedIn) { try await task.value }
        #expect(try await tokens.accessToken() == nil)
        #expect(try await tokens.refreshTokenForTesting() == nil)
        #expect(await tokens.refreshCount == 0)
    }

    @Test func loggingInAsSomeoneElseDuringARefreshKeepsTheirTokens() async throws {
        try await tokens.save(Self.grant("astro-1", "astro-refresh-1"))
        let (task, call) = try await refreshOnTheNetwork(rejected: "astro-1")

        try await tokens.clear()
        try await tokens.save(Self.grant("luna-1", "luna-refresh-1"))
        call.resume(returning: Self.grant("astro-2", "astro-refresh-2"))

        await #expect(throws: SessionError.notLoggedIn) { try await task.value }
        #expect(try await tokens.accessToken() == "luna-1")
        #expect(try await tokens.refreshTokenForTesting() == RefreshToken(rawValue: "luna-refresh-1"))
    }

    @Test func aSecondRefreshJoinsTheOneOnTheNetwork() async throws {
        try await tokens.save(Self.grant("id-1", "refresh-1"))
        let (first, call) = try await refreshOnTheNetwork(rejected: "id-1")
        let others = failingFurtherRefreshes()
        defer { others.cancel() }
        let tokens = tokens
        // Rejected with another token (one from before the last login): the
        // refresh token on the network must not be presented a second time.
        let second = Task { try await tokens.refreshAccessToken(rejected: "id-0") }

        call.resume(returning: Self.grant("id-2", "refresh-2"))
        #expect(try await first.value == "id-2")
        #expect(try await second.value == "id-2")
        #expect(refresh.callCount == 1)
    }

    @Test func aTokenRejectedAfterItWasReplacedGetsTheCurrentOne() async throws {
        try await tokens.save(Self.grant("id-2", "refresh-2"))
        let refreshes = failingFurtherRefreshes()
        defer { refreshes.cancel() }
        #expect(try await tokens.refreshAccessToken(rejected: "id-1") == "id-2")
        #expect(refresh.callCount == 0)
    }

    @Test func aRefreshWithoutARefreshTokenAsksForALogin() async throws {
        await #expect(throws: SessionError.notLoggedIn) {
            try await tokens.refreshAccessToken(rejected: "id-1")
        }
        #expect(refresh.callCount == 0)
    }
}
