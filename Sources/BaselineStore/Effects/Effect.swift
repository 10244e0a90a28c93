/// Work that follows an action: nothing, an action sent at once, or async work
/// that can send actions back — composed, and cancellable by id.
///
/// ```swift
/// case .refresh:
///     state.isLoading = true
///     return .run { [count = state.count] send in
///         await send(.factResponse(try await factClient.fetch(count)))
///     }
///     .cancellable(id: CancelID.fact, cancelInFlight: true)
/// case .cancel:
///     state.isLoading = false
///     return .cancel(id: CancelID.fact)
/// ```
///
/// Cancellation ids belong to the store that runs the effect: two stores of
/// the same feature never cancel each other's work.
public struct Effect<Action> {
    indirect enum Operation {
        case none
        case send(Action)
        case run(
            priority: TaskPriority?,
            name: String?,
            operation: @Sendable (Send<Action>) async throws -> Void,
            onError: (@Sendable (any Error, Send<Action>) async -> Void)?
        )
        case merge([Effect<Action>])
        case concatenate([Effect<Action>])
        case cancellable(EffectID, cancelInFlight: Bool, Effect<Action>)
        case cancel(EffectID)
        /// Decided when it starts, from when the last effect with this id
        /// started: see `throttle(id:for:clock:latest:)`.
        case throttle(EffectID, Throttle<Action>)
        /// Records that a throttled effect starts now (its trailing run).
        case markThrottleStart(EffectID, any Sendable)
    }

    let operation: Operation

    /// No work.
    public static var none: Effect { Effect(operation: .none) }

    /// Sends `action` right after the current one, before any async work.
    public static func send(_ action: Action) -> Effect {
        Effect(operation: .send(action))
    }

    /// Async work, run off the main actor, that may send actions back.
    ///
    /// - Parameters:
    ///   - priority: The task's priority.
    ///   - name: Shown when a store is released while this effect still runs.
    ///   - operation: The work. Cancellation (``cancellable(id:cancelInFlight:)-(HashableSendable,_)``,
    ///     a released store, a cancelled ``StoreTask``) cancels its task.
    ///   - onError: Handles an error the work throws (not `CancellationError`).
    ///     Without it, an error is logged.
    public static func run(
        priority: TaskPriority? = nil,
        name: String? = nil,
        operation: @escaping @Sendable (Send<Action>) async throws -> Void,
        catch onError: (@Sendable (any Error, Send<Action>) async -> Void)? = nil
    ) -> Effect {
        Effect(operation: .run(priority: priority, name: name, operation: operation, onError: onError))
    }

    /// Runs all `effects` at once.
    public static func merge(_ effects: [Effect]) -> Effect {
        let effects = effects.filter { if case .none = $0.operation { false } else { true } }
        switch effects.count {
        case 0: return .none
        case 1: return effects[0]
        default: return Effect(operation: .merge(effects))
        }
    }

    /// Runs all `effects` at once.
    public static func merge(_ effects: Effect...) -> Effect {
        merge(effects)
    }

    /// Runs `effects` one after the other, each starting when the previous finishes.
    public static func concatenate(_ effects: Effect...) -> Effect {
        Effect(operation: .concatenate(effects))
    }

    /// This effect, cancellable with ``cancel(id:)-(HashableSendable)``. With `cancelInFlight`,
    /// starting it first cancels any running effect with the same id.
    public func cancellable(id: some Hashable & Sendable, cancelInFlight: Bool = false) -> Effect {
        Effect(operation: .cancellable(EffectID(id), cancelInFlight: cancelInFlight, self))
    }

    /// Cancels the running effects marked with `id`.
    public static func cancel(id: some Hashable & Sendable) -> Effect {
        Effect(operation: .cancel(EffectID(id)))
    }

    /// This effect, cancellable with ``cancel(id:)-(HashableSendable)``, for an `id` whose
    /// `Hashable` conformance is isolated to the main actor: what an
    /// `enum CancelID { case search }` declared next to a reducer is in a
    /// module whose default isolation is `MainActor` (an Xcode 26 app
    /// target). The store hashes and compares ids on the main actor only, so
    /// such an id needs no `nonisolated`.
    @MainActor
    @_disfavoredOverload
    public func cancellable<ID: Hashable>(id: ID, cancelInFlight: Bool = false) -> Effect {
        Effect(operation: .cancellable(EffectID(mainActorBound: id), cancelInFlight: cancelInFlight, self))
    }

    /// Cancels the running effects marked with `id`, an id whose `Hashable`
    /// conformance is isolated to the main actor (see
    /// ``cancellable(id:cancelInFlight:)-(ID,_)``).
    @MainActor
    @_disfavoredOverload
    public static func cancel<ID: Hashable>(id: ID) -> Effect {
        Effect(operation: .cancel(EffectID(mainActorBound: id)))
    }

    private static func mapHandler<Other>(
        _ onError: (@Sendable (any Error, Send<Action>) async -> Void)?,
        _ transform: @escaping @Sendable (Action) -> Other
    ) -> (@Sendable (any Error, Send<Other>) async -> Void)? {
        guard let onError else { return nil }
        return { error, send in await onError(error, send.map(transform)) }
    }

    /// The same work, its actions turned into another action type (a child
    /// feature's effect, embedded in its parent's).
    public func map<Other>(_ transform: @escaping @Sendable (Action) -> Other) -> Effect<Other> {
        switch operation {
        case .none:
            .none
        case let .send(action):
            .send(transform(action))
        case let .run(priority, name, operation, onError):
            // Keep "no handler" as no handler, so the runner still logs the error.
            Effect<Other>.run(
                priority: priority,
                name: name,
                operation: { (send: Send<Other>) in try await operation(send.map(transform)) },
                catch: Self.mapHandler(onError, transform)
            )
        case let .merge(effects):
            .merge(effects.map { $0.map(transform) })
        case let .concatenate(effects):
            Effect<Other>(operation: .concatenate(effects.map { $0.map(transform) }))
        case let .cancellable(id, cancelInFlight, effect):
            Effect<Other>(operation: .cancellable(id, cancelInFlight: cancelInFlight, effect.map(transform)))
        case let .cancel(id):
            Effect<Other>(operation: .cancel(id))
        case let .throttle(id, throttle):
            Effect<Other>(operation: .throttle(id, throttle.map(transform)))
        case let .markThrottleStart(id, instant):
            Effect<Other>(operation: .markThrottleStart(id, instant))
        }
    }
}

extension Effect {
    /// The same effect with each `.run`'s work wrapped by `wrap`, which is
    /// given the work's `send` and the work itself (to run inside a scope of
    /// its own, such as task-local values): how a presented child's effects
    /// get their `dismiss`.
    func wrappingRuns(
        _ wrap: @escaping @Sendable (Send<Action>, _ work: @Sendable () async throws -> Void) async throws -> Void
    ) -> Effect {
        switch operation {
        case .none, .send, .cancel, .markThrottleStart:
            return self
        case let .run(priority, name, operation, onError):
            // The error handler runs in the same scope as the work it handles.
            var wrappedHandler: (@Sendable (any Error, Send<Action>) async -> Void)?
            if let onError {
                wrappedHandler = { error, send in
                    try? await wrap(send) { await onError(error, send) }
                }
            }
            let wrappedOperation: @Sendable (Send<Action>) async throws -> Void = { send in
                try await wrap(send) { try await operation(send) }
            }
            return Effect(
                operation: .run(priority: priority, name: name, operation: wrappedOperation, onError: wrappedHandler)
            )
        case let .merge(effects):
            return Effect(operation: .merge(effects.map { $0.wrappingRuns(wrap) }))
        case let .concatenate(effects):
            return Effect(operation: .concatenate(effects.map { $0.wrappingRuns(wrap) }))
        case let .cancellable(id, cancelInFlight, effect):
            return Effect(operation: .cancellable(id, cancelInFlight: cancelInFlight, effect.wrappingRuns(wrap)))
        case let .throttle(id, throttle):
            return Effect(operation: .throttle(id, throttle.mapEffects { $0.wrappingRuns(wrap) }))
        }
    }
}

// An effect crosses isolation only when its actions can: one that may send
// actions of a main-actor type stays with the store that runs it.
extension Effect: Sendable where Action: Sendable {}
extension Effect.Operation: Sendable where Action: Sendable {}

/// A cancellation id, type-erased.
// safety: built from a `Sendable` id whose conformance may be used anywhere,
// or on the main actor from an id whose `Hashable` conformance is isolated to
// it (`init(mainActorBound:)`). Ids are hashed and compared only by the
// store's `EffectRunner`, which is main-actor isolated, so the second kind is
// only ever used in its own isolation; AnyHashable just cannot say so.
struct EffectID: Hashable, @unchecked Sendable {  // safety: hashed only on the main actor, see above
    let base: AnyHashable

    init(_ id: some Hashable & Sendable) {
        base = AnyHashable(id)
    }

    @MainActor
    init<ID: Hashable>(mainActorBound id: ID) {
        base = AnyHashable(id)
    }
}

/// Sends actions from an effect back into its store, on the main actor.
///
/// ```swift
/// .run { send in
///     for await event in events { await send(.received(event)) }
/// }
/// ```
///
/// Once the effect is cancelled, sending does nothing.
///
/// An action need not be `Sendable`: one the effect has just made, and keeps
/// no reference to, crosses to the main actor as it is (Swift's region-based
/// isolation checks that the effect does not use it afterwards).
@MainActor
public struct Send<Action>: Sendable {
    let deliver: @MainActor (Action) -> Void

    /// A value that delivers actions with `deliver`, on the main actor.
    nonisolated public init(_ deliver: @escaping @MainActor (Action) -> Void) {
        self.deliver = deliver
    }

    /// Sends `action`, unless the effect has been cancelled.
    public func callAsFunction(_ action: Action) {
        guard !Task.isCancelled else { return }
        deliver(action)
    }

    nonisolated func map<Other>(_ transform: @escaping @Sendable (Other) -> Action) -> Send<Other> {
        Send<Other> { action in self.deliver(transform(action)) }
    }
}
