import ArgumentParser
import BaselineHTTP
import BaselineStore
import Foundation
import SpacePhotosCore
import SpacePhotosServer

/// Log in, see the member profile, see what a wrong password gets.
struct LoginDemo {
    let baseURL: URL
    let dataDirectory: URL
    let narrator: Narrator

    @MainActor
    func run() async throws {
        let client = HTTPClient(baseURL: baseURL)
        let directory = dataDirectory.appendingPathComponent("login")
        let tokens = SessionTokens(directory: directory, authAPI: AuthAPI(client: client))
        // Member requests carry the token through the authentication
        // middleware, which refreshes it once when the server rejects it.
        let memberClient = HTTPClient(baseURL: baseURL, middleware: [BearerAuthentication(provider: tokens)])
        let members = MemberAPI(client: memberClient)
        var dependencies = try await AppDependencies.live(serverURL: baseURL, dataDirectory: directory)
        dependencies.session = .live(tokens: tokens, authAPI: AuthAPI(client: client), memberAPI: members)
        let session = dependencies.session
        let demo = DemoUser.demo

        narrator.section("Login")
        // The app's store: no stored session, so the login screen is presented.
        let app = AppFeature.store(dependencies)
        await app.send(.start).finish()
        try await logIn(app, id: demo.id, password: demo.password)
        guard app.screen == .main, app.login == nil else {
            narrator.result("Unexpected: \(app.login?.errorMessage?.text ?? "no dismissal")")
            throw ExitCode.failure
        }
        narrator.result("Logged in; the login screen dismissed itself and the main screen shows.")
        let tokenFile = tokens.idTokenFile
        let mode = try FileManager.default.attributesOfItem(atPath: tokenFile.path)[.posixPermissions] as? NSNumber
        narrator.result(
            "Token stored at \(tokenFile.lastPathComponent), mode \(String(mode?.intValue ?? 0, radix: 8))."
        )

        narrator.section("Member profile")
        let member = try await session.member()
        narrator.result(
            "\(member.nickname) (id \(member.id)), born \(member.birthday.formatted(.iso8601.year().month().day()))"
        )

        narrator.section("An expired token, refreshed by the middleware")
        try await tokens.replaceIDTokenForTesting(IDToken(rawValue: "v1.expired.token"))
        let again = try await withThrowingTaskGroup(of: User.self) { group in
            for _ in 0..<5 { group.addTask { try await members.me() } }
            var users: [User] = []
            for try await user in group { users.append(user) }
            return users
        }
        narrator.result(
            "5 concurrent requests got 401, then \(again.count) profiles after \(await tokens.refreshCount) refresh via POST /auth/refresh."
        )

        narrator.section("Log out, then a wrong password")
        await app.send(.logOutButtonTapped).finish()
        narrator.step("Logged out: the screen is \(app.screen), with a fresh login form.")
        try await logIn(app, id: demo.id, password: "not-the-password")
        narrator.result("The screen shows: \"\(app.login?.errorMessage?.text ?? "nothing")\"")

        narrator.section("Two logins at once, through an actor")
        let service = AuthService(
            authAPI: AuthAPI(client: client),
            memberAPI: MemberAPI(client: client),
            store: IDTokenStore(fileURL: directory.appendingPathComponent("service-token.json"))
        )
        @Sendable func attempt() async -> String {
            do {
                try await service.logIn(for: User.ID(rawValue: demo.id), with: demo.password)
                return "logged in"
            } catch AuthServiceError.loginInProgress {
                return "rejected while the other was in flight (never sent)"
            } catch {
                return "failed: \(ErrorMessage.line(for: error))"
            }
        }
        async let first = attempt()
        async let second = attempt()
        let outcomes = await [first, second]
        narrator.result("Two taps at once: " + outcomes.sorted().joined(separator: "; ") + ".")

        narrator.section("The legacy callback API, bridged to async")
        let legacy = LegacyAuthAPI(baseURL: baseURL)
        let token = try await legacy.logIn(for: User.ID(rawValue: demo.id), with: demo.password)
        narrator.result("Received \(token) — tokens print redacted, even in logs.")

        narrator.section("Logged out")
        if await session.check() == .signedOut {
            narrator.result("Token cleared; the member profile now needs a login.")
        }
    }

    /// Types into the presented login form's bound fields and presses Log in.
    @MainActor
    private func logIn(_ app: Store<AppFeature.State, AppFeature.Action>, id: String, password: String) async throws {
        guard let login = app.scope(state: \.login, action: \.login) else {
            narrator.result("Unexpected: no login screen")
            throw ExitCode.failure
        }
        login.binding(\.id).value = id
        login.binding(\.password).value = password
        narrator.step("Logging in as \(id) through LoginFeature…")
        let attempt = login.send(.loginButtonTapped)
        narrator.step("In flight: the login button is \(login.isLoginButtonEnabled ? "enabled" : "disabled").")
        await attempt.finish()
    }
}
