import BaselineStore
import BaselineTesting
import Testing

/// A login form whose fields are bound: one action case for all of them.
struct LoginForm: Reducer {
    struct State: Equatable {
        var id = ""
        var password = ""
        var remember = false
        var canLogIn = false
    }

    @CasePathable
    enum Action: BindableAction, Equatable {
        case binding(BindingAction<State>)
        case logInTapped
    }

    var body: some Reducer<State, Action> {
        BindingReducer(action: \.binding)
        Reduce { state, action in
            // The feature reacts to the fields after they are set.
            if case let .binding(binding) = action, binding.sets(\.id) || binding.sets(\.password) {
                state.canLogIn = !state.id.isEmpty && !state.password.isEmpty
            }
            return .none
        }
    }
}

@MainActor
@Suite("Bindings: a field of state set by the action a control sends", .timeLimit(.minutes(1)))
struct BindingTests {
    @Test func aTestStoreAssertsEachFieldAsSet() async {
        let store = TestStore(initialState: LoginForm.State()) { LoginForm() }
        await store.send(.binding(.set(\.id, "ada"))) { $0.id = "ada" }
        await store.send(.binding(.set(\.password, "secret"))) {
            $0.password = "secret"
            $0.canLogIn = true
        }
        await store.send(.binding(.set(\.remember, true))) { $0.remember = true }
    }

    @Test func aStoreBindingReadsTheStateAndSendsTheAction() {
        let store = Store(initialState: LoginForm.State()) { LoginForm() }
        let id = store.binding(\.id)
        id.value = "grace"
        #expect(store.id == "grace")
        #expect(id.value == "grace")
        store.binding(\.password).value = "hopper"
        #expect(store.canLogIn)
    }

    @Test func bindingActionsAreEqualForTheSameFieldAndValue() {
        typealias Binding = BindingAction<LoginForm.State>
        #expect(Binding.set(\.id, "a") == Binding.set(\.id, "a"))
        #expect(Binding.set(\.id, "a") != Binding.set(\.id, "b"))
        #expect(Binding.set(\.id, "a") != Binding.set(\.password, "a"))
        #expect(Binding.set(\.id, "a").description.contains("\"a\""))
    }

    @Test func aMismatchedBindingFailsTheTest() async {
        let store = TestStore(initialState: LoginForm.State()) { LoginForm() }
        await withKnownIssue {
            await store.send(.binding(.set(\.id, "ada"))) { $0.id = "grace" }
        }
    }
}
