import BaselineStore
import Foundation

// Each check drives a real store through effects and awaits them; a wrong
// state exits with status 1, a miscompiled path crashes.

/// A child that loads, and dismisses itself from an effect (captured or read there).
struct Child: Reducer {
    struct State: Equatable, Sendable, Identifiable {
        var id: Int
        var loaded: String?
        var grandchild: Grandchild.State?
    }

    @CasePathable
    enum Action: Sendable {
        case load
        case loaded(String)
        case closeCaptured
        case closeRead
        case grandchild(PresentationAction<Grandchild.Action>)
    }

    @Dependency(\.greeting) var greeting
    @Dependency(\.dismiss) var dismiss

    var body: some Reducer<State, Action> {
        Reduce { [greeting, dismiss] state, action in
            switch action {
            case .load:
                return .run { send in await send(.loaded(greeting)) }
            case let .loaded(text):
                state.loaded = text
                return .none
            case .closeCaptured:
                return .run { _ in await dismiss() }
            case .closeRead:
                return .run { _ in await self.dismiss() }
            case .grandchild:
                return .none
            }
        }
        .presenting(\.grandchild, action: \.grandchild) { Grandchild() }
    }
}

/// A child's child, which closes itself.
struct Grandchild: Reducer {
    struct State: Equatable, Sendable {}
    enum Action: Sendable { case close }
    @Dependency(\.dismiss) var dismiss

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        .run { [dismiss] _ in await dismiss() }
    }
}

/// A parent with a sheet, a stack, a bound field and a cancellable effect.
struct Parent: Reducer {
    struct State: Equatable, Sendable {
        var sheet: Child.State?
        var path: [Child.State] = []
        var name = ""
        var ticks = 0
    }

    @CasePathable
    enum Action: BindableAction, Sendable {
        case binding(BindingAction<State>)
        case sheet(PresentationAction<Child.Action>)
        case path(StackAction<Int, Child.Action>)
        case startTicking
        case tick
        case stopTicking
    }

    enum CancelID { case ticking }

    var body: some Reducer<State, Action> {
        BindingReducer(action: \.binding)
        Reduce { state, action in
            switch action {
            case .binding:
                return .none
            case .startTicking:
                return .run { send in
                    await send(.tick)
                    // Waits for its cancellation: a stream that never yields
                    // ends its iteration when the task is cancelled.
                    let (never, continuation) = AsyncStream<Never>.makeStream()
                    for await _ in never {}
                    continuation.finish()  // kept alive until here: the stream must not end by itself
                }
                .cancellable(id: CancelID.ticking)
            case .tick:
                state.ticks += 1
                return .none
            case .stopTicking:
                return .cancel(id: CancelID.ticking)
            case .sheet, .path:
                return .none
            }
        }
        .presenting(\.sheet, action: \.sheet) { Child() }
        .stack(\.path, action: \.path) { Child() }
    }
}

struct Greeting: DependencyKey {
    static let liveValue = "live"
    static let testValue = "test"
}

extension DependencyValues {
    var greeting: String {
        get { self[Greeting.self] }
        set { self[Greeting.self] = newValue }
    }
}

@MainActor
func check(_ condition: Bool, _ what: String) {
    guard condition else {
        print("store-release-check: FAILED: \(what)")
        exit(1)
    }
}

@MainActor
func run() async {
    let store = Store(initialState: Parent.State()) {
        Parent()
    } withDependencies: {
        $0.greeting = "overridden"
    }

    // Bindings.
    store.binding(\.name).value = "Ada"
    check(store.name == "Ada", "a binding sets its field")

    // A presented child: an effect reading a dependency, then dismissals.
    store.send(.sheet(.presented(.load)))  // nothing presented: ignored
    check(store.sheet == nil, "an action for no child is ignored")
    for close in [Child.Action.closeCaptured, .closeRead] {
        store.send(.binding(.set(\.sheet, Child.State(id: 1))))
        await store.send(.sheet(.presented(.load))).finish()
        check(store.sheet?.loaded == "overridden", "a child's effect reads the store's dependency")
        await store.send(.sheet(.presented(close))).finish()
        check(store.sheet == nil, "a child dismisses itself (\(close))")
    }

    // A grandchild dismisses itself only.
    store.send(.binding(.set(\.sheet, Child.State(id: 2, grandchild: Grandchild.State()))))
    await store.send(.sheet(.presented(.grandchild(.presented(.close))))).finish()
    check(store.sheet != nil && store.sheet?.grandchild == nil, "a grandchild dismisses itself, not its parent")

    // A stack: the top element pops itself.
    store.send(.binding(.set(\.path, [Child.State(id: 10), Child.State(id: 11)])))
    await store.send(.path(.element(id: 11, action: .closeCaptured))).finish()
    check(store.path.map(\.id) == [10], "a stacked element pops itself")

    // A cancellable effect, cancelled by id.
    let ticking = store.send(.startTicking)
    for await ticks in store.values(of: \.ticks) where ticks > 0 { break }
    store.send(.stopTicking)
    await ticking.finish()
    check(store.ticks == 1, "a cancellable effect ends when cancelled")

    // Many presented effects, concurrently.
    store.send(.binding(.set(\.sheet, Child.State(id: 3))))
    let loads = (0..<1_000).map { _ in store.send(.sheet(.presented(.load))) }
    for load in loads { await load.finish() }
    check(store.sheet?.loaded == "overridden", "1,000 presented effects")

    print("store-release-check: ok")
}

await run()
