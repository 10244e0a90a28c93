import BaselineHTTP
import BaselineOpenAPI
import Foundation
import HTTPTypes
import SpacePhotosAPI

/// The member endpoints.
public struct MemberAPI: Sendable {
    /// The client the requests go through; ``me()`` needs one with
    /// `BearerAuthentication` middleware.
    public let client: HTTPClient
    /// The generated client, on ``client``.
    let api: Client

    /// The member endpoints on `client`.
    public init(client: HTTPClient) {
        self.client = client
        self.api = Client(on: client)
    }

    /// The member `token` belongs to (`GET /members/me`).
    ///
    /// - Throws: ``HTTPClientError`` (401 when the token is missing, forged or
    ///   expired), or `CancellationError`.
    public func me(token: IDToken) async throws -> User {
        // Hand-written: the generated operation has no parameter for the
        // token (the document's security scheme is not an input), so it
        // would need a middleware, or a client, per token.
        try await client.send(
            Request<User>.get("/members/me", headerFields: [.authorization: "Bearer \(token.rawValue)"])
        ).value
    }

    /// The signed-in member, with the token the client's
    /// ``BearerAuthentication`` middleware adds (and refreshes on a 401).
    ///
    /// - Throws: ``HTTPClientError`` (a 401 when the refreshed token is
    ///   refused too), or `CancellationError`.
    public func me() async throws -> User {
        try await withHTTPClientErrors { try User(await api.me().ok.body.json) }
    }
}
