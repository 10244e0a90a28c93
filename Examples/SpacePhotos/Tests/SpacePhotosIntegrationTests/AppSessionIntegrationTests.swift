import BaselineConcurrency
import BaselineStore
import BaselineTesting
import Foundation
import SpacePhotosCore
import SpacePhotosServer
import Testing

/// The app's session across restarts, against real servers: the app's own
/// files in a temporary directory, the server's signing key and refresh
/// tokens kept as the app's embedded server keeps them.
@MainActor
@Suite("App sessions across restarts", .timeLimit(.minutes(2)))
struct AppSessionIntegrationTests {
    let directory: TemporaryDirectory
    let clock = ManualDate(Date())
    let secret = Data((0..<32).map { UInt8($0) })

    init() throws {
        directory = try TemporaryDirectory()
    }

    var dataDirectory: URL { directory.url.appendingPathComponent("data") }

    /// A server as the app embeds it: a key and a refresh-token table that
    /// outlive it (unless `keepsRefreshTokens` is false), on the test's clock.
    func configure(keepsRefreshTokens: Bool = true) -> (inout ExampleServer.Configuration) -> Void {
        let (clock, secret, file) = (clock, secret, directory.url.appendingPathComponent("refresh-tokens.json"))
        return { configuration in
            configuration.now = { clock.now }
            configuration.tokenSigner = TokenSigner(secret: secret, lifetime: .seconds(3600))
            configuration.refreshTokenFile = keepsRefreshTokens ? file : nil
        }
    }

    func logIn(
        _ app: Store<AppFeature.State, AppFeature.Action>,
        as id: String = "astro",
        password: String = "stardust-42"
    ) async throws {
        await app.send(.start).finish()
        let presented = app.scope(state: \.login, action: \.login)
        let login = try #require(presented)
        login.binding(\.id).value = id
        login.binding(\.password).value = password
        await login.send(.loginButtonTapped).finish()
        #expect(app.screen == .main)
    }

    @Test func theAppsFilesAreTheUsersOnly() async throws {
        try await withServer(configure()) { server in
            try await logIn(
                AppFeature.store(try await .live(serverURL: server.baseURL, dataDirectory: dataDirectory))
            )
        }
        func mode(_ name: String) throws -> Int? {
            let path = name.isEmpty ? dataDirectory.path : dataDirectory.appendingPathComponent(name).path
            return (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
        }
        #expect(try mode("") == 0o700)
        for name in ["id-token.json", "refresh-token.json", "todos-astro.sqlite", "saved.sqlite"] {
            #expect(try mode(name) == 0o600, "\(name)")
        }
    }

    @Test func aSecondMemberOnTheDeviceSeesNoneOfTheFirstOnesToDos() async throws {
        try await withServer(configure()) { server in
            let dependencies = try await AppDependencies.live(serverURL: server.baseURL, dataDirectory: dataDirectory)
            let app = AppFeature.store(dependencies)
            try await logIn(app)
            try await waitUntil(app) { $0.openTodoList == User.ID(rawValue: "astro") }
            try await dependencies.todos.add("Astro's milk")

            await app.send(.logOutButtonTapped).finish()
            try await logIn(app, as: "luna", password: "moonwalk-1969")
            try await waitUntil(app) { $0.openTodoList == User.ID(rawValue: "luna") }
            #expect(try await dependencies.todos.all().isEmpty)
            try await dependencies.todos.add("Luna's eggs")

            await app.send(.logOutButtonTapped).finish()
            try await logIn(app)
            try await waitUntil(app) { $0.openTodoList == User.ID(rawValue: "astro") }
            #expect(try await dependencies.todos.all().map(\.text) == ["Astro's milk"])
        }
    }

    @Test func theNextStartGoesStraightInAndAnExpiredTokenIsRefreshed() async throws {
        try await withServer(configure()) { server in
            try await logIn(
                AppFeature.store(try await .live(serverURL: server.baseURL, dataDirectory: dataDirectory))
            )
        }
        let firstToken = try Data(contentsOf: dataDirectory.appendingPathComponent("id-token.json"))

        // A restart within the hour: straight in, with the same token.
        try await withServer(configure()) { server in
            let app = AppFeature.store(try await .live(serverURL: server.baseURL, dataDirectory: dataDirectory))
            await app.send(.start).finish()
            #expect(app.screen == .main)
        }
        #expect(try Data(contentsOf: dataDirectory.appendingPathComponent("id-token.json")) == firstToken)

        // A restart after the ID token expired: the refresh middleware gets
        // a new one with the refresh token the server kept.
        clock.advance(by: 3_601)
        try await withServer(configure()) { server in
            let app = AppFeature.store(try await .live(serverURL: server.baseURL, dataDirectory: dataDirectory))
            await app.send(.start).finish()
            #expect(app.screen == .main)
        }
        #expect(try Data(contentsOf: dataDirectory.appendingPathComponent("id-token.json")) != firstToken)
    }

    @Test func aSessionTheServerCannotRefreshEndsWithTheLoginScreen() async throws {
        try await withServer(configure(keepsRefreshTokens: false)) { server in
            try await logIn(
                AppFeature.store(try await .live(serverURL: server.baseURL, dataDirectory: dataDirectory))
            )
        }
        clock.advance(by: 3_601)
        // The server restarted without its refresh tokens: the session is over.
        try await withServer(configure(keepsRefreshTokens: false)) { server in
            let app = AppFeature.store(try await .live(serverURL: server.baseURL, dataDirectory: dataDirectory))
            await app.send(.start).finish()
            #expect(app.screen == .login)
            #expect(app.login?.notice == AppFeature.sessionEndedNotice)
        }
        #expect(!FileManager.default.fileExists(atPath: dataDirectory.appendingPathComponent("id-token.json").path))
    }

    @Test func anUnreachableServerKeepsTheSession() async throws {
        try await withServer(configure()) { server in
            try await logIn(
                AppFeature.store(try await .live(serverURL: server.baseURL, dataDirectory: dataDirectory))
            )
        }
        clock.advance(by: 3_601)
        // Port 1 on loopback: nothing listens there.
        let app = AppFeature.store(
            try await .live(serverURL: URL(string: "http://127.0.0.1:1")!, dataDirectory: dataDirectory)
        )
        await app.send(.start).finish()
        guard case .unavailable = app.screen else {
            Issue.record("expected the unavailable screen, got \(app.screen)")
            return
        }
        #expect(FileManager.default.fileExists(atPath: dataDirectory.appendingPathComponent("id-token.json").path))
    }
}
