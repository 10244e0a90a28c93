import BaselineConcurrency
import BaselineStore
import BaselineTesting
import Testing

/// What a failing `TestStore` assertion says, one message per kind of
/// failure, through a presented child (the navigation tests' `Documents`):
/// a message must name the actions as they are written in a test, and show
/// the state as a diff.
@MainActor
@Suite("TestStore failure messages", .timeLimit(.minutes(1)))
struct TestStoreMessageTests {
    let load = ControllableCall<Int, String>()

    func store() -> TestStore<Documents.State, Documents.Action> {
        TestStore(initialState: Documents.State()) { Documents(load: load) }
    }

    /// The messages of the issues `body` records.
    func messages(_ body: () async -> Void) async -> [String] {
        let recorded = LockedValue<[String]>([])
        await withKnownIssue {
            await body()
        } matching: { issue in
            recorded.withLock { $0.append(issue.comments.map(\.rawValue).joined(separator: "\n")) }
            return true
        }
        // The diffs pad unchanged lines with a figure space (U+2007), which
        // lines up with − and +; a plain space here, so the snapshots read.
        return recorded.current.map { String($0.map { $0 == "\u{2007}" ? " " : $0 }) }
    }

    @Test func aStateChangeThatDiffers() async {
        let store = store()
        let messages = await messages {
            await store.send(.newTapped) { $0.sheet = Editor.State(id: 1) }
        }
        #expect(
            messages == [
                """
                State after send Documents.Action.newTapped differs from the expected state: (− expected, + actual)
                  Documents.State(
                    sheet: Editor.State(
                −     id: 1,
                +     id: 0,
                      text: "",
                      loaded: nil
                    ),
                    path: [],
                    log: [],
                    chainNext: false,
                    dismissOnLoaded: false
                  )
                """
            ]
        )
    }

    @Test func anotherActionReceived() async throws {
        let store = store()
        await store.send(.newTapped) { $0.sheet = Editor.State(id: 0) }
        await store.send(.sheet(.presented(.load)))
        try await load.nextCall().resume(returning: "draft")
        let messages = await messages {
            await store.receive(.sheet(.presented(.loaded("final"))))
        }
        #expect(
            messages == [
                """
                Expected to receive Documents.Action.sheet(.presented(.loaded("final"))), but received Documents.Action.sheet(.presented(.loaded("draft"))): (− expected, + received)
                  Documents.Action.sheet(
                    .presented(
                −     .loaded("final")
                +     .loaded("draft")
                    )
                  )
                """
            ]
        )
        await store.finish()
    }

    @Test func nothingCouldSendTheAction() async {
        let store = store()
        let messages = await messages {
            await store.receive(.sheet(.dismiss))
        }
        #expect(
            messages == [
                "Expected to receive Documents.Action.sheet(.dismiss), but no effect is running that could send it."
            ]
        )
    }

    @Test func aSendBeforeTheReceivedActionsAreAsserted() async {
        /// Answers at once with an action sent back.
        struct Echo: Reducer {
            enum Action: Equatable, Sendable {
                case ping
                case pong(Int)
            }
            func reduce(into state: inout Int, action: Action) -> Effect<Action> {
                if case .ping = action { return .send(.pong(state)) }
                return .none
            }
        }
        let store = TestStore(initialState: 0) { Echo() }
        await store.send(.ping)
        let messages = await messages {
            await store.send(.ping)
        }
        #expect(
            messages == [
                "Must handle 1 received action(s) before sending TestStoreMessageTests.Echo.Action.ping: TestStoreMessageTests.Echo.Action.pong(0)"
            ]
        )
        store.skipReceivedActions()
    }

    @Test func receivedActionsLeftAtTheEnd() async {
        let store = store()
        await store.send(.newTapped) { $0.sheet = Editor.State(id: 0) }
        await store.send(.sheet(.presented(.saveTapped)))
        let messages = await messages {
            await store.finish()
        }
        #expect(messages == ["Received actions not asserted: Documents.Action.sheet(.dismiss)"])
    }

    @Test func receivedActionsLeftWhenTheStoreGoesAreNamedByTheirCases() async {
        /// Answers at once with an action that carries a payload.
        struct Echo: Reducer {
            enum Inner: Equatable, Sendable { case rows([Int]) }
            enum Action: Equatable, Sendable {
                case ping
                case pong(Inner)
            }
            func reduce(into state: inout Int, action: Action) -> Effect<Action> {
                if case .ping = action { return .send(.pong(.rows(Array(0..<10_000)))) }
                return .none
            }
        }
        var store: TestStore<Int, Echo.Action>? = TestStore(initialState: 0) { Echo() }
        await store?.send(.ping)
        let messages = await messages {
            store = nil
        }
        // The cases, not the 10,000 values: dumping them on every arrival cost seconds.
        #expect(messages == ["The test ended with received actions not asserted: pong(.rows(…))"])
    }
}
