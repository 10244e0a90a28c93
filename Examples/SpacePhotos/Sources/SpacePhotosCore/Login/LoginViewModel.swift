import Foundation
import Logging
import Observation

/// The login screen's state and its one action, for any UI (SwiftUI, UIKit,
/// the terminal).
///
/// ```swift
/// Button("Log in") { Task { await model.loginButtonPressed() } }
///     .disabled(!model.isLoginButtonEnabled)
///     .task { for await _ in model.dismissals { dismiss() } }
/// ```
@MainActor
@Observable
public final class LoginViewModel {
    /// The longest ID a field accepts.
    public static let maximumIDLength = 64
    /// The longest password a field accepts.
    public static let maximumPasswordLength = 256

    /// The ID as typed; surrounding spaces are trimmed when logging in.
    public var id = ""
    /// The password as typed, sent unchanged.
    public var password = ""
    /// Whether a login is in flight (the screen shows it).
    public private(set) var isLoggingIn = false
    /// True when both fields are filled and no login is in flight.
    public var isLoginButtonEnabled: Bool {
        !isLoggingIn && !id.trimmingCharacters(in: .whitespaces).isEmpty && !password.isEmpty
    }
    /// What to tell the user about the last failed attempt; `nil` otherwise.
    public private(set) var loginErrorMessage: LoginErrorMessage?
    /// Yields once for each successful login: the screen should close.
    public let dismissals: AsyncStream<Void>

    @ObservationIgnored private let dismissalSink: AsyncStream<Void>.Continuation
    @ObservationIgnored private let authService: any AuthServiceProtocol
    @ObservationIgnored private let logger: Logger

    /// A login screen with empty fields, logging in through `authService`.
    public init(authService: any AuthServiceProtocol, logger: Logger = Logger(label: "spacephotos.login")) {
        self.authService = authService
        self.logger = logger
        (dismissals, dismissalSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    deinit {
        dismissalSink.finish()
    }

    /// Logs in with ``id`` and ``password``. Returns when the attempt is over;
    /// does nothing while the button is disabled (a field is empty, or
    /// another attempt runs).
    public func loginButtonPressed() async {
        guard isLoginButtonEnabled else { return }
        isLoggingIn = true
        defer { isLoggingIn = false }
        loginErrorMessage = nil

        do {
            let id = User.ID(rawValue: id.trimmingCharacters(in: .whitespaces))
            try await authService.logIn(for: id, with: password)
            dismissalSink.yield()
        } catch is CancellationError {
            // The screen went away or the user backed out: nothing to report.
        } catch {
            logger.warning("Login failed", metadata: ["error": "\(error)"])
            loginErrorMessage = LoginErrorMessage(error)
        }
    }
}

/// The message the login screen shows, one per kind of failure.
public enum LoginErrorMessage: Equatable, Sendable {
    case invalidCredentials
    case rateLimited(retryAfterSeconds: Int?)
    case server
    case networkUnreachable

    init(_ error: any Error) {
        switch error as? LoginError {
        case .invalidCredentials: self = .invalidCredentials
        case let .rateLimited(seconds): self = .rateLimited(retryAfterSeconds: seconds)
        case .networkUnreachable: self = .networkUnreachable
        case .server, nil: self = .server
        }
    }

    /// Text for the user.
    public var text: String {
        switch self {
        case .invalidCredentials:
            "The ID or password is incorrect."
        case let .rateLimited(seconds?):
            "Too many attempts. Try again in \(seconds) seconds."
        case .rateLimited(nil):
            "Too many attempts. Try again later."
        case .server:
            "The server could not log you in. Try again later."
        case .networkUnreachable:
            "The server cannot be reached. Check your connection."
        }
    }
}
