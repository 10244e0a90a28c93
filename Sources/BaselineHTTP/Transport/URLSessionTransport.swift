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
/// On a session it creates, the transport is the session's delegate: it
/// returns as soon as the response head arrives, and hands the body over as
/// it is received (``HTTPBody/init(chunks:length:)``), so the client's size
/// limit stops an oversized transfer instead of buffering it. (Linux's
/// FoundationNetworking has no `bytes(for:)`; the data delegate is what both
/// platforms share.) On a session passed in, whose delegate is the caller's,
/// each response is received whole.
///
/// Cancelling the calling task cancels the data task and throws
/// `CancellationError`; so does abandoning the body before its end.
///
/// The transport owns the session it creates and invalidates it when released;
/// a session passed in stays the caller's.
public final class URLSessionTransport: HTTPTransport {
    /// A transport shared by clients created without one, so that they share
    /// one session and its connection pool.
    public static let shared = URLSessionTransport()

    /// The session requests run on.
    public let session: URLSession
    private let delegate: StreamingDelegate?

    /// A transport on a new session made from `configuration`.
    ///
    /// The default configuration is ephemeral, with URL caching off: caching
    /// belongs to the client's middleware, where it can be seen and tested.
    public init(configuration: URLSessionConfiguration = URLSessionTransport.defaultConfiguration()) {
        let delegate = StreamingDelegate()
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        self.delegate = delegate
    }

    /// A transport on an existing session, which the caller keeps owning.
    public init(session: URLSession) {
        self.session = session
        self.delegate = nil
    }

    deinit {
        if delegate != nil { session.finishTasksAndInvalidate() }
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
        if let delegate {
            return try await streamed(urlRequest, through: delegate)
        }
        return try await buffered(urlRequest)
    }

    /// Returns at the response head; the body follows as it arrives.
    private func streamed(_ urlRequest: URLRequest, through delegate: StreamingDelegate) async throws -> (HTTPResponse, HTTPBody) {
        let session = self.session
        let (chunks, sink) = AsyncThrowingStream.makeStream(of: Data.self, throwing: (any Error).self)
        let (head, length) = try await withCallback { (completion: CallbackCompletion<(HTTPResponse, Int?)>) in
            let task = session.dataTask(with: urlRequest)
            delegate.register(task.taskIdentifier, head: completion, body: sink)
            sink.onTermination = { termination in
                // The reader stopped before the end: stop receiving.
                if case .cancelled = termination { task.cancel() }
            }
            task.resume()
            return CallbackCancellation { task.cancel() }
        }
        return (head, HTTPBody(chunks: chunks, length: length))
    }

    /// Receives the whole response with a completion handler.
    private func buffered(_ urlRequest: URLRequest) async throws -> (HTTPResponse, HTTPBody) {
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

/// The session delegate: routes each task's head and body chunks to the call
/// that started it.
private final class StreamingDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct Route: Sendable {
        var head: CallbackCompletion<(HTTPResponse, Int?)>?
        var body: AsyncThrowingStream<Data, any Error>.Continuation
    }

    private let routes = LockedValue<[Int: Route]>([:])

    func register(_ task: Int, head: CallbackCompletion<(HTTPResponse, Int?)>, body: AsyncThrowingStream<Data, any Error>.Continuation) {
        routes.withLock { $0[task] = Route(head: head, body: body) }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let head = routes.withLock { routes -> CallbackCompletion<(HTTPResponse, Int?)>? in
            defer { routes[dataTask.taskIdentifier]?.head = nil }
            return routes[dataTask.taskIdentifier]?.head
        }
        guard let converted = (response as? HTTPURLResponse)?.httpResponse else {
            head?.resume(throwing: URLError(.badServerResponse))
            completionHandler(.cancel)
            return
        }
        let length = response.expectedContentLength >= 0 ? Int(response.expectedContentLength) : nil
        head?.resume(returning: (converted, length))
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let body = routes.withLock { $0[dataTask.taskIdentifier]?.body }
        body?.yield(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let route = routes.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let error {
            route.head?.resume(throwing: error)
            let cancelled = (error as? URLError)?.code == .cancelled
            route.body.finish(throwing: cancelled ? CancellationError() : HTTPClientError.transport(underlying: error))
        } else {
            route.head?.resume(throwing: URLError(.badServerResponse))
            route.body.finish()
        }
    }
}
