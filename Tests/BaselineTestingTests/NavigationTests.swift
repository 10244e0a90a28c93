import BaselineConcurrency
import BaselineStore
import BaselineTesting
import Testing

/// A child that loads something (a call the test controls) and can close itself.
struct Editor: Reducer {
    struct State: Equatable, Identifiable {
        var id: Int
        var text = ""
        var loaded: String?
    }

    @CasePathable
    enum Action: Equatable, Sendable {
        case load
        case loaded(String)
        case typed(String)
        case saveTapped
        case saveFailingTapped
    }

    let load: ControllableCall<Int, String>
    @Dependency(\.dismiss) var dismiss

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .load:
            return .run { [id = state.id, load] send in await send(.loaded(try await load(id))) }
        case let .loaded(text):
            state.loaded = text
            return .none
        case let .typed(text):
            state.text = text
            return .none
        case .saveTapped:
            // Closes itself once the (instant) save is done. Captured when
            // the reducer runs, as Sendable closures usually capture.
            return .run { [dismiss] _ in await dismiss() }
        case .saveFailingTapped:
            // Closes itself from the error handler, reading `dismiss` there.
            return .run { _ in
                throw CancellationErrorLookalike()
            } catch: { _, _ in
                await dismiss()
            }
        }
    }
}

struct CancellationErrorLookalike: Error {}

/// A parent presenting one editor as a sheet, and a stack of editors.
struct Documents: Reducer {
    struct State: Equatable {
        var sheet: Editor.State?
        var path: [Editor.State] = []
        var log: [String] = []
        /// Answer a dismissal or a pop by presenting or pushing the next one.
        var chainNext = false
        /// Answer the sheet's `.loaded` with an effect of the parent's own that
        /// calls `dismiss` (the parent is not presented: it must not dismiss the sheet).
        var dismissOnLoaded = false
    }

    @CasePathable
    enum Action: Equatable, Sendable {
        case newTapped
        case sheet(PresentationAction<Editor.Action>)
        case open(Int)
        case path(StackAction<Int, Editor.Action>)
        case closeAllTapped
        case replaceSheet(Int)
    }

    let load: ControllableCall<Int, String>
    @Dependency(\.dismiss) var dismiss

    var body: some Reducer<State, Action> {
        Reduce<State, Action> { [dismiss] state, action in
            switch action {
            case .sheet(.presented(.loaded)) where state.dismissOnLoaded:
                return .run { _ in await dismiss() }
            case .newTapped:
                state.sheet = Editor.State(id: 0)
            case .sheet(.dismiss):
                state.log.append("sheet dismissed")
                if state.chainNext { state.sheet = Editor.State(id: 99) }
            case .path(.popFrom):
                if state.chainNext { state.path.append(Editor.State(id: 100)) }
            case let .replaceSheet(id):
                state.sheet = Editor.State(id: id)
            case let .open(id):
                state.path.append(Editor.State(id: id))
            case .closeAllTapped:
                state.sheet = nil
                state.path.removeAll()
            case .sheet, .path:
                break
            }
            return .none
        }
        .presenting(\.sheet, action: \.sheet) {
            Editor(load: load)
        }
        .stack(\.path, action: \.path) {
            Editor(load: load)
        }
    }
}

@MainActor
@Suite("Navigation: presenting, dismissing and stacking child features", .timeLimit(.minutes(1)))
struct NavigationTests {
    @Test func aDismissalOverriddenForTheParentStillLetsAChildDismissItself() async {
        let parentDismissals = LockedValue(0)
        let store = TestStore(initialState: Documents.State()) {
            Documents(load: load)
        } withDependencies: {
            $0.dismiss = DismissEffect { parentDismissals.withLock { $0 += 1 } }
        }
        await store.send(.newTapped) { $0.sheet = Editor.State(id: 0) }
        await store.send(.sheet(.presented(.saveTapped)))
        await store.receive(.sheet(.dismiss)) {
            $0.sheet = nil
            $0.log = ["sheet dismissed"]
        }
        await store.finish()
        #expect(parentDismissals.current == 0)
    }

    @MainActor
    @Test func aParentEffectStartedByAChildsActionDoesNotDismissTheChild() async throws {
        let (reports, reported) = AsyncStream.makeStream(of: String.self)
        let store = Store(initialState: Documents.State(dismissOnLoaded: true)) {
            Documents(load: load)
        } withDependencies: {
            $0.reportUnimplemented = { message, _, _, _ in reported.yield(message) }
        }
        store.send(.newTapped)
        let loading = store.send(.sheet(.presented(.load)))
        try await load.nextCall().resume(returning: "text")
        await loading.finish()
        // The parent's effect started inside the child's: the child's
        // dismissal must not have leaked into it.
        var iterator = reports.makeAsyncIterator()
        let report = await iterator.next()
        #expect(report?.contains("outside the effects of a presented feature") == true)
        #expect(store.sheet?.loaded == "text", "the sheet is still presented")
    }

    let load = ControllableCall<Int, String>()

    func makeStore() -> TestStore<Documents.State, Documents.Action> {
        TestStore(initialState: Documents.State()) { Documents(load: load) }
    }

    @Test func aPresentedChildRunsUntilItIsDismissedAndItsEffectsEndWithIt() async throws {
        let store = makeStore()
        await store.send(.newTapped) { $0.sheet = Editor.State(id: 0) }
        await store.send(.sheet(.presented(.typed("draft")))) { $0.sheet?.text = "draft" }
        await store.send(.sheet(.presented(.load)))
        let call = try await load.nextCall()
        await store.send(.sheet(.dismiss)) {
            $0.sheet = nil
            $0.log = ["sheet dismissed"]
        }
        await store.finish()
        #expect(call.isCancelled)
    }

    /// `.saveTapped` dismisses from its work (with `dismiss` captured in the
    /// reducer), `.saveFailingTapped` from its error handler (reading it there).
    @Test(arguments: [Editor.Action.saveTapped, .saveFailingTapped])
    func aChildDismissesItselfThroughAnEffect(_ action: Editor.Action) async {
        let store = makeStore()
        await store.send(.newTapped) { $0.sheet = Editor.State(id: 0) }
        await store.send(.sheet(.presented(action)))
        await store.receive(.sheet(.dismiss)) {
            $0.sheet = nil
            $0.log = ["sheet dismissed"]
        }
        await store.finish()
    }

    @Test func aChildActionWhileNothingIsPresentedIsIgnored() async {
        let store = makeStore()
        await store.send(.sheet(.presented(.load)))
        #expect(load.callCount == 0)
    }

    @Test func theParentClearingTheStateCancelsTheChildsEffectsToo() async throws {
        let store = makeStore()
        await store.send(.newTapped) { $0.sheet = Editor.State(id: 0) }
        await store.send(.open(7)) { $0.path = [Editor.State(id: 7)] }
        await store.send(.sheet(.presented(.load)))
        await store.send(.path(.element(id: 7, action: .load)))
        let first = try await load.nextCall()
        let second = try await load.nextCall()
        await store.send(.closeAllTapped) {
            $0.sheet = nil
            $0.path = []
        }
        await store.finish()
        #expect(first.isCancelled && second.isCancelled)
    }

    @Test func popFromPopsTheElementAndThoseAboveItAndCancelsOnlyTheirEffects() async throws {
        let store = makeStore()
        await store.send(.open(1)) { $0.path = [Editor.State(id: 1)] }
        await store.send(.open(2)) { $0.path.append(Editor.State(id: 2)) }
        await store.send(.open(3)) { $0.path.append(Editor.State(id: 3)) }
        await store.send(.path(.element(id: 1, action: .load)))
        let bottom = try await load.nextCall()
        await store.send(.path(.element(id: 3, action: .load)))
        let top = try await load.nextCall()
        await store.send(.path(.popFrom(id: 2))) { $0.path = [Editor.State(id: 1)] }
        bottom.resume(returning: "one")
        await store.receive(.path(.element(id: 1, action: .loaded("one")))) { $0.path[0].loaded = "one" }
        await store.finish()
        #expect(top.isCancelled)
        #expect(!bottom.isCancelled)
    }

    @Test func aStackElementDismissesItself() async {
        let store = makeStore()
        await store.send(.open(1)) { $0.path = [Editor.State(id: 1)] }
        await store.send(.open(2)) { $0.path.append(Editor.State(id: 2)) }
        await store.send(.path(.element(id: 2, action: .saveTapped)))
        await store.receive(.path(.popFrom(id: 2))) { $0.path = [Editor.State(id: 1)] }
        await store.finish()
    }

    @Test func replacingThePresentedChildCancelsTheOldOnesEffects() async throws {
        let store = makeStore()
        await store.send(.newTapped) { $0.sheet = Editor.State(id: 0) }
        await store.send(.sheet(.presented(.load)))
        let call = try await load.nextCall()
        await store.send(.replaceSheet(2)) { $0.sheet = Editor.State(id: 2) }
        await store.finish()
        #expect(call.isCancelled)
    }

    @Test func aChildPresentedInAnswerToADismissalStays() async {
        var initial = Documents.State()
        initial.chainNext = true
        let store = TestStore(initialState: initial) { Documents(load: load) }
        await store.send(.newTapped) { $0.sheet = Editor.State(id: 0) }
        await store.send(.sheet(.dismiss)) {
            $0.sheet = Editor.State(id: 99)
            $0.log = ["sheet dismissed"]
        }
        await store.send(.open(1)) { $0.path = [Editor.State(id: 1)] }
        await store.send(.path(.popFrom(id: 1))) { $0.path = [Editor.State(id: 100)] }
    }

    @Test func dismissOutsideAPresentedFeatureIsReported() async {
        @Dependency(\.dismiss) var dismiss
        let reported = LockedValue<[String]>([])
        let values = DependencyValues(context: .test).with { values in
            values.reportUnimplemented = { message, _, _, _ in reported.withLock { $0.append(message) } }
        }
        await DependencyValues.$current.withValue(values) { await dismiss() }
        #expect(reported.current.count == 1)
    }
}
