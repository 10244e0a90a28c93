import Foundation
import Observation

/// The member screen: the logged-in member and today's fact, loaded together.
///
/// `load()` starts both requests at once (`async let`) and shows them when
/// both are in; if the calling task is cancelled (the screen went away), both
/// requests are cancelled.
@MainActor
@Observable
public final class MemberScreenModel {
    /// The logged-in member, once ``load()`` has succeeded; `nil` before.
    public private(set) var member: User?
    /// The fact about ``factNumber``, once ``load()`` has succeeded; `nil` before.
    public private(set) var fact: String?
    /// Whether ``load()`` runs.
    public private(set) var isLoading = false
    /// What went wrong with the last ``load()``; `nil` while one runs or after a success.
    public private(set) var errorMessage: String?

    @ObservationIgnored private let fetchMember: @Sendable () async throws -> User
    @ObservationIgnored private let factClient: FactClient
    @ObservationIgnored private let today: @Sendable () -> Date

    /// A screen fetching the member with `fetchMember` and the fact with
    /// `factClient`; `today` is the clock for ``factNumber`` (fixed in tests).
    public init(
        fetchMember: @escaping @Sendable () async throws -> User,
        factClient: FactClient,
        today: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.fetchMember = fetchMember
        self.factClient = factClient
        self.today = today
    }

    /// A model on the seed-002 API client.
    public convenience init(api: APIClient, factClient: FactClient) {
        self.init(fetchMember: { try await api.response(for: MemberAPI.getMember(using: api)) }, factClient: factClient)
    }

    /// The day of the month, today: the number today's fact is about.
    public var factNumber: Int {
        Calendar(identifier: .gregorian).component(.day, from: today())
    }

    /// Fetches the member and today's fact at once, and shows them when both
    /// are in; either failing sets ``errorMessage`` and keeps what showed before.
    public func load() async {
        isLoading = true
        defer { isLoading = false }
        errorMessage = nil
        async let member = fetchMember()
        async let fact = factClient.fetch(factNumber)
        do {
            let (loadedMember, loadedFact) = try await (member, fact)
            self.member = loadedMember
            self.fact = loadedFact
        } catch is CancellationError {
            return
        } catch {
            errorMessage = ErrorMessage.line("The member screen could not load", error)
        }
    }
}
