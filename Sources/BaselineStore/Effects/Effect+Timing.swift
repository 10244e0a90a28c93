extension Effect {
    /// This effect, started only once `duration` has passed without another
    /// effect with the same `id` being started: the search-as-you-type effect.
    ///
    /// Each new effect with `id` cancels the one waiting (and one already
    /// running), so only the last of a burst runs. ``cancel(id:)-(HashableSendable)`` cancels it
    /// too. The wait runs on `clock`, so a test drives it with a test clock.
    ///
    /// ```swift
    /// case let .queryChanged(query):
    ///     state.query = query
    ///     return .run { send in await send(.resultsLoaded(try await search(query))) }
    ///         .debounce(id: CancelID.search, for: .milliseconds(300), clock: clock)
    /// ```
    public func debounce(id: some Hashable & Sendable, for duration: Duration, clock: any Clock<Duration>) -> Effect {
        debounced(id: EffectID(id), for: duration, clock: clock)
    }

    /// This effect, started at most once per `interval` for `id`.
    ///
    /// The first effect with `id` starts at once and opens a window of
    /// `interval`. Effects arriving inside the window do not start then: one of
    /// them starts when the window ends (and opens the next) — the last one
    /// when `latest` is true, the first one when it is false — and the others
    /// never start. So a burst of refreshes makes one at once and one at the
    /// end, never more than one per `interval`.
    ///
    /// ``cancel(id:)-(HashableSendable)`` cancels a waiting effect (the window stays). The window
    /// is measured on `clock`, so a test drives it with a test clock.
    ///
    /// ```swift
    /// case .scrolledNearEnd:
    ///     return .run { send in await send(.pageLoaded(try await loadNextPage())) }
    ///         .throttle(id: CancelID.paging, for: .seconds(1), clock: clock, latest: false)
    /// ```
    public func throttle(
        id: some Hashable & Sendable,
        for interval: Duration,
        clock: any Clock<Duration>,
        latest: Bool
    ) -> Effect {
        throttled(id: EffectID(id), for: interval, clock: clock, latest: latest)
    }

    /// ``debounce(id:for:clock:)-(_,_,_)`` for an `id` whose `Hashable`
    /// conformance is isolated to the main actor (see
    /// ``cancellable(id:cancelInFlight:)-(ID,_)``).
    @MainActor
    @_disfavoredOverload
    public func debounce<ID: Hashable>(id: ID, for duration: Duration, clock: any Clock<Duration>) -> Effect {
        debounced(id: EffectID(mainActorBound: id), for: duration, clock: clock)
    }

    /// The wait, then this effect, under `id`: a newer one cancels both.
    private func debounced(id: EffectID, for duration: Duration, clock: any Clock<Duration>) -> Effect {
        let waitThenRun = Effect.concatenate(
            .run(name: "debounce wait") { _ in try await clock.sleep(for: duration) },
            self
        )
        return Effect(operation: .cancellable(id, cancelInFlight: true, waitThenRun))
    }

    /// ``throttle(id:for:clock:latest:)-(HashableSendable,_,_,_)`` for an `id` whose
    /// `Hashable` conformance is isolated to the main actor (see
    /// ``cancellable(id:cancelInFlight:)-(ID,_)``).
    @MainActor
    @_disfavoredOverload
    public func throttle<ID: Hashable>(
        id: ID,
        for interval: Duration,
        clock: any Clock<Duration>,
        latest: Bool
    ) -> Effect {
        throttled(id: EffectID(mainActorBound: id), for: interval, clock: clock, latest: latest)
    }

    /// `throttle(id:for:clock:latest:)` with the clock's type known, so that
    /// its instants can be compared.
    private func throttled<C: Clock<Duration>>(id: EffectID, for interval: Duration, clock: C, latest: Bool) -> Effect {
        let effect = self
        return Effect(
            operation: .throttle(
                id,
                Throttle { lastStart, isWaiting in
                    let now = clock.now
                    guard let last = lastStart as? C.Instant, now < last.advanced(by: interval) else {
                        return .start(effect, at: now)
                    }
                    if isWaiting && !latest { return .drop }
                    let end = last.advanced(by: interval)
                    return .wait(
                        .concatenate(
                            .run(name: "throttle wait") { _ in try await clock.sleep(until: end, tolerance: nil) },
                            Effect(operation: .markThrottleStart(id, end)),
                            effect
                        )
                    )
                }
            )
        )
    }
}

/// What a throttled effect does when it is started, given when the last
/// effect with its id started (as its clock's instant) and whether one is
/// already waiting for the window to end.
struct Throttle<Action> {
    enum Decision {
        /// Outside the window: start now, and the window opens at `instant`.
        case start(Effect<Action>, at: any Sendable)
        /// Inside it: wait for its end (replacing any effect waiting).
        case wait(Effect<Action>)
        /// Inside it, with an earlier effect kept for the end.
        case drop
    }

    /// Called by the store's effect runner, on the main actor.
    let decide: (_ lastStart: (any Sendable)?, _ isWaiting: Bool) -> Decision

    /// The same decisions, with each effect they start changed by `transform`.
    func mapEffects(_ transform: @escaping (Effect<Action>) -> Effect<Action>) -> Throttle {
        Throttle { lastStart, isWaiting in
            switch decide(lastStart, isWaiting) {
            case let .start(effect, instant): .start(transform(effect), at: instant)
            case let .wait(effect): .wait(transform(effect))
            case .drop: .drop
            }
        }
    }

    func map<Other>(_ transform: @escaping @Sendable (Action) -> Other) -> Throttle<Other> {
        Throttle<Other> { lastStart, isWaiting in
            switch decide(lastStart, isWaiting) {
            case let .start(effect, instant): .start(effect.map(transform), at: instant)
            case let .wait(effect): .wait(effect.map(transform))
            case .drop: .drop
            }
        }
    }
}

// `decide` captures the throttled effect, the clock and the interval: all
// Sendable when the actions are.
extension Throttle: @unchecked Sendable where Action: Sendable {}  // safety: see above

/// The cancellation id of the effect waiting for a throttle window's end.
struct ThrottleWaiting: Hashable, Sendable {
    let id: EffectID
}
