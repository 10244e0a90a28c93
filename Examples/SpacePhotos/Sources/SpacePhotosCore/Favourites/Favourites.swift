import BaselineStore

/// The live favourite counts, and this member's favourites, for every
/// screen that shows a photo.
///
/// ```swift
/// .task { await store.send(.favourites(.start)).finish() }   // lasts as long as the view
/// Text("★ \(store.favourites.counts[photo.day, default: 0])")
/// Button("Favourite") { store.send(.favourites(.toggle(photo.day))) }
/// ```
///
/// - `.start` opens the connection, and keeps it until `.stop` (the app
///   sends it at log out) or the task that sent `.start` ends; a new start
///   replaces a running one.
/// - Counts come from the server only: a toggle asks, and the count
///   changes when the server's answer arrives (every copy of the app sees
///   the same, in the same order). ``State/pending`` marks the photos
///   asked about meanwhile.
public struct Favourites: Reducer {
    /// The counts as last heard.
    public struct State: Equatable, Sendable {
        /// Each photo's count, by day (`yyyy-MM-dd`); a photo not here has none.
        public var counts: [String: Int] = [:]
        /// This member's favourites.
        public var mine: Set<String> = []
        /// Photos whose change was sent and not yet answered.
        public var pending: Set<String> = []
        /// Whether the connection is open (counts are live).
        public var isLive = false
        /// The last problem, for the status line; cleared by the next count.
        public var message: String?

        /// No counts yet.
        public init() {}

        /// The count of `photo` (0 when none).
        public func count(of photo: String) -> Int { counts[photo, default: 0] }
    }

    /// What the screens and the connection can do.
    @CasePathable
    public enum Action: Equatable, Sendable {
        /// Opens the live counts.
        case start
        /// Closes them.
        case stop
        /// What the connection reported.
        case event(FavouritesEvent)
        /// The connection ended; the message says why, if it failed.
        case ended(errorMessage: String?)
        /// Makes a photo this member's favourite, or no longer.
        case toggle(String)
        /// A change could not be sent.
        case toggleFailed(String, message: String)
    }

    enum CancelID { case connection }

    let client: FavouritesClient

    /// The feature on `client`.
    public init(client: FavouritesClient) {
        self.client = client
    }

    /// The feature's one reducer.
    public var body: some Reducer<State, Action> {
        Reduce(apply)
    }

    private func apply(_ state: inout State, _ action: Action) -> Effect<Action> {
        switch action {
        case .start:
            state.message = nil
            return .run(name: "live favourites") { [client] send in
                do {
                    for try await event in client.events() { await send(.event(event)) }
                    await send(.ended(errorMessage: nil))
                } catch is CancellationError {
                    return
                } catch {
                    await send(.ended(errorMessage: ErrorMessage.line("Live favourites stopped", error)))
                }
            }
            .cancellable(id: CancelID.connection, cancelInFlight: true)

        case .stop:
            state.isLive = false
            state.pending = []
            return .cancel(id: CancelID.connection)

        case .event(.connected):
            // The snapshot that follows is the whole truth.
            state.isLive = true
            state.counts = [:]
            state.mine = []
            state.pending = []
            return .none

        case let .event(.count(count)):
            state.counts[count.photo] = count.count > 0 ? count.count : nil
            if count.favourite { state.mine.insert(count.photo) } else { state.mine.remove(count.photo) }
            state.pending.remove(count.photo)
            state.message = nil
            return .none

        case let .event(.refused(message)):
            state.pending = []
            state.message = message
            return .none

        case let .ended(message):
            state.isLive = false
            state.pending = []
            state.message = message
            return .none

        case let .toggle(photo):
            guard !state.pending.contains(photo) else { return .none }
            state.pending.insert(photo)
            let favourite = !state.mine.contains(photo)
            return .run(name: "set favourite \(photo)") { [client] send in
                do {
                    try await client.set(photo, favourite)
                } catch is CancellationError {
                    return
                } catch {
                    await send(
                        .toggleFailed(photo, message: ErrorMessage.line("Could not change the favourite", error))
                    )
                }
            }

        case let .toggleFailed(photo, message):
            state.pending.remove(photo)
            state.message = message
            return .none
        }
    }
}
