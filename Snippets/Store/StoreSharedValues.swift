// Values that every feature holding them sees the same, and that outlive
// the app: a tab kept in a file, a count kept in a database row, and a test
// that asserts both.

// snippet.hide
import BaselineConcurrency
import BaselinePersistence
import BaselineStore
import BaselineTesting
import Foundation
import GRDB

enum Tab: String, Codable, Sendable { case photos, todos }

let support = FileManager.default.temporaryDirectory.appendingPathComponent("shared-\(UUID().uuidString)")
let database = try await SQLiteDatabase.open(
    at: support.appendingPathComponent("app.sqlite"),
    migrator: DatabaseMigrator()
)

// snippet.show
// snippet.feature
struct Settings: Reducer {
    struct State: Equatable {
        var tab = Shared(Tab.photos)
        var count = Shared(0)
    }

    @CasePathable
    enum Action: Equatable {
        case tab(SharedAction<Tab>)
        case count(SharedAction<Int>)
        case tabTapped(Tab)
        case incrementTapped
    }

    let tabKey: SharedKey<Tab>
    let countKey: SharedKey<Int>

    var body: some Reducer<State, Action> {
        Reduce { state, action in
            switch action {
            case let .tabTapped(tab): state.tab.value = tab  // saved, and passed to every holder
            case .incrementTapped: state.count.value += 1
            case .tab, .count: break
            }
            return .none
        }
        .sharing(\.tab, action: \.tab, tabKey)
        .sharing(\.count, action: \.count, countKey)
    }
}
// snippet.end

// snippet.keys
let inMemory: SharedKey<Tab> = .inMemory("tab")  // for this run of the app
let file: SharedKey<Tab> = .file(support.appendingPathComponent("tab.json"))  // JSON, replaced atomically
let secret: SharedKey<Tab> = .file(support.appendingPathComponent("tab.json"), ownerOnly: true)  // mode 0600
let row: SharedKey<Int> = .row("count", in: database)  // a row of the app's database
// snippet.end

// snippet.store
let store = Store(initialState: Settings.State()) { Settings(tabKey: file, countKey: row) }
// A view's `.task`: load the stored values, and follow changes made elsewhere.
store.send(.tab(.start))
store.send(.count(.start))
// A screen shows `store.tab.value`, and `store.tab.loadError` or `saveError` when there is one.
// snippet.end

// snippet.hide
try await waitUntil(store) { !$0.tab.isLoading && !$0.count.isLoading }
await store.send(.tabTapped(.todos)).finish()
print(store.tab.value, try String(contentsOf: support.appendingPathComponent("tab.json"), encoding: .utf8))
store.send(.tab(.stop))
store.send(.count(.stop))
_ = (inMemory, secret)

// snippet.show
// snippet.test
@MainActor
func theCountIsSharedAndSaved() async {
    let store = TestStore(initialState: Settings.State()) {
        Settings(tabKey: .inMemory("tab"), countKey: .inMemory("count"))
    }
    await store.send(.count(.start)) {
        $0.count.isFollowing = true
        $0.count.isLoading = true
    }
    // Nothing stored yet: the state keeps its initial value.
    await store.receive(.count(.loaded(nil))) { $0.count.isLoading = false }
    // A change to a shared value is asserted like any other state.
    await store.send(.incrementTapped) { $0.count.value = 1 }
    await store.send(.count(.stop)) { $0.count.isFollowing = false }
    await store.finish()
}
// snippet.end

// snippet.hide
await theCountIsSharedAndSaved()
try await database.close()
try? FileManager.default.removeItem(at: support)
