import BaselineConcurrency

extension Reducer where Action: CasePathable {
    /// Keeps the ``Shared`` value at `state` the same as every other holder
    /// of `key`, and saved where `key` says.
    ///
    /// ```swift
    /// Reduce { state, action in … }
    ///     .sharing(\.tab, action: \.tab, .file(support.appending(path: "tab.json")))
    /// ```
    ///
    /// The feature runs it as a reducer, around its own logic:
    ///
    /// - **Start.** ``SharedAction/start`` loads the stored value and follows
    ///   the key: the value arrives as ``SharedAction/loaded(_:)`` (`nil` when
    ///   nothing is stored: the state keeps its initial value), and so does
    ///   every later change made by another holder in the process or,
    ///   through a file or a database row, by another process. Starting
    ///   again while followed does nothing. A value that cannot be read is
    ///   ``SharedAction/loadFailed(_:)``: ``Shared/loadError`` is set and the
    ///   value stays.
    /// - **Changes.** After every action it sees, a ``Shared/value`` that
    ///   differs from the key's last value here is the key's new value,
    ///   whoever changed it: the feature, a reducer before this one in the
    ///   body (a `BindingReducer`), or a parent (seen at the next action that
    ///   reaches this reducer). The other holders receive it, and it is
    ///   saved in the background, one save at a time, the newest last.
    ///   A save that fails reaches every holder that follows the key as
    ///   ``SharedAction/saveFailed(_:)`` (``Shared/saveError``; the value
    ///   stays as changed, in memory), and the next that succeeds as
    ///   ``SharedAction/saved``. A change is saved even when the key is not
    ///   followed, but send `.start` first: until the stored value is
    ///   loaded, a change is made to the initial value, and save failures
    ///   reach only holders that follow.
    /// - **Order.** What arrives is applied only while it is still the key's
    ///   value: a value overtaken by a newer write (this holder's own, made
    ///   while it was on its way) is passed over, so every holder ends with
    ///   the newest.
    /// - **Stop.** Following ends on ``SharedAction/stop`` and with the
    ///   store; like a fetched value's, a removed child's (``IfLet``,
    ///   ``ForEachReducer``) should be sent `.stop`.
    /// - **Tests.** A change is state, and what arrives is an action: an
    ///   exhaustive `TestStore` fails a test that does not assert either.
    ///   Each `TestStore` has its own in-memory values
    ///   (``DependencyValues/sharedValues``); a change's save is an effect
    ///   that `await store.finish()` waits for.
    ///
    /// - Parameters:
    ///   - state: Where the value lives.
    ///   - action: The feature's case that carries the value's actions.
    ///   - key: Where the value is stored: `.inMemory(_:)`, or
    ///     BaselinePersistence's `.file(_:)` and `.row(_:in:)`.
    public func sharing<Value: Equatable & Sendable>(
        _ state: WritableKeyPath<State, Shared<Value>>,
        action: ActionCase<Action, SharedAction<Value>>,
        _ key: SharedKey<Value>
    ) -> SharingReducer<Self, Value> {
        SharingReducer(parent: self, state: state, action: CaseAccess(action), key: key)
    }
}

/// A feature whose state holds a ``Shared`` value; made by
/// ``Reducer/sharing(_:action:_:)``.
public struct SharingReducer<Parent: Reducer, Value: Equatable & Sendable>: Reducer
where Parent.Action: CasePathable {
    let parent: any Reducer<Parent.State, Parent.Action>
    let state: WritableKeyPath<Parent.State, Shared<Value>>
    let action: CaseAccess<Parent.Action, SharedAction<Value>>
    let key: SharedKey<Value>

    init(
        parent: Parent,
        state: WritableKeyPath<Parent.State, Shared<Value>>,
        action: CaseAccess<Parent.Action, SharedAction<Value>>,
        key: SharedKey<Value>
    ) {
        self.parent = parent._built()
        self.state = state
        self.action = action
        self.key = key
    }

    /// Applies the value's own actions, runs the feature, then writes a
    /// changed value (see ``Reducer/sharing(_:action:_:)``).
    public func reduce(into state: inout Parent.State, action: Parent.Action) -> Effect<Parent.Action> {
        let path = self.state
        // Looked up only when needed: every action of the feature passes
        // here, and a stored key's hub is made anew when none is in use.
        let hub = { DependencyValues.current.sharedValues.hub(for: key) }
        var own = Effect<Parent.Action>.none
        if let shared = self.action.extract(action) {
            switch shared {
            case .start:
                if state[keyPath: path].holder == nil {
                    let holder = FetchingSources.next()
                    state[keyPath: path].holder = holder
                    state[keyPath: path].isFollowing = true
                    state[keyPath: path].isLoading = true
                    own = Effect.followingShared(hub(), as: holder, in: self.action)
                        .cancellable(id: SharedEffects(path: path, holder: holder))
                }
            case .stop:
                if let holder = state[keyPath: path].holder {
                    own = .cancel(id: SharedEffects(path: path, holder: holder))
                }
                state[keyPath: path].holder = nil
                state[keyPath: path].isFollowing = false
                state[keyPath: path].isLoading = false
            case let .loaded(value):
                // A value overtaken by a newer write (this holder's, say) is not applied: the newer one is here or on its way.
                if let value, hub().isCurrent(value) {
                    state[keyPath: path].value = value
                    state[keyPath: path].synced = value
                }
                state[keyPath: path].isLoading = false
                state[keyPath: path].loadError = nil
            case let .loadFailed(failure):
                state[keyPath: path].isLoading = false
                state[keyPath: path].loadError = failure
            case let .saveFailed(failure):
                state[keyPath: path].saveError = failure
            case .saved:
                state[keyPath: path].saveError = nil
            }
        }
        let parentEffect = parent.reduce(into: &state, action: action)
        // Compared with the value the key last had here, not with the state
        // before the feature ran: a reducer earlier in the body (a
        // `BindingReducer`) or a parent may have changed it. What arrived
        // (`.loaded`) is the key's already, and is not written back.
        let value = state[keyPath: path].value
        if value != state[keyPath: path].synced {
            state[keyPath: path].synced = value
            let hub = hub()
            let write = hub.write(value, from: state[keyPath: path].holder)
            if key.save != nil {
                own = own.merged(with: Effect.savingShared(hub, write: write))
            }
        }
        return own.merged(with: parentEffect)
    }
}

extension Effect {
    /// The effect that follows `hub` as `holder`. Written over plain type
    /// parameters, as ``following(_:with:in:)`` is.
    static func followingShared<Value: Equatable & Sendable>(
        _ hub: SharedHub<Value>,
        as holder: UInt64,
        in access: CaseAccess<Action, SharedAction<Value>>
    ) -> Effect {
        let casePath = access.casePath
        return .run(name: "follow shared \(hub.key.id)") { send in
            for await event in hub.follow(as: holder) {
                switch event {
                case let .value(value): await send(casePath.embed(.loaded(value)))
                case let .loadFailed(failure): await send(casePath.embed(.loadFailed(failure)))
                case let .saveFailed(failure): await send(casePath.embed(.saveFailed(failure)))
                case .saved: await send(casePath.embed(.saved))
                }
            }
        }
    }

    /// The effect that waits for write `write` to be saved: what
    /// `await store.send(…).finish()` waits for. How the save went reaches
    /// the holders through the hub, in order with everything else.
    static func savingShared<Value: Equatable & Sendable>(_ hub: SharedHub<Value>, write: UInt64) -> Effect {
        .run(name: "save shared \(hub.key.id)") { _ in
            await hub.saved(through: write)
        }
    }
}

/// The cancellation id of a shared value's following effect: its place in
/// the state and its holder.
// As FetchEffects' key path, this one is only hashed and compared, never applied.
struct SharedEffects: Hashable, @unchecked Sendable, LastsForTheStore {  // safety: see above
    let path: AnyKeyPath
    let holder: UInt64
}
