import BaselineConcurrency
import Foundation
import HTTPTypes
import HTTPTypesFoundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport on `URLSession`, on Apple platforms and on Linux
/// (FoundationNetworking).
///
/// Each request runs as a data task bridged with ``withCallback(isolation:logger:fileID:line:_:)``,
/// so cancelling the calling task cancels the data task and throws
/// `CancellationError`. (FoundationNetworking's own async `data(for:)` does not
/// reliably react to cancellation, and is missing on older toolchains.)
///
/// The transport owns the session it creates and invalidates it when released;
/// a session passed in stays the caller's.
public final class URLSessionTransport: HTTPTransport {
    /// The session requests run on.
    public let session: URLSession
    private let ownsSession: Bool

    /// A transport shared by clients created without one, so that they share
    /// one session and its connection pool.
    public static let shared = URLSessionTransport()

    /// A transport on a new session made from `configuration`.
    ///
    /// The default configuration is ephemeral, with URL caching off: caching
    /// belongs to the client's middleware, where it can be seen and tested.
    public init(configuration: URLSessionConfiguration = URLSessionTransport.defaultConfiguration()) {
        self.session = URLSession(configuration: configuration)
        self.ownsSession = true
    }

    /// A transport on an existing session, which the caller keeps owning.
    public init(session: URLSession) {
        self.session = session
        self.ownsSession = false
    }

    deinit {
        if ownsSession { session.finishTasksAndInvalidate() }
    }

    /// The configuration used by ``init(configuration:)`` when none is given.
    public static func defaultConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return configuration
    }

    public func send(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse, HTTPBody) {
        guard var urlRequest = URLRequest(httpRequest: request) else {
            throw HTTPClientError.invalidRequest(reason: "\(request.method) \(request.path ?? "") has no absolute URL")
        }
        if let body {
            urlRequest.httpBody = try await body.collect(upTo: .max)
        }
        let session = self.session
        let (head, data): (HTTPResponse, Data) = try await withCallback { completion in
            let task = session.dataTask(with: urlRequest) { data, response, error in
                if let error {
                    completion.resume(throwing: error)
                } else if let response = (response as? HTTPURLResponse)?.httpResponse {
                    completion.resume(returning: (response, data ?? Data()))
                } else {
                    completion.resume(throwing: URLError(.badServerResponse))
                }
            }
            task.resume()
            return CallbackCancellation { task.cancel() }
        }
        return (head, HTTPBody(data))
    }
}
