import BaselineConcurrency
import BaselineHTTP
import BaselineTesting
import Foundation
import HTTPTypes
import Testing

@Suite("BearerAuthentication", .timeLimit(.minutes(1)))
struct BearerAuthenticationTests {
    struct Failure: Error, Equatable {}

    /// Hands out its current token; a refresh waits until the test answers it
    /// through `refreshes`, then becomes the current token.
    final class StubTokens: AccessTokenProvider {
        let current: LockedValue<String?>
        let refreshes = ControllableCall<String, String>()

        init(_ token: String?) {
            current = LockedValue(token)
        }

        func accessToken() async throws -> String? { current.current }

        func refreshAccessToken(rejected: String) async throws -> String {
            let fresh = try await refreshes(rejected)
            current.withLock { $0 = fresh }
            return fresh
        }
    }

    let transport = StubTransport()
    let tokens = StubTokens("stale")

    init() {
        // The server accepts only the refreshed token.
        transport.on(.get, "/me") { request in
            request.headerFields[.authorization] == "Bearer fresh" ? .text("me") : .status(.unauthorized)
        }
    }

    func start(_ count: Int, through auth: BearerAuthentication) -> [Task<(HTTPResponse, Data), any Error>] {
        (0..<count).map { _ in
            Task { [transport] in try await send(apiRequest(.get, "/me"), through: [auth], to: transport) }
        }
    }

    var sentTokens: [String?] { transport.requests.map { $0.headerFields[.authorization] } }

    /// Refreshes a test does not expect fail at once, instead of waiting for
    /// an answer that never comes: a regression fails fast.
    func failingFurtherRefreshes() -> Task<Void, Never> {
        let refreshes = tokens.refreshes
        return Task {
            while let call = try? await refreshes.nextCall() { call.resume(throwing: Failure()) }
        }
    }

    @Test func sendsTheCurrentToken() async throws {
        tokens.current.withLock { $0 = "fresh" }
        let (response, _) = try await send(
            apiRequest(.get, "/me"),
            through: [BearerAuthentication(provider: tokens)],
            to: transport
        )
        #expect(response.status == .ok)
        #expect(sentTokens == ["Bearer fresh"])
    }

    @Test func aFixedTokenIsSentAndItsRejectionReturnedAsItIs() async throws {
        let auth = BearerAuthentication(token: "stale")
        let (response, _) = try await send(apiRequest(.get, "/me"), through: [auth], to: transport)
        // One request, no refresh and no second try: the 401 is the answer.
        #expect(response.status == .unauthorized)
        #expect(sentTokens == ["Bearer stale"])
        #expect(tokens.refreshes.callCount == 0)

        let (accepted, body) = try await send(
            apiRequest(.get, "/me"),
            through: [BearerAuthentication(token: "fresh")],
            to: transport
        )
        #expect(accepted.status == .ok)
        #expect(String(decoding: body, as: UTF8.self) == "me")
    }

    @Test func sendsNoTokenWhenThereIsNone() async throws {
        let tokens = StubTokens(nil)
        let (response, _) = try await send(
            apiRequest(.get, "/me"),
            through: [BearerAuthentication(provider: tokens)],
            to: transport
        )
        #expect(response.status == .unauthorized)
        #expect(sentTokens == [nil])
        #expect(tokens.refreshes.callCount == 0)
    }

    @Test func leavesARequestsOwnAuthorizationAlone() async throws {
        let request = apiRequest(.get, "/me", headerFields: [.authorization: "Bearer fresh"])
        _ = try await send(request, through: [BearerAuthentication(provider: StubTokens("other"))], to: transport)
        #expect(sentTokens == ["Bearer fresh"])
    }

    @Test func hundredConcurrent401sMakeOneRefreshAndAllSucceed() async throws {
        let auth = BearerAuthentication(provider: tokens)
        let requests = start(100, through: auth)
        try await auth.waitUntilRefreshWaiting(atLeast: 100)

        let refresh = try await tokens.refreshes.nextCall()
        #expect(refresh.arguments == "stale")
        refresh.resume(returning: "fresh")

        for request in requests {
            let (response, body) = try await request.value
            #expect(response.status == .ok)
            #expect(body == Data("me".utf8))
        }
        #expect(tokens.refreshes.callCount == 1)
        #expect(sentTokens.filter { $0 == "Bearer stale" }.count == 100)
        #expect(sentTokens.filter { $0 == "Bearer fresh" }.count == 100)
    }

    @Test func aFailedRefreshFailsEveryWaitingRequest() async throws {
        let auth = BearerAuthentication(provider: tokens)
        let requests = start(10, through: auth)
        try await auth.waitUntilRefreshWaiting(atLeast: 10)
        try await tokens.refreshes.nextCall().resume(throwing: Failure())

        for request in requests {
            await #expect {
                try await request.value
            } throws: { error in
                guard case let .authenticationFailed(.refreshFailed(underlying)) = error as? HTTPClientError else {
                    return false
                }
                return underlying is Failure
            }
        }
        #expect(tokens.refreshes.callCount == 1)
    }

    @Test func aSecond401IsReturnedNotLoopedOn() async throws {
        transport.on(.get, "/me", respond: .status(.unauthorized))
        let auth = BearerAuthentication(provider: tokens)
        let request = start(1, through: auth)[0]
        try await tokens.refreshes.nextCall().resume(returning: "fresh")

        let (response, _) = try await request.value
        #expect(response.status == .unauthorized)
        #expect(sentTokens == ["Bearer stale", "Bearer fresh"])
        #expect(tokens.refreshes.callCount == 1)
    }

    @Test func aRequestStartedAfterTheRefreshUsesTheNewToken() async throws {
        let auth = BearerAuthentication(provider: tokens)
        let first = start(1, through: auth)[0]
        try await tokens.refreshes.nextCall().resume(returning: "fresh")
        _ = try await first.value

        let (response, _) = try await send(apiRequest(.get, "/me"), through: [auth], to: transport)
        #expect(response.status == .ok)
        #expect(sentTokens == ["Bearer stale", "Bearer fresh", "Bearer fresh"])
        #expect(tokens.refreshes.callCount == 1)
    }

    @Test func a401ArrivingAfterTheRefreshEndedReusesItsToken() async throws {
        let slow = transport.hold(.get, "/slow")
        let auth = BearerAuthentication(provider: tokens)
        let straggler = Task { [transport] in try await send(apiRequest(.get, "/slow"), through: [auth], to: transport)
        }
        let firstAttempt = try await slow.nextCall()
        #expect(firstAttempt.arguments.headerFields[.authorization] == "Bearer stale")

        // Another request gets its 401 and the refresh completes.
        let other = start(1, through: auth)[0]
        try await tokens.refreshes.nextCall().resume(returning: "fresh")
        _ = try await other.value

        // Only now does the straggler's 401 arrive: it retries with the new token.
        firstAttempt.resume(returning: .status(.unauthorized))
        let retry = try await slow.nextCall()
        #expect(retry.arguments.headerFields[.authorization] == "Bearer fresh")
        retry.resume(returning: .text("slow"))
        #expect(try await straggler.value.0.status == .ok)
        #expect(tokens.refreshes.callCount == 1)
    }

    @Test func requestsRejectedWithTwoDifferentTokensShareOneRefresh() async throws {
        // A request still in flight with a token from before the last change…
        tokens.current.withLock { $0 = "older" }
        let slow = transport.hold(.get, "/slow")
        let auth = BearerAuthentication(provider: tokens)
        let straggler = Task { [transport] in try await send(apiRequest(.get, "/slow"), through: [auth], to: transport)
        }
        let firstAttempt = try await slow.nextCall()
        #expect(firstAttempt.arguments.headerFields[.authorization] == "Bearer older")

        // …while the current token is rejected and its refresh runs.
        tokens.current.withLock { $0 = "stale" }
        let other = start(1, through: auth)[0]
        let refresh = try await tokens.refreshes.nextCall()
        #expect(refresh.arguments == "stale")
        let others = failingFurtherRefreshes()
        defer { others.cancel() }

        // The straggler's 401 joins that refresh instead of presenting the
        // refresh token a second time.
        firstAttempt.resume(returning: .status(.unauthorized))
        try await auth.waitUntilRefreshWaiting(atLeast: 2)
        refresh.resume(returning: "fresh")
        #expect(try await other.value.0.status == .ok)
        let retry = answerTheRetry(slow)
        defer { retry.cancel() }
        #expect(try await straggler.value.0.status == .ok)
        #expect(try await retry.value == "Bearer fresh")
        #expect(tokens.refreshes.callCount == 1)
    }

    /// Answers the next request on `route` (a retry), returning its token;
    /// in a task, so that a request that fails instead of retrying fails
    /// the test at once.
    func answerTheRetry(_ route: ControllableCall<RecordedRequest, StubResponse>) -> Task<String?, any Error> {
        Task {
            let retry = try await route.nextCall()
            retry.resume(returning: .text("slow"))
            return retry.arguments.headerFields[.authorization]
        }
    }

    @Test func aRequestRejectedWithAReplacedTokenGetsTheCurrentOneWithoutARefresh() async throws {
        let slow = transport.hold(.get, "/slow")
        let auth = BearerAuthentication(provider: tokens)
        let straggler = Task { [transport] in try await send(apiRequest(.get, "/slow"), through: [auth], to: transport)
        }
        let firstAttempt = try await slow.nextCall()
        let refreshes = failingFurtherRefreshes()
        defer { refreshes.cancel() }
        // A login (not a refresh through this middleware) replaced the token.
        tokens.current.withLock { $0 = "fresh" }
        let retry = answerTheRetry(slow)
        defer { retry.cancel() }
        firstAttempt.resume(returning: .status(.unauthorized))
        #expect(try await straggler.value.0.status == .ok)
        #expect(try await retry.value == "Bearer fresh")
        #expect(tokens.refreshes.callCount == 0)
    }

    @Test func cancellingTheRequestThatStartedTheRefreshDoesNotCancelIt() async throws {
        let auth = BearerAuthentication(provider: tokens)
        let first = start(1, through: auth)[0]
        let refresh = try await tokens.refreshes.nextCall()
        let second = start(1, through: auth)[0]
        try await auth.waitUntilRefreshWaiting(atLeast: 2)

        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        #expect(!refresh.isCancelled)

        refresh.resume(returning: "fresh")
        #expect(try await second.value.0.status == .ok)
    }

    @Test func aStreamedBodyIsNotSentAgainAfterA401() async throws {
        transport.on(.put, "/me", respond: .status(.unauthorized))
        let (response, _) = try await send(
            apiRequest(.put, "/me"),
            body: streamedBody("data"),
            through: [BearerAuthentication(provider: tokens)],
            to: transport
        )
        #expect(response.status == .unauthorized)
        #expect(transport.requests.count == 1)
        #expect(tokens.refreshes.callCount == 0)
    }

    @Test func aProviderFailureIsReportedAsNoToken() async throws {
        struct Broken: AccessTokenProvider {
            func accessToken() async throws -> String? { throw Failure() }
            func refreshAccessToken(rejected: String) async throws -> String { throw Failure() }
        }
        await #expect {
            try await send(apiRequest(.get, "/me"), through: [BearerAuthentication(provider: Broken())], to: transport)
        } throws: { error in
            guard case .authenticationFailed(.tokenUnavailable) = error as? HTTPClientError else { return false }
            return true
        }
    }
}
