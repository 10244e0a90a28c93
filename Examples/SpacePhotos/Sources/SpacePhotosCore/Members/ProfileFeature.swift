import BaselineStore
import Foundation

/// The Profile tab: the signed-in member and today's fact, loaded together.
///
/// ```swift
/// .task(id: store.id) { await store.send(.load).finish() }   // one profile per session
/// Button("Reload") { store.send(.load) }
/// ```
///
/// ``Action/load`` starts both requests at once (`async let`) and shows
/// them when both are in; either failing sets ``State/errorMessage`` and
/// keeps what showed before. ``AppFeature`` presents a new profile for each
/// session, so one member never sees the last one's, and dismissing it
/// cancels its requests.
public struct ProfileFeature: Reducer {
    /// What the Profile tab shows.
    public struct State: Equatable, Sendable, Identifiable {
        /// The session this profile belongs to.
        public let id: Int
        /// The member, once a load has succeeded; `nil` before.
        public var member: User?
        /// Today's fact, once a load has succeeded; `nil` before.
        public var fact: String?
        /// The number ``fact`` is about: the day of the month it was fetched on.
        public var factNumber: Int?
        /// Whether a load runs.
        public var isLoading: Bool
        /// What went wrong with the last load; `nil` while one runs or after a success.
        public var errorMessage: String?

        /// Session `id`'s profile, not loaded yet.
        public init(
            id: Int,
            member: User? = nil,
            fact: String? = nil,
            factNumber: Int? = nil,
            isLoading: Bool = false,
            errorMessage: String? = nil
        ) {
            self.id = id
            self.member = member
            self.fact = fact
            self.factNumber = factNumber
            self.isLoading = isLoading
            self.errorMessage = errorMessage
        }
    }

    /// What the Profile tab can do, and what its load answers.
    @CasePathable
    public enum Action: Equatable, Sendable {
        /// Fetches the member and today's fact at once (a load in flight is replaced).
        case load
        /// Both arrived.
        case loaded(User, fact: String, number: Int)
        /// Either failed; the message says why.
        case loadFailed(String)
    }

    @Dependency(\.session) var session
    let factClient: FactClient
    let today: @Sendable () -> Date

    enum CancelID { case load }

    /// A profile fetching the member from the session and the fact with
    /// `factClient`; `today` is the clock for the fact's number (fixed in tests).
    public init(factClient: FactClient, today: @escaping @Sendable () -> Date = { Date() }) {
        self.factClient = factClient
        self.today = today
    }

    /// The day of the month of `date`: the number today's fact is about.
    public static func factNumber(on date: Date) -> Int {
        Calendar(identifier: .gregorian).component(.day, from: date)
    }

    /// Starts a load and shows what it answers.
    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .load:
            state.isLoading = true
            state.errorMessage = nil
            let number = Self.factNumber(on: today())
            return .run(name: "load the profile") { [session, factClient] send in
                async let member = session.member()
                async let fact = factClient.fetch(number)
                let (loadedMember, loadedFact) = try await (member, fact)
                await send(.loaded(loadedMember, fact: loadedFact, number: number))
            } catch: { error, send in
                await send(.loadFailed(ErrorMessage.line("The member screen could not load", error)))
            }
            .cancellable(id: CancelID.load, cancelInFlight: true)

        case let .loaded(member, fact, number):
            state.isLoading = false
            state.member = member
            state.fact = fact
            state.factNumber = number
            return .none

        case let .loadFailed(message):
            state.isLoading = false
            state.errorMessage = message
            return .none
        }
    }
}
