import BaselineHTTP
import Foundation

/// The login endpoint, through Baseline's ``HTTPClient``.
///
/// ```swift
/// let api = AuthAPI(client: HTTPClient(baseURL: serverURL))
/// let token = try await api.logIn(for: User.ID(rawValue: "astro"), with: "stardust-42")
/// ```
public struct AuthAPI: Sendable {
    struct LoginBody: Codable, Sendable {
        var id: String
        var password: String
    }

    struct TokenBody: Codable, Sendable {
        var idToken: IDToken
        var expiresIn: Int
    }

    public let client: HTTPClient

    public init(client: HTTPClient) {
        self.client = client
    }

    /// Logs in and returns the ID token.
    ///
    /// - Throws: ``LoginError``, or `CancellationError` when the task is cancelled.
    public func logIn(for id: User.ID, with password: String) async throws -> IDToken {
        let request = Request<TokenBody>.post("/auth/login", body: .json(LoginBody(id: id.rawValue, password: password)))
        do {
            return try await client.send(request).value.idToken
        } catch let error as HTTPClientError {
            throw LoginError(error)
        }
    }
}
