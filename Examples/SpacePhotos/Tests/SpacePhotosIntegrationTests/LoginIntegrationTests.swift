import BaselineConcurrency
import BaselineHTTP
import BaselineStore
import BaselineTesting
import Foundation
import HTTPTypes
import SpacePhotosCore
import SpacePhotosServer
import Testing

@testable import spacephotos

@Suite("Login over HTTP", .timeLimit(.minutes(2)))
struct LoginIntegrationTests {
    let astro = DemoUser.demo

    @Test func theDemoUserLogsInAndSeesTheProfile() async throws {
        try await withServer { server in
            let token = try await AuthAPI(client: server.client).logIn(
                for: User.ID(rawValue: astro.id),
                with: astro.password
            )
            let member = try await MemberAPI(client: server.client).me(token: token)
            #expect(member.id == User.ID(rawValue: astro.id))
            #expect(member.nickname == astro.nickname)
            #expect(member.birthday.formatted(.iso8601.year().month().day()) == astro.birthday)
        }
    }

    @Test func theLoginAnswerCarriesTheTokenLifetime() async throws {
        try await withServer { server in
            let body = try await server.client.send(
                Request<[String: JSONValue]>.post(
                    "/auth/login",
                    body: .json(["id": astro.id, "password": astro.password])
                )
            ).value
            #expect(body["expiresIn"] == .number(3600))
            if case let .string(token)? = body["idToken"] {
                #expect(!token.isEmpty)
            } else {
                Issue.record("no idToken")
            }
        }
    }

    @Test func aWrongPasswordOrUnknownIdIsInvalidCredentials() async throws {
        try await withServer { server in
            let api = AuthAPI(client: server.client)
            await #expect(throws: LoginError.invalidCredentials) {
                try await api.logIn(for: User.ID(rawValue: astro.id), with: "wrong")
            }
            await #expect(throws: LoginError.invalidCredentials) {
                try await api.logIn(for: User.ID(rawValue: "nobody"), with: "whatever")
            }
        }
    }

    @Test func repeatedFailuresAreRateLimitedWithRetryAfter() async throws {
        // The server's clock stands still, so the lockout's remaining time is exact.
        let now = Date()
        try await withServer({
            $0.rateLimit = .init(maxFailures: 3, window: .seconds(60), lockout: .seconds(90))
            $0.now = { now }
        }) { server in
            let api = AuthAPI(client: server.client)
            let id = User.ID(rawValue: astro.id)
            for _ in 0..<3 {
                await #expect(throws: LoginError.invalidCredentials) { try await api.logIn(for: id, with: "wrong") }
            }
            // Locked out: even the right password is refused, and the answer says for how long.
            await #expect(throws: LoginError.rateLimited(retryAfterSeconds: 90)) {
                try await api.logIn(for: id, with: astro.password)
            }
            // Other ids are not affected.
            let luna = DemoUser.all[1]
            _ = try await api.logIn(for: User.ID(rawValue: luna.id), with: luna.password)
        }
    }

    @Test func parallelGuessesCannotSlipPastTheRateLimit() async throws {
        try await withServer({ $0.rateLimit = .init(maxFailures: 3, window: .seconds(60), lockout: .seconds(60)) }) {
            server in
            let api = AuthAPI(client: server.client)
            let outcomes = await withTaskGroup(of: LoginError?.self) { group in
                for attempt in 0..<20 {
                    group.addTask {
                        do {
                            _ = try await api.logIn(for: User.ID(rawValue: "astro"), with: "guess-\(attempt)")
                            return nil
                        } catch {
                            return error as? LoginError
                        }
                    }
                }
                return await group.reduce(into: [LoginError?]()) { $0.append($1) }
            }
            // Checked and counted in one step: only 3 guesses ever reach bcrypt.
            #expect(outcomes.filter { $0 == .invalidCredentials }.count == 3)
            #expect(outcomes.filter { if case .rateLimited = $0 { true } else { false } }.count == 17)
        }
    }

    @Test func fiftyParallelWrongPasswordsLockTheIdAndThenRefuseTheRightOne() async throws {
        // The default policy: 5 failures lock the id.
        try await withServer { server in
            let api = AuthAPI(client: server.client)
            let id = User.ID(rawValue: astro.id)
            let outcomes = await withTaskGroup(of: LoginError?.self) { group in
                for attempt in 0..<50 {
                    group.addTask {
                        do {
                            _ = try await api.logIn(for: id, with: "wrong-\(attempt)")
                            return nil
                        } catch {
                            return error as? LoginError
                        }
                    }
                }
                return await group.reduce(into: [LoginError?]()) { $0.append($1) }
            }
            let limit = LoginRateLimiter.Policy().maxFailures
            #expect(outcomes.filter { $0 == .invalidCredentials }.count == limit)
            #expect(outcomes.filter { if case .rateLimited = $0 { true } else { false } }.count == 50 - limit)
            // Locked: the right password is refused too, without being checked.
            await #expect {
                try await api.logIn(for: id, with: astro.password)
            } throws: { error in
                if case .rateLimited = error as? LoginError { true } else { false }
            }
        }
    }

    /// Cancelled at once, a little later, or as it comes up: whichever way
    /// the start ends, nothing is left listening on the server's port.
    @Test(arguments: [0, 5, 50, 500])
    func aCancelledStartReturnsAndLeavesNoServer(yieldsBeforeCancelling: Int) async throws {
        let port = try LoopbackSockets.freePort()
        let configuration = ExampleServer.Configuration(port: port, passwordHasher: PasswordHasher(cost: 4))
        let starting = Task { try await ExampleServer(configuration: configuration).start() }
        for _ in 0..<yieldsBeforeCancelling { await Task.yield() }
        starting.cancel()
        switch await starting.result {
        case let .success(server):
            #expect(try LoopbackSockets.isListening(port))
            await server.stop()  // it was up before the cancellation was seen
        case let .failure(error):
            #expect(error is CancellationError)
        }
        #expect(try !LoopbackSockets.isListening(port))
    }

    @Test func aStartCancelledOnceItListensLeavesNoServer() async throws {
        let port = try LoopbackSockets.freePort()
        let events = ServerLogEvents()
        let configuration = ExampleServer.Configuration(
            port: port,
            passwordHasher: PasswordHasher(cost: 4),
            logger: events.logger()
        )
        let starting = Task { try await ExampleServer(configuration: configuration).start() }
        try await events.first(containing: "Server started and listening")
        starting.cancel()
        if case let .success(server) = await starting.result {
            await server.stop()  // it returned before the cancellation was seen
        }
        #expect(try !LoopbackSockets.isListening(port))
    }

    @Test func theProfileNeedsAValidToken() async throws {
        let secret = Data(repeating: 7, count: 32)
        try await withServer({ $0.tokenSigner = TokenSigner(secret: secret, lifetime: .seconds(3600)) }) { server in
            let client = server.client
            let valid = try await AuthAPI(client: client).logIn(for: User.ID(rawValue: astro.id), with: astro.password)

            func status(with authorization: String?) async throws -> (HTTPResponse.Status, String?) {
                var request = Request<Data>.get("/members/me")
                if let authorization { request.headerFields[.authorization] = authorization }
                request.acceptableStatusCodes = 200..<600
                let response = try await client.send(request)
                let message = try? JSONDecoder().decode(APIError.Document.self, from: response.body).error.message
                return (response.status, message)
            }

            #expect(try await status(with: "Bearer \(valid.rawValue)").0 == .ok)
            #expect(try await status(with: nil).0 == .unauthorized)
            #expect(try await status(with: "Basic \(Data("astro:pw".utf8).base64EncodedString())").0 == .unauthorized)

            // A forged token: the claims changed, the signature kept.
            var parts = valid.rawValue.split(separator: ".").map(String.init)
            let forgedClaims = #"{"sub":"luna","iat":0,"exp":9999999999}"#
            parts[1] = Data(forgedClaims.utf8).base64EncodedString()
                .replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-").replacingOccurrences(
                    of: "/",
                    with: "_"
                )
            #expect(try await status(with: "Bearer \(parts.joined(separator: "."))").0 == .unauthorized)

            // A token signed with another key.
            let foreign = TokenSigner.random(lifetime: .seconds(3600)).issue(for: astro.id, now: Date())
            #expect(try await status(with: "Bearer \(foreign)").0 == .unauthorized)

            // An expired token, properly signed.
            let expired = TokenSigner(secret: secret, lifetime: .seconds(60)).issue(
                for: astro.id,
                now: Date().addingTimeInterval(-3600)
            )
            let (expiredStatus, message) = try await status(with: "Bearer \(expired)")
            #expect(expiredStatus == .unauthorized)
            #expect(message?.contains("expired") == true)

            // Garbage.
            #expect(try await status(with: "Bearer not-a-token").0 == .unauthorized)
        }
    }

    @Test func tokensExpireWithTheServersClock() async throws {
        let clock = ManualDate(Date())
        try await withServer({ $0.now = { clock.now } }) { server in
            let client = server.client
            let token = try await AuthAPI(client: client).logIn(for: User.ID(rawValue: astro.id), with: astro.password)
            _ = try await MemberAPI(client: client).me(token: token)
            clock.advance(by: 3601)
            await #expect {
                try await MemberAPI(client: client).me(token: token)
            } throws: { ($0 as? HTTPClientError)?.status == .unauthorized }
        }
    }

    @Test func badBodiesGetJSONErrorsAndTheServerKeepsServing() async throws {
        try await withServer { server in
            let client = server.client

            func post(_ body: Data) async throws -> HTTPClientError {
                do {
                    try await client.send(
                        Request<Void>.post("/auth/login", body: .data(body, contentType: "application/json"))
                    )
                } catch let error as HTTPClientError {
                    return error
                }
                throw Failure.unexpectedSuccess
            }

            let malformed = try await post(Data(#"{"id": "astro", "password": "#.utf8))
            #expect(malformed.status == .badRequest)
            #expect(malformed.serverError?.code == "bad_request")

            let missing = try await post(Data(#"{"id": "astro"}"#.utf8))
            #expect(missing.status == .badRequest)
            #expect(missing.serverError?.message.contains("password") == true)

            let wrongType = try await post(Data(#"{"id": 1, "password": "x"}"#.utf8))
            #expect(wrongType.status == .badRequest)

            let oversized = try await post(
                Data(#"{"id": "astro", "password": ""#.utf8) + Data(repeating: 0x61, count: 20 * 1024)
                    + Data(#""}"#.utf8)
            )
            #expect(oversized.status == .contentTooLarge)
            #expect(oversized.serverError?.code == "body_too_large")

            let unknownRoute = try await {
                do { try await client.send(Request<Void>.get("/no/such/route")) } catch let error as HTTPClientError {
                    return error
                }
                throw Failure.unexpectedSuccess
            }()
            #expect(unknownRoute.status == .notFound)
            #expect(unknownRoute.serverError?.code == "not_found")
            #expect(
                unknownRoute.serverError?.message
                    == "There is no GET /no/such/route on this server (the routes are in openapi.json)."
            )

            // Still serving.
            _ = try await AuthAPI(client: client).logIn(for: User.ID(rawValue: astro.id), with: astro.password)
        }
    }

    @Test func theLegacyCallbackAPIBridgedToAsyncLogsIn() async throws {
        try await withServer { server in
            let legacy = LegacyAuthAPI(baseURL: server.baseURL)
            let token = try await legacy.logIn(for: User.ID(rawValue: astro.id), with: astro.password)
            _ = try await MemberAPI(client: server.client).me(token: token)
            await #expect(throws: LoginError.invalidCredentials) {
                try await legacy.logIn(for: User.ID(rawValue: astro.id), with: "wrong")
            }
        }
    }

    @MainActor
    @Test func theLoginScreenLogsInEndToEnd() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "spacephotos-it-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withServer { server in
            let client = server.client
            let store = IDTokenStore(fileURL: directory.appendingPathComponent("id-token.json"))
            let auth = AuthService(authAPI: AuthAPI(client: client), memberAPI: MemberAPI(client: client), store: store)
            let dismissals = LockedValue(0)
            let login = Store(initialState: LoginFeature.State()) {
                LoginFeature()
            } withDependencies: {
                $0.session.logIn = { id, password in try await auth.logIn(for: id, with: password) }
                $0.dismiss = DismissEffect { dismissals.withLock { $0 += 1 } }
            }

            login.binding(\.id).value = astro.id
            login.binding(\.password).value = "wrong"
            await login.send(.loginButtonTapped).finish()
            #expect(login.errorMessage == .invalidCredentials)
            #expect(dismissals.current == 0)

            login.binding(\.password).value = astro.password
            await login.send(.loginButtonTapped).finish()
            #expect(login.errorMessage == nil)
            #expect(dismissals.current == 1)
            let member = try await auth.currentMember()
            #expect(member.nickname == astro.nickname)
        }
    }

    @Test func anUnreachableServerIsANetworkError() async throws {
        // Port 1: test servers bind port 0 and get ephemeral ports (32768 and
        // up), so nothing in this suite, or started beside it, listens there.
        let client = HTTPClient(baseURL: URL(string: "http://127.0.0.1:1")!, transport: URLSessionTransport())
        await #expect {
            try await AuthAPI(client: client).logIn(for: User.ID(rawValue: "astro"), with: "pw")
        } throws: { error in
            if case .networkUnreachable = error as? LoginError { true } else { false }
        }
    }

    enum Failure: Error { case unexpectedSuccess }
}

/// A date the test moves forward by hand.
final class ManualDate: Sendable {
    private let value: LockedValue<Date>
    init(_ start: Date) { value = LockedValue(start) }
    var now: Date { value.current }
    func advance(by seconds: TimeInterval) { value.withLock { $0 += seconds } }
}

/// Any JSON value, for checking a document's raw shape.
enum JSONValue: Decodable, Equatable, Sendable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }
}
