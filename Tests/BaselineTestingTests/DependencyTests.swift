import BaselineConcurrency
import BaselineStore
import BaselineTesting
import Testing

/// A client declared as a dependency: a live value, and a test value that
/// fails the test which calls it without overriding it.
struct GreetingClient: Sendable {
    var greet: @Sendable (String) async throws -> String
}

extension GreetingClient: DependencyKey {
    static let liveValue = GreetingClient { "Hello, \($0) (live)" }
    static let testValue = GreetingClient(greet: unimplemented("GreetingClient.greet"))
}

extension DependencyValues {
    var greeting: GreetingClient {
        get { self[GreetingClient.self] }
        set { self[GreetingClient.self] = newValue }
    }
}

/// A feature that reads the client in its reducer (a synchronous check) and in its effect.
struct GreeterFeature: Reducer {
    struct State: Equatable {
        var name = "Ada"
        var greeting: String?
        var failed = false
    }

    enum Action: Equatable, Sendable {
        case greetTapped
        case greeted(String)
        case failed
    }

    @Dependency(\.greeting) var greeting

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .greetTapped:
            return .run { [name = state.name] send in
                do {
                    await send(.greeted(try await greeting.greet(name)))
                } catch {
                    await send(.failed)
                }
            }
        case let .greeted(text):
            state.greeting = text
            return .none
        case .failed:
            state.failed = true
            return .none
        }
    }
}

/// The greeter as a parent's child, for a scoped store.
struct GreeterHost: Reducer {
    @CasePathable
    enum Action: Equatable, Sendable { case greeter(GreeterFeature.Action) }

    var body: some Reducer<GreeterFeature.State, Action> {
        Scope(state: \.self, action: \.greeter) { GreeterFeature() }
    }
}

@MainActor
@Suite("Dependencies: declared once, live in stores, failing in tests unless overridden", .timeLimit(.minutes(1)))
struct DependencyTests {
    @Test func aStoreRunsWithTheLiveValue() async {
        let store = Store(initialState: GreeterFeature.State()) { GreeterFeature() }
        await store.send(.greetTapped).finish()
        #expect(store.greeting == "Hello, Ada (live)")
    }

    @Test func aStoresOverrideReachesItsEffectsAndItsScopedStores() async {
        let store = Store(initialState: GreeterFeature.State()) {
            GreeterHost()
        } withDependencies: {
            $0.greeting.greet = { "Hi, \($0) (overridden)" }
        }
        let child = store.scope(state: \.self, action: \.greeter)
        await child.send(.greetTapped).finish()
        #expect(store.greeting == "Hi, Ada (overridden)")
    }

    @Test func storesOfOneReducerKeepTheirOwnOverrides() async {
        let first = Store(initialState: GreeterFeature.State()) {
            GreeterFeature()
        } withDependencies: {
            $0.greeting.greet = { _ in "first" }
        }
        let second = Store(initialState: GreeterFeature.State()) {
            GreeterFeature()
        } withDependencies: {
            $0.greeting.greet = { _ in "second" }
        }
        async let a: Void = first.send(.greetTapped).finish()
        async let b: Void = second.send(.greetTapped).finish()
        _ = await (a, b)
        #expect(first.greeting == "first")
        #expect(second.greeting == "second")
    }

    @Test func aTestStoreStartsFromTheTestValue() async {
        let store = TestStore(initialState: GreeterFeature.State()) {
            GreeterFeature()
        } withDependencies: {
            $0.greeting.greet = { "Test greeting for \($0)" }
        }
        await store.send(.greetTapped)
        await store.receive(.greeted("Test greeting for Ada")) { $0.greeting = "Test greeting for Ada" }
        await store.finish()
    }

    @Test func callingADependencyTheTestDidNotOverrideFailsTheTest() async {
        let store = TestStore(initialState: GreeterFeature.State()) { GreeterFeature() }
        await withKnownIssue {
            await store.send(.greetTapped)
            // The unimplemented endpoint reports the call, then throws.
            await store.receive(.failed) { $0.failed = true }
            await store.finish()
        } matching: { issue in
            issue.description.contains("Unimplemented: GreetingClient.greet was called")
        }
    }

    @Test func anUnimplementedEndpointWithAPlaceholderReturnsIt() async {
        let now: @Sendable () -> Int = unimplemented("Clock.now", placeholder: 42)
        let values = DependencyValues(context: .test)
        let reported = LockedValue<[String]>([])
        let recording = values.with { values in
            values.reportUnimplemented = { message, _, _, _ in reported.withLock { $0.append(message) } }
        }
        let value = DependencyValues.$current.withValue(recording) { now() }
        #expect(value == 42)
        #expect(reported.current == ["Unimplemented: Clock.now was called"])
    }

    @Test func outsideAStoreTheLiveValuesApply() async throws {
        #expect(DependencyValues.current.context == .live)
        @Dependency(\.greeting) var greeting
        #expect(try await greeting.greet("Lin") == "Hello, Lin (live)")
    }

    /// A body built once, capturing the client where it is built.
    struct CapturingGreeter: Reducer {
        @Dependency(\.greeting) var greeting

        var body: some Reducer<GreeterFeature.State, GreeterFeature.Action> {
            Reduce { [greeting] state, action in
                switch action {
                case .greetTapped:
                    return .run { [name = state.name] send in await send(.greeted(try await greeting.greet(name))) }
                case let .greeted(text):
                    state.greeting = text
                    return .none
                case .failed:
                    return .none
                }
            }
        }
    }

    @Test func aBodyBuiltOnceCapturesTheStoresDependencies() async {
        let store = Store(initialState: GreeterFeature.State()) {
            CapturingGreeter()
        } withDependencies: {
            $0.greeting.greet = { "Hi, \($0) (store)" }
        }
        await store.send(.greetTapped).finish()
        #expect(store.greeting == "Hi, Ada (store)")

        let test = TestStore(initialState: GreeterFeature.State()) {
            CapturingGreeter()
        } withDependencies: {
            $0.greeting.greet = { "Hi, \($0) (test)" }
        }
        await test.send(.greetTapped)
        await test.receive(.greeted("Hi, Ada (test)")) { $0.greeting = "Hi, Ada (test)" }
        await test.finish()
    }
}
