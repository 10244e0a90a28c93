import ArgumentParser
import BaselineHTTP
import Foundation
import SpacePhotosCore
import SpacePhotosServer

/// Seed 000: log in, see the member profile, see what a wrong password gets.
struct LoginDemo {
    let baseURL: URL
    let dataDirectory: URL
    let narrator: Narrator

    @MainActor
    func run() async throws {
        let client = HTTPClient(baseURL: baseURL)
        let store = IDTokenStore(fileURL: dataDirectory.appendingPathComponent("id-token.json"))
        let tokens = SessionTokens(
            idTokens: store,
            refreshTokenFile: dataDirectory.appendingPathComponent("refresh-token.json"),
            authAPI: AuthAPI(client: client)
        )
        // Member requests carry the token through the authentication
        // middleware, which refreshes it once when the server rejects it.
        let memberClient = HTTPClient(baseURL: baseURL, middleware: [BearerAuthentication(provider: tokens)])
        let auth = AuthService(
            authAPI: AuthAPI(client: client),
            memberAPI: MemberAPI(client: memberClient),
            tokens: tokens
        )
        let demo = DemoUser.demo

        narrator.section("Login (seed 000)")
        let watched = WatchedAuthService(base: auth)
        let model = LoginViewModel(authService: watched)
        watched.onLogIn = { [narrator] in
            narrator.step("In flight: the login button is \(model.isLoginButtonEnabled ? "enabled" : "disabled").")
        }
        model.id = demo.id
        model.password = demo.password
        narrator.step("Logging in as \(demo.id) through LoginViewModel…")
        await model.loginButtonPressed()
        var dismissals = model.dismissals.makeAsyncIterator()
        if model.loginErrorMessage == nil, await dismissals.next() != nil {
            narrator.result(
                "Logged in; the screen asks to be dismissed. Button enabled again: \(model.isLoginButtonEnabled)."
            )
        } else {
            narrator.result("Unexpected: \(model.loginErrorMessage?.text ?? "no dismissal")")
            throw ExitCode.failure
        }
        let mode = try FileManager.default.attributesOfItem(atPath: store.fileURL.path)[.posixPermissions] as? NSNumber
        narrator.result(
            "Token stored at \(store.fileURL.lastPathComponent), mode \(String(mode?.intValue ?? 0, radix: 8))."
        )

        narrator.section("Member profile")
        let member = try await auth.currentMember()
        narrator.result(
            "\(member.nickname) (id \(member.id)), born \(member.birthday.formatted(.iso8601.year().month().day()))"
        )

        narrator.section("An expired token, refreshed by the middleware")
        try await store.update(IDToken(rawValue: "v1.expired.token"))
        let members = MemberAPI(client: memberClient)
        let again = try await withThrowingTaskGroup(of: User.self) { group in
            for _ in 0..<5 { group.addTask { try await members.me() } }
            var users: [User] = []
            for try await user in group { users.append(user) }
            return users
        }
        narrator.result(
            "5 concurrent requests got 401, then \(again.count) profiles after \(await tokens.refreshCount) refresh via POST /auth/refresh."
        )

        narrator.section("A wrong password")
        model.password = "not-the-password"
        await model.loginButtonPressed()
        narrator.result("The screen shows: \"\(model.loginErrorMessage?.text ?? "nothing")\"")

        narrator.section("The legacy callback API, bridged to async")
        let legacy = LegacyAuthAPI(baseURL: baseURL)
        let token = try await legacy.logIn(for: User.ID(rawValue: demo.id), with: demo.password)
        narrator.result("Received \(token) — tokens print redacted, even in logs.")

        narrator.section("Log out")
        try await auth.logOut()
        do {
            _ = try await auth.currentMember()
        } catch AuthServiceError.notLoggedIn {
            narrator.result("Token cleared; the member profile now needs a login.")
        }
    }
}

/// Passes logins on to the real service, telling the demo when one starts, so
/// the narration can show the screen's state while the request is in flight.
@MainActor
private final class WatchedAuthService: AuthServiceProtocol {
    let base: AuthService
    var onLogIn: () -> Void = {}

    init(base: AuthService) {
        self.base = base
    }

    nonisolated func logIn(for id: User.ID, with password: String) async throws {
        await MainActor.run { onLogIn() }
        try await base.logIn(for: id, with: password)
    }
}
