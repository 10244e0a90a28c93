import BaselineStore
import Observation

/// The store's figures: `send` throughput against plain observable mutation,
/// the cost of an effect, and sending through scoped stores.
@MainActor
enum StoreBenchmarks {
    struct Counter: Reducer {
        struct State: Equatable, Sendable { var count = 0 }
        enum Action: Sendable { case increment, effect }

        func reduce(into state: inout State, action: Action) -> Effect<Action> {
            switch action {
            case .increment:
                state.count += 1
                return .none
            case .effect:
                return .run { _ in }
            }
        }
    }

    /// The counter's field set by a bound control instead of an action of its own.
    struct BoundCounter: Reducer {
        struct State: Equatable, Sendable { var count = 0 }
        @CasePathable
        enum Action: BindableAction {
            case binding(BindingAction<State>)
        }

        var body: some Reducer<State, Action> {
            BindingReducer(action: \.binding)
        }
    }

    /// A parent presenting the counter (a sheet), for sends through a presented child.
    struct Presenter: Reducer {
        struct State: Sendable { var child: Counter.State? = Counter.State() }
        @CasePathable
        enum Action: Sendable { case child(PresentationAction<Counter.Action>) }

        var body: some Reducer<State, Action> {
            Reduce { _, _ in .none }
                .presenting(\.child, action: \.child) { Counter() }
        }
    }

    /// One level of nesting: a parent whose only state and action are its child's.
    /// `Child` is `Sendable` because the case paths of `Action` (which
    /// `@CasePathable` writes) capture its type.
    struct Wrap<Child: Reducer & Sendable>: Reducer where Child.State: Sendable, Child.Action: Sendable {
        struct State: Sendable { var inner: Child.State }
        @CasePathable
        enum Action: Sendable { case inner(Child.Action) }
        let child: Child

        func reduce(into state: inout State, action: Action) -> Effect<Action> {
            switch action {
            case let .inner(action): child.reduce(into: &state.inner, action: action).map(Action.inner)
            }
        }
    }

    @Observable
    final class PlainModel {
        var count = 0
    }

    /// Direct mutation with one observer doing what a `values(of:)` observer
    /// does per change: compare with the last value, keep the newest.
    @Observable
    final class ObservedPlainModel {
        var count = 0 {
            didSet { for observer in observers { observer(count) } }
        }
        @ObservationIgnored var observers: [(Int) -> Void] = []
    }

    final class Newest {
        var last = 0
        var pending: Int?
    }

    static func profileSends() async {
        let store = Store(initialState: Counter.State()) { Counter() }
        var observed = store.values(of: \.count).makeAsyncIterator()
        _ = await observed.next()
        for _ in 0..<2_000_000 { store.send(.increment) }
        print(store.count)
    }

    static func run() async throws {
        print("\nStore (@MainActor) — release build")
        let actions = 1_000_000

        // The baseline: the same mutation on an @Observable model, one observer.
        let plain = PlainModel()
        let direct = try await Measurement.run("mutate @Observable state directly ×1M", iterations: 7) {
            withObservationTracking {
                _ = plain.count
            } onChange: {
            }
        } body: { _ in
            for _ in 0..<actions { plain.count += 1 }
        }

        let observedPlain = ObservedPlainModel()
        let newest = Newest()
        observedPlain.observers.append { value in
            guard value != newest.last else { return }
            newest.last = value
            newest.pending = value
        }
        let directObserved = try await Measurement.run(
            "mutate @Observable state directly ×1M, one observer",
            iterations: 7
        ) {
            ()
        } body: { _ in
            for _ in 0..<actions { observedPlain.count += 1 }
        }

        // The observer views use: Observation tracking, as on the plain model.
        let trackedStore = Store(initialState: Counter.State()) { Counter() }
        let tracked = try await Measurement.run("store.send(.increment) ×1M, observed by Observation", iterations: 7) {
            withObservationTracking {
                _ = trackedStore.count
            } onChange: {
            }
        } body: { _ in
            for _ in 0..<actions { trackedStore.send(.increment) }
        }

        let store = Store(initialState: Counter.State()) { Counter() }
        var observed = store.values(of: \.count).makeAsyncIterator()
        _ = await observed.next()
        let sends = try await Measurement.run("store.send(.increment) ×1M, one values(of:) observer", iterations: 7) {
            ()
        } body: { _ in
            for _ in 0..<actions { store.send(.increment) }
        }
        let rate = Double(actions) / seconds(sends.median)
        print(direct.report())
        print(directObserved.report())
        print(tracked.report())
        print(sends.report())
        print(
            String(
                format:
                    "  observed by Observation: %.2f M actions/s; %.2f× the same mutation on a plain @Observable model",
                Double(actions) / seconds(tracked.median) / 1e6,
                ratio(tracked.median, direct.median)
            )
        )
        print(
            String(
                format:
                    "  send throughput: %.2f M actions/s (target ≥ 1); %.2f× direct mutation with one observer, %.2f× bare mutation (target ≤ 3×)",
                rate / 1e6,
                ratio(sends.median, directObserved.median),
                ratio(sends.median, direct.median)
            )
        )

        let effects = 10_000
        let effectStore = Store(initialState: Counter.State()) { Counter() }
        let effectCost = try await Measurement.run("send(.effect) + finish() ×10k (a .run effect)", iterations: 7) {
            ()
        } body: { _ in
            for _ in 0..<effects { await effectStore.send(.effect).finish() }
        }
        print(effectCost.report())
        print(String(format: "  per effect: %.2f µs", seconds(effectCost.median) / Double(effects) * 1e6))

        let depth1 = Store(initialState: Wrap.State(inner: Counter.State())) { Wrap(child: Counter()) }
            .scope(state: \.inner, action: \.inner)
        typealias W1 = Wrap<Counter>
        typealias W5 = Wrap<Wrap<Wrap<Wrap<W1>>>>
        let root5 = Store(
            initialState: W5.State(inner: .init(inner: .init(inner: .init(inner: .init(inner: Counter.State())))))
        ) {
            W5(child: Wrap(child: Wrap(child: Wrap(child: W1(child: Counter())))))
        }
        let depth5 =
            root5
            .scope(state: \.inner, action: \.inner)
            .scope(state: \.inner, action: \.inner)
            .scope(state: \.inner, action: \.inner)
            .scope(state: \.inner, action: \.inner)
            .scope(state: \.inner, action: \.inner)
        let scoped = 100_000
        let scope1 = try await Measurement.run("send through a store scoped 1 level ×100k", iterations: 7) {
            ()
        } body: { _ in
            for _ in 0..<scoped { depth1.send(.increment) }
        }
        let scope5 = try await Measurement.run("send through a store scoped 5 levels ×100k", iterations: 7) {
            ()
        } body: { _ in
            for _ in 0..<scoped { depth5.send(.increment) }
        }
        print(scope1.report())
        print(scope5.report())
        print(
            String(
                format: "  per send: %.0f ns at depth 1, %.0f ns at depth 5; reading state at depth 5: %d",
                seconds(scope1.median) / Double(scoped) * 1e9,
                seconds(scope5.median) / Double(scoped) * 1e9,
                depth5.count
            )
        )

        // A field set through a binding, against the plain action that does the same.
        let plainStore = Store(initialState: Counter.State()) { Counter() }
        let plainSends = try await Measurement.run("store.send(.increment) ×100k, no observer", iterations: 7) {
            ()
        } body: { _ in
            for _ in 0..<scoped { plainStore.send(.increment) }
        }
        let boundStore = Store(initialState: BoundCounter.State()) { BoundCounter() }
        let count = boundStore.binding(\.count)
        let boundSends = try await Measurement.run("binding.value = n ×100k (a BindingAction each)", iterations: 7) {
            ()
        } body: { _ in
            for value in 0..<scoped { count.value = value }
        }
        let presenter = Store(initialState: Presenter.State()) { Presenter() }
        let presentedSends = try await Measurement.run("send(.child(.presented(.increment))) ×100k", iterations: 7) {
            ()
        } body: { _ in
            for _ in 0..<scoped { presenter.send(.child(.presented(.increment))) }
        }
        // An effect of the presented child: wrapped with its dismissal, the path
        // a release build once crashed on (a closure-typed task-local).
        let presentedEffects = try await Measurement.run(
            "send(.child(.presented(.effect))) + finish() ×10k",
            iterations: 7
        ) {
            ()
        } body: { _ in
            for _ in 0..<effects { await presenter.send(.child(.presented(.effect))).finish() }
        }
        print(plainSends.report())
        print(boundSends.report())
        print(presentedSends.report())
        print(presentedEffects.report())
        print(
            String(
                format: "  per effect: %.2f µs in a presented child, %.2f µs in a plain store",
                seconds(presentedEffects.median) / Double(effects) * 1e6,
                seconds(effectCost.median) / Double(effects) * 1e6
            )
        )
        print(
            String(
                format: "  per send: %.0f ns through a presented child (%.2f× plain)",
                seconds(presentedSends.median) / Double(scoped) * 1e9,
                ratio(presentedSends.median, plainSends.median)
            )
        )
        print(
            String(
                format: "  per send: %.0f ns plain, %.0f ns through a binding (%.2f×)",
                seconds(plainSends.median) / Double(scoped) * 1e9,
                seconds(boundSends.median) / Double(scoped) * 1e9,
                ratio(boundSends.median, plainSends.median)
            )
        )
    }
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}
