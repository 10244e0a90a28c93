import BaselineConcurrency
import BaselineHTTP
import Foundation
import HTTPTypes
import SpacePhotosServer
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("GET /basic/profile: HTTP Basic authentication", .timeLimit(.minutes(2)))
struct BasicAuthIntegrationTests {
    struct Profile: Decodable, Equatable {
        var id: String
        var nickname: String
    }

    static func basic(_ text: String) -> String {
        "Basic " + Data(text.utf8).base64EncodedString()
    }

    @Test func aDemoMemberSeesTheirProfile() async throws {
        try await withServer { server in
            for user in DemoUser.all {
                let profile = try await server.client.send(
                    Request<Profile>.get(
                        "/basic/profile",
                        headerFields: [.authorization: Self.basic("\(user.id):\(user.password)")]
                    )
                ).value
                #expect(profile == Profile(id: user.id, nickname: user.nickname))
            }
            // The scheme name is case-insensitive.
            let astro = DemoUser.demo
            let lowercase = "basic " + Data("\(astro.id):\(astro.password)".utf8).base64EncodedString()
            let response = try await server.client.answer(
                .get("/basic/profile", headerFields: [.authorization: lowercase])
            )
            #expect(response.status == .ok)
        }
    }

    /// The error code of an answer's JSON error document.
    static func errorCode(_ answer: RawHTTPClient.Answer) -> String? {
        try? JSONDecoder().decode(APIError.Document.self, from: answer.body).error.code
    }

    // The 401s are read with the raw client: URLSession on Linux never
    // completes a request answered by a Basic challenge it has no credentials for.

    @Test func withoutCredentialsTheAnswerIsAChallenge() async throws {
        try await withServer { server in
            let answer = try await RawHTTPClient.get("/basic/profile", port: server.port)
            #expect(answer.status == 401)
            #expect(answer.headers["www-authenticate"] == "Basic realm=\"spacephotos\"")
            #expect(answer.headers["content-type"] == "application/json; charset=utf-8")
            #expect(Self.errorCode(answer) == "unauthenticated")
        }
    }

    @Test(arguments: [
        ("wrong password", BasicAuthIntegrationTests.basic("astro:wrong"), "invalid_credentials"),
        ("unknown member", BasicAuthIntegrationTests.basic("nobody:stardust-42"), "invalid_credentials"),
        ("no colon", BasicAuthIntegrationTests.basic("astro"), "unauthenticated"),
        ("bad base64", "Basic %%%not-base64%%%", "unauthenticated"),
        ("no token", "Basic", "unauthenticated"),
        ("empty token", "Basic ", "unauthenticated"),
        ("not UTF-8", "Basic " + Data([0xFF, 0xFE, 0x3A, 0x41]).base64EncodedString(), "unauthenticated"),
        ("another scheme", "Bearer v1.abc.def", "unauthenticated"),
        (
            "oversized", BasicAuthIntegrationTests.basic("astro:" + String(repeating: "x", count: 4_000)),
            "unauthenticated"
        ),
    ])
    func badCredentialsAre401WithTheChallenge(_ label: String, authorization: String, code: String) async throws {
        try await withServer { server in
            let answer = try await RawHTTPClient.get(
                "/basic/profile",
                port: server.port,
                headers: ["Authorization": authorization]
            )
            #expect(answer.status == 401, "\(label)")
            #expect(answer.headers["www-authenticate"] == "Basic realm=\"spacephotos\"", "\(label)")
            #expect(Self.errorCode(answer) == code, "\(label)")
        }
    }

    @Test func aSessionDelegateAnswersTheChallenge() async throws {
        // A task delegate's way: no Authorization up front; the server's
        // challenge is answered with the member's credentials.
        try await withServer { server in
            let astro = DemoUser.demo
            let answerer = BasicChallengeAnswerer(user: astro.id, password: astro.password)
            let session = URLSession(configuration: .ephemeral, delegate: answerer, delegateQueue: nil)
            defer { session.finishTasksAndInvalidate() }
            let (status, body) = try await answerer.load(
                server.baseURL.appendingPathComponent("basic/profile"),
                in: session
            )
            #expect(status == 200)
            #expect(String(decoding: body, as: UTF8.self).hasPrefix("{"), "\(String(decoding: body, as: UTF8.self))")
            #expect(
                try JSONDecoder().decode(Profile.self, from: body) == Profile(id: astro.id, nickname: astro.nickname)
            )
            #expect(answerer.challenges == ["Basic spacephotos"])
        }
    }

    @Test func failuresCountTowardsTheLoginLockout() async throws {
        // The server's clock stands still, so the lockout's remaining time is exact.
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try await withServer({
            $0.rateLimit = .init(maxFailures: 2, window: .seconds(60), lockout: .seconds(30))
            $0.now = { now }
        }) { server in
            let astro = DemoUser.demo
            for _ in 0..<2 {
                let answer = try await RawHTTPClient.get(
                    "/basic/profile",
                    port: server.port,
                    headers: ["Authorization": Self.basic("astro:guess")]
                )
                #expect(answer.status == 401)
            }
            // Locked: Basic with the right password, and the login endpoint, both wait.
            let locked = try await server.client.answer(
                .get(
                    "/basic/profile",
                    headerFields: [.authorization: Self.basic("\(astro.id):\(astro.password)")]
                )
            )
            #expect(locked.status == .tooManyRequests)
            #expect(locked.headerFields[.retryAfter] == "30")
            let login = try await server.client.answer(
                .post("/auth/login", body: .json(["id": astro.id, "password": astro.password]))
            )
            #expect(login.status == .tooManyRequests)
        }
    }
}

/// A session delegate that answers Basic challenges with one credential,
/// and collects one task's answer.
final class BasicChallengeAnswerer: NSObject, URLSessionDataDelegate, Sendable {
    private struct State {
        var challenges: [String] = []
        var body = Data()
        var completion: CheckedContinuation<(Int, Data), any Error>?
    }

    private let user: String
    private let password: String
    private let state = LockedValue(State())

    init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// The challenges received, as "<method> <realm>".
    var challenges: [String] { state.current.challenges }

    /// Runs a data task for `url` and returns its status and body.
    func load(_ url: URL, in session: URLSession) async throws -> (Int, Data) {
        try await withCheckedThrowingContinuation { continuation in
            state.withLock { $0.completion = continuation }
            session.dataTask(with: url).resume()
        }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        let space = challenge.protectionSpace
        state.withLock {
            $0.challenges.append(
                "\(space.authenticationMethod == NSURLAuthenticationMethodHTTPBasic ? "Basic" : space.authenticationMethod) \(space.realm ?? "")"
            )
        }
        guard space.authenticationMethod == NSURLAuthenticationMethodHTTPBasic, challenge.previousFailureCount == 0
        else {
            completionHandler(.cancelAuthenticationChallenge, nil)
            return
        }
        completionHandler(.useCredential, URLCredential(user: user, password: password, persistence: .forSession))
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        // A new response (the retry after the challenge): its body starts here.
        state.withLock { $0.body = Data() }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        state.withLock { $0.body.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, body) = state.withLock { state in
            defer { state.completion = nil }
            return (state.completion, state.body)
        }
        if let error {
            continuation?.resume(throwing: error)
        } else {
            continuation?.resume(returning: ((task.response as? HTTPURLResponse)?.statusCode ?? 0, body))
        }
    }
}
