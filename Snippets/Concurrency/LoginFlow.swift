// A login flow taken from a completion-handler API to a tested view model
// (after the talk "Building iOS apps in the Swift Concurrency era"): the
// code of the article "The Login Flow, Step by Step".

// snippet.hide
import BaselineConcurrency
import BaselineTesting
import Foundation
import Observation
import Testing

// snippet.show
// snippet.models
/// A member's ID: a type of its own, so it cannot be swapped with a password.
struct UserID: Hashable, Sendable {
    var rawValue: String
}

/// The token the server hands out on login. It never prints its value.
struct IDToken: Sendable, Codable, CustomStringConvertible {
    var rawValue: String
    var description: String { "IDToken(redacted)" }
}

/// What the user can be told about a failed login.
enum LoginError: Error, Equatable {
    case invalidCredentials
    case server
}
// snippet.end

// snippet.legacy
/// The login endpoint as older code wrote it: a completion handler, called
/// once on some queue, and a handle to cancel the request.
struct LegacyAuthAPI: Sendable {
    struct Handle: Sendable {
        let cancel: @Sendable () -> Void
    }

    func logIn(
        for id: UserID,
        with password: String,
        completion: @escaping @Sendable (Result<IDToken, any Error>) -> Void
    ) -> Handle {
        // Builds a URLRequest, starts a data task, calls `completion` from its handler…
        // snippet.hide
        // Here a stand-in for the data task: it answers after a moment, and
        // reports a cancellation as `URLError.cancelled`, as a data task does.
        let task = Task {
            do {
                try await Task.sleep(for: .milliseconds(100))
            } catch {
                completion(.failure(URLError(.cancelled)))
                return
            }
            completion(
                password.isEmpty
                    ? .failure(LoginError.invalidCredentials) : .success(IDToken(rawValue: "t-\(id.rawValue)"))
            )
        }
        return Handle { task.cancel() }
        // snippet.show
    }
}
// snippet.end

// snippet.bridge
extension LegacyAuthAPI {
    /// The same login, `async`: one result, and cancellation reaches the request.
    func logIn(for id: UserID, with password: String) async throws -> IDToken {
        try await withCallback { completion in
            let handle = logIn(for: id, with: password, completion: completion.resume(with:))
            return CallbackCancellation { handle.cancel() }
        }
    }
}
// snippet.end

// snippet.store
/// Keeps the token in a file, off the main actor. Being an actor, it runs one
/// write at a time, so two logins cannot interleave their files.
actor IDTokenStore {
    private let fileURL: URL

    init(fileURL: URL) {
        self.fileURL = fileURL
    }

    func update(_ token: IDToken) throws {
        // `.atomic` writes beside the file and renames: a crash leaves the old token.
        try JSONEncoder().encode(token).write(to: fileURL, options: .atomic)
    }

    func load() throws -> IDToken? {
        guard FileManager.default.fileExists(atPath: fileURL.path) else { return nil }
        return try JSONDecoder().decode(IDToken.self, from: Data(contentsOf: fileURL))
    }
}
// snippet.end

// snippet.service
/// What the login screen needs; tests put a double behind it.
protocol AuthServiceProtocol: Sendable {
    func logIn(for id: UserID, with password: String) async throws
}

enum AuthServiceError: Error {
    /// A login was already running; this one was not sent.
    case loginInProgress
}

/// Logs in and keeps the token.
actor AuthService: AuthServiceProtocol {
    private let api: LegacyAuthAPI
    private let store: IDTokenStore
    private var isLoggingIn = false

    init(api: LegacyAuthAPI, store: IDTokenStore) {
        self.api = api
        self.store = store
    }

    func logIn(for id: UserID, with password: String) async throws {
        // An actor is re-entrant: while this call awaits the network, another
        // call may start. The flag turns a double submission away.
        guard !isLoggingIn else { throw AuthServiceError.loginInProgress }
        isLoggingIn = true
        defer { isLoggingIn = false }

        let token = try await api.logIn(for: id, with: password)
        try await store.update(token)
    }
}
// snippet.end

// snippet.viewmodel
@MainActor
@Observable
final class LoginViewModel {
    var id = ""
    var password = ""
    private(set) var isLoggingIn = false
    private(set) var errorMessage: String?

    var isLoginButtonEnabled: Bool {
        !isLoggingIn && !id.isEmpty && !password.isEmpty
    }

    @ObservationIgnored private let authService: any AuthServiceProtocol

    init(authService: any AuthServiceProtocol) {
        self.authService = authService
    }

    /// Returns when the attempt is over, so a test (or a button's task) can await it.
    func loginButtonPressed() async {
        guard isLoginButtonEnabled else { return }
        isLoggingIn = true
        // On the main actor from start to end: `defer` runs there too.
        defer { isLoggingIn = false }
        errorMessage = nil
        do {
            try await authService.logIn(for: UserID(rawValue: id), with: password)
        } catch is CancellationError {
            // The screen went away: nothing to tell the user.
        } catch LoginError.invalidCredentials {
            errorMessage = "The ID or password is incorrect."
        } catch {
            errorMessage = "The server could not log you in. Try again later."
        }
    }
}
// snippet.end

// snippet.test
/// A double whose logins suspend until the test ends them.
struct AuthServiceDouble: AuthServiceProtocol {
    let logIn = ControllableCall<UserID, Void>()

    func logIn(for id: UserID, with password: String) async throws {
        try await logIn(id)
    }
}

@MainActor
@Test func theButtonIsDisabledWhileLoggingIn() async throws {
    let auth = AuthServiceDouble()
    let model = LoginViewModel(authService: auth)
    model.id = "astro"
    model.password = "stardust-42"

    let pressed = Task { await model.loginButtonPressed() }
    // 1. Suspends until the view model has called the service: no sleeps.
    let call = try await auth.logIn.nextCall()
    #expect(call.arguments == UserID(rawValue: "astro"))
    #expect(model.isLoginButtonEnabled == false)

    // 2. Ends the login as the server would, and waits for the model to finish.
    call.resume(throwing: LoginError.invalidCredentials)
    await pressed.value
    #expect(model.isLoginButtonEnabled)
    #expect(model.errorMessage == "The ID or password is incorrect.")
}
// snippet.end
