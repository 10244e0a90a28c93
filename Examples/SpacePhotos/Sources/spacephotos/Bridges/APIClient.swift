import BaselineCombine
import BaselineHTTP
import BaselinePersistence
import SpacePhotosCore

/// An API client in the Combine style: requests come as builders whose
/// `executeWithIDToken()` returns a Combine publisher, and `response(for:)`
/// wraps that publisher for `async`/`await` — here with Baseline's bridge
/// (`firstValue()`), which resumes exactly once and cancels the subscription
/// when the task is cancelled.
///
/// ```swift
/// let api = APIClient(client: httpClient, tokenStore: tokenStore)
/// let member = try await api.response(for: MemberAPI.getMember(using: api))
/// ```
public struct APIClient: Sendable {
    /// The client the requests go through.
    public let client: HTTPClient
    /// Where the ID token sent as the bearer token is read, on each request.
    public let tokenStore: IDTokenStore

    /// A client sending through `client` with the ID token in `tokenStore`.
    public init(client: HTTPClient, tokenStore: IDTokenStore) {
        self.client = client
        self.tokenStore = tokenStore
    }

    /// A builder for `request`, bound to this client.
    public func builder<Response: Decodable & Sendable>(for request: Request<Response>) -> RequestBuilder<Response> {
        RequestBuilder(request: request, client: self)
    }

    /// The builder's response, awaited.
    ///
    /// - Throws: ``APIClientError``, or `CancellationError`.
    public func response<Response: Decodable & Sendable>(for builder: RequestBuilder<Response>) async throws -> Response
    {
        try await builder.executeWithIDToken().firstValue()
    }
}

/// One request of the ``APIClient``, ready to run.
public struct RequestBuilder<Response: Decodable & Sendable>: Sendable {
    /// The request to send; the authorization header is added when it runs.
    public let request: Request<Response>
    let client: APIClient

    /// Runs the request with the stored ID token as its bearer token, as a
    /// publisher (the pre-concurrency shape this client keeps).
    public func executeWithIDToken() -> AnyPublisher<Response, APIClientError> {
        TaskPublisher { [request, client] in
            guard let token = try await client.tokenStore.load() else { throw APIClientError.notLoggedIn }
            return try await client.client.send(request.header(.authorization, "Bearer \(token.rawValue)")).value
        }
        .mapError(APIClientError.init)
        .eraseToAnyPublisher()
    }
}

/// What can go wrong with an ``APIClient`` request.
public enum APIClientError: Error, Sendable, CustomStringConvertible {
    /// No ID token is stored.
    case notLoggedIn
    /// The token could not be read.
    case tokenStore(SecureValueStoreError)
    /// The request failed.
    case http(HTTPClientError)
    /// Anything else (cancellation is not: it stays `CancellationError`).
    case other(String)

    init(_ error: any Error) {
        switch error {
        case let error as APIClientError: self = error
        case let error as SecureValueStoreError: self = .tokenStore(error)
        case let error as HTTPClientError: self = .http(error)
        default: self = .other(ErrorMessage.line(for: error))
        }
    }

    /// One line for the user; a token store failure's details are left out.
    public var description: String {
        switch self {
        case .notLoggedIn: "Not logged in."
        case .tokenStore: "The stored login could not be read."
        case let .http(error): error.description
        case let .other(message): message
        }
    }
}

extension MemberAPI {
    /// `GET /members/me`, as a builder.
    public static func getMember(using api: APIClient) -> RequestBuilder<User> {
        api.builder(for: .get("/members/me"))
    }
}
