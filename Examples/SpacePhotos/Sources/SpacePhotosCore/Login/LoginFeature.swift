import BaselineStore
import Foundation
import Logging

/// The login screen as a feature: the ID and password fields (bound,
/// no action of their own), the Log in button, the attempt in flight, and
/// the failure shown in place. A successful login dismisses the screen.
///
/// ```swift
/// TextField("ID", text: Binding(store.binding(\.id)))
///     .focused($focus, equals: .id)
/// SecureField("Password", text: Binding(store.binding(\.password)))
///     .focused($focus, equals: .password)
/// // `@FocusState var focus: LoginFeature.State.Field?`, kept in step:
/// .onChange(of: focus) { if let field = $1 { store.binding(\.focus).value = field } }
/// .onChange(of: store.focus) { focus = $1 }
/// .onSubmit { store.send(.submitted) }
/// Button("Log in") { store.send(.loginButtonTapped) }
///     .disabled(!store.isLoginButtonEnabled)
/// ```
///
/// Presented by ``AppFeature``; it logs in through ``SessionClient``
/// (`@Dependency(\.session)`) and dismisses itself through `@Dependency(\.dismiss)`.
public struct LoginFeature: Reducer {
    /// What the login screen shows.
    public struct State: Equatable, Sendable {
        /// The longest ID the field accepts.
        public static let maximumIDLength = 64
        /// The longest password the field accepts.
        public static let maximumPasswordLength = 256

        /// The login screen's fields.
        public enum Field: Equatable, Sendable {
            case id
            case password
        }

        /// The ID as typed; surrounding spaces are trimmed when logging in.
        public var id: String
        /// The password as typed, sent unchanged.
        public var password: String
        /// Whether a login is in flight (the screen shows it).
        public var isLoggingIn: Bool
        /// What to tell the user about the last failed attempt; `nil` otherwise.
        public var errorMessage: LoginErrorMessage?
        /// Why the login screen shows, when it is not the first start (the
        /// session ended); `nil` otherwise.
        public var notice: String?
        /// The field keys go to (bound: SwiftUI's `@FocusState`, the
        /// terminal's focus); a new login screen starts on the ID.
        public var focus: Field

        /// An empty form, with `notice` above it.
        public init(
            id: String = "",
            password: String = "",
            isLoggingIn: Bool = false,
            errorMessage: LoginErrorMessage? = nil,
            notice: String? = nil,
            focus: Field = .id
        ) {
            self.id = id
            self.password = password
            self.isLoggingIn = isLoggingIn
            self.errorMessage = errorMessage
            self.notice = notice
            self.focus = focus
        }

        /// The member the ID field names: as typed, without the spaces around it.
        public var member: User.ID { User.ID(rawValue: id.trimmingCharacters(in: .whitespaces)) }

        /// True when both fields are filled (an ID of spaces is no ID; a
        /// password may be spaces) and no login is in flight.
        public var isLoginButtonEnabled: Bool {
            !isLoggingIn && !id.trimmingCharacters(in: .whitespaces).isEmpty && !password.isEmpty
        }
    }

    /// What the login screen can do.
    @CasePathable
    public enum Action: BindableAction, Equatable, Sendable {
        /// A field changed (``Store/binding(_:)``).
        case binding(BindingAction<State>)
        /// Logs in with the fields; ignored while the button is disabled.
        case loginButtonTapped
        /// Stops the login in flight, if one is; the form is editable again.
        case cancelLoginTapped
        /// Return in a field (SwiftUI's `onSubmit`): on the ID while the
        /// password is empty, moves to the password; otherwise logs in.
        case submitted
        /// The attempt failed; the message says why.
        case loginFailed(LoginErrorMessage)
    }

    @Dependency(\.session) var session
    @Dependency(\.dismiss) var dismiss
    let logger: Logger

    enum CancelID { case login }

    /// The login feature; failures are logged (without the password) to `logger`.
    public init(logger: Logger = Logger(label: "spacephotos.login")) {
        self.logger = logger
    }

    /// Applies a field's binding (cut to the field's limit), the buttons,
    /// and the attempt's outcome.
    public var body: some Reducer<State, Action> {
        BindingReducer(action: \.binding)
        Reduce { state, action in
            switch action {
            case .binding:
                // Any UI's field (SwiftUI's too) holds at most the limit.
                if state.id.count > State.maximumIDLength { state.id = String(state.id.prefix(State.maximumIDLength)) }
                if state.password.count > State.maximumPasswordLength {
                    state.password = String(state.password.prefix(State.maximumPasswordLength))
                }
                return .none

            case .loginButtonTapped:
                return logIn(&state)

            case .submitted:
                if state.focus == .id, state.password.isEmpty {
                    state.focus = .password
                    return .none
                }
                return logIn(&state)

            case .cancelLoginTapped:
                guard state.isLoggingIn else { return .none }
                state.isLoggingIn = false
                return .cancel(id: CancelID.login)

            case let .loginFailed(message):
                state.isLoggingIn = false
                state.errorMessage = message
                return .none
            }
        }
    }

    private func logIn(_ state: inout State) -> Effect<Action> {
        guard state.isLoginButtonEnabled else { return .none }
        state.isLoggingIn = true
        state.errorMessage = nil
        let id = state.member
        return .run(name: "log in as \(id.rawValue)") { [password = state.password, session, dismiss, logger] send in
            do {
                try await session.logIn(id, password)
            } catch is CancellationError {
                // Cancelled by `.cancelLoginTapped` (which reset the form),
                // or dismissed with the screen.
                return
            } catch {
                logger.warning("Login failed", metadata: ["error": "\(error)"])
                await send(.loginFailed(LoginErrorMessage(error)))
                return
            }
            // In flight until the screen goes: the button stays disabled.
            await dismiss()
        }
        .cancellable(id: CancelID.login)
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
