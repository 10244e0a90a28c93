import BaselineConcurrency
import Foundation
import HTTPTypes
import SpacePhotosCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The login endpoint as pre-concurrency code wrote it: a completion handler
/// over a `URLSession` data task, the shape of login APIs written before
/// Swift concurrency.
///
/// Kept to show the bridge: ``logIn(for:with:)`` turns it into an `async`
/// function with ``withCallback(isolation:logger:fileID:line:_:)``, which
/// resumes once, and cancels the data task when the caller is cancelled.
public struct LegacyAuthAPI: Sendable {
    struct LoginBody: Encodable {
        var id: String
        var password: String
    }

    struct TokenBody: Decodable {
        var idToken: IDToken
    }

    /// The server's address; requests go to `auth/login` under it.
    public let baseURL: URL
    /// The session whose data tasks send the requests.
    public let session: URLSession

    /// An API for the server at `baseURL`, sending through `session`.
    public init(baseURL: URL, session: URLSession = .shared) {
        self.baseURL = baseURL
        self.session = session
    }

    /// Starts a login and calls `completion` once, on a session queue.
    /// Returns a handle that cancels it.
    @discardableResult
    public func logIn(
        for id: User.ID,
        with password: String,
        completion: @escaping @Sendable (Result<IDToken, any Error>) -> Void
    ) -> LegacyRequest {
        var request = URLRequest(url: baseURL.appendingPathComponent("auth/login"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        do {
            request.httpBody = try JSONEncoder().encode(LoginBody(id: id.rawValue, password: password))
        } catch {
            completion(.failure(error))
            return LegacyRequest {}
        }
        let task = session.dataTask(with: request) { data, response, error in
            if let error {
                let cancelled = (error as? URLError)?.code == .cancelled
                completion(
                    .failure(
                        cancelled
                            ? CancellationError() : LoginError.networkUnreachable(reason: ErrorMessage.line(for: error))
                    )
                )
                return
            }
            guard let response = response as? HTTPURLResponse else {
                completion(.failure(LoginError.server(status: nil)))
                return
            }
            guard response.statusCode == 200 else {
                let retryAfter = response.value(forHTTPHeaderField: "Retry-After")
                completion(
                    .failure(
                        LoginError(
                            status: HTTPResponse.Status(code: response.statusCode),
                            headerFields: retryAfter.map { [.retryAfter: $0] } ?? [:]
                        )
                    )
                )
                return
            }
            guard let data, let body = try? JSONDecoder().decode(TokenBody.self, from: data) else {
                completion(.failure(LoginError.server(status: response.statusCode)))
                return
            }
            completion(.success(body.idToken))
        }
        task.resume()
        return LegacyRequest { task.cancel() }
    }

    /// The same login, `async`, bridged from the callback version.
    public func logIn(for id: User.ID, with password: String) async throws -> IDToken {
        try await withCallback { completion in
            let request = logIn(for: id, with: password, completion: completion.resume(with:))
            return CallbackCancellation { request.cancel() }
        }
    }
}

/// A started legacy request; `cancel()` stops it.
public struct LegacyRequest: Sendable {
    private let onCancel: @Sendable () -> Void

    init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = onCancel
    }

    /// Cancels the data task; its completion then reports `CancellationError`.
    /// Cancelling a finished request does nothing.
    public func cancel() {
        onCancel()
    }
}
