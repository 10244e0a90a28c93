import BaselineHTTP
import Foundation
import HTTPTypes

/// The member endpoints.
public struct MemberAPI: Sendable {
    /// The client the requests go through; ``me()`` needs one with
    /// `BearerAuthentication` middleware.
    public let client: HTTPClient

    /// The member endpoints on `client`.
    public init(client: HTTPClient) {
        self.client = client
    }

    /// The member `token` belongs to (`GET /members/me`).
    ///
    /// - Throws: ``HTTPClientError`` (401 when the token is missing, forged or
    ///   expired), or `CancellationError`.
    public func me(token: IDToken) async throws -> User {
        try await client.send(
            Request<User>.get("/members/me", headerFields: [.authorization: "Bearer \(token.rawValue)"])
        ).value
    }

    /// The signed-in member, with the token the client's
    /// ``BearerAuthentication`` middleware adds (and refreshes on a 401).
    public func me() async throws -> User {
        try await client.send(Request<User>.get("/members/me")).value
    }
}
