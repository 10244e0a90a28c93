// A view model tested while its call is in flight: the button is disabled
// during the sign-in, enabled again after, whatever the outcome.

// snippet.hide
import BaselineTesting
import Observation
import Testing

// snippet.show
// snippet.code
struct Credentials: Equatable, Sendable {
    var user: String
    var password: String
}

protocol AuthService: Sendable {
    func signIn(_ credentials: Credentials) async throws
}

@MainActor
@Observable
final class SignInModel {
    var user = ""
    var password = ""
    private(set) var isSigningIn = false
    private(set) var errorMessage: String?
    let auth: any AuthService

    init(auth: any AuthService) { self.auth = auth }

    var isButtonEnabled: Bool { !isSigningIn && !user.isEmpty && !password.isEmpty }

    func signInTapped() async {
        isSigningIn = true
        defer { isSigningIn = false }
        do {
            try await auth.signIn(Credentials(user: user, password: password))
            errorMessage = nil
        } catch is CancellationError {
            // Leaving the screen is not an error to show.
        } catch {
            errorMessage = "Sign-in failed."
        }
    }
}
// snippet.end

// snippet.double
/// The test double: each method forwards to a ControllableCall.
struct AuthServiceDouble: AuthService {
    let signInCall = ControllableCall<Credentials, Void>()

    func signIn(_ credentials: Credentials) async throws {
        try await signInCall(credentials)
    }
}
// snippet.end

// snippet.tests
@MainActor
@Suite(.timeLimit(.minutes(1)))
struct SignInModelTests {
    let auth = AuthServiceDouble()
    let model: SignInModel

    init() {
        model = SignInModel(auth: auth)
        model.user = "astro"
        model.password = "stardust-42"
    }

    @Test func theButtonIsDisabledWhileSigningIn() async throws {
        let tapped = Task { await model.signInTapped() }

        // Returns once signIn has been called: the model is mid-flight now.
        let call = try await auth.signInCall.nextCall()
        #expect(call.arguments == Credentials(user: "astro", password: "stardust-42"))
        #expect(model.isButtonEnabled == false)

        call.resume()
        await tapped.value
        #expect(model.isButtonEnabled)
        #expect(model.errorMessage == nil)
    }

    @Test func aFailureIsShown() async throws {
        struct Refused: Error {}
        let tapped = Task { await model.signInTapped() }
        try await auth.signInCall.nextCall().resume(throwing: Refused())
        await tapped.value
        #expect(model.errorMessage == "Sign-in failed.")
    }

    @Test func leavingTheScreenCancelsTheCall() async throws {
        let tapped = Task { await model.signInTapped() }
        let call = try await auth.signInCall.nextCall()

        tapped.cancel()
        await tapped.value
        #expect(call.isCancelled)
        #expect(model.errorMessage == nil)
        #expect(auth.signInCall.callCount == 1)
    }
}
// snippet.end
