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
/// it is received (``HTTPBody/init(_:length:)``), so the client's size
/// limit stops an oversized transfer instead of buffering it. (A small body,
/// at most 64 KiB by its `Content-Length`, whose first bytes are all of it
/// comes with its head.) (Linux's
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

    /// Requests whose transfer has not ended yet (their body may still be
    /// arriving). For diagnostics and leak checks: it returns to zero when
    /// every request has completed or been cancelled.
    public var activeTransferCount: Int { delegate?.activeCount ?? 0 }

    /// Returns once no transfer is active: every request has completed or,
    /// when cancelled, has been torn down by URLSession (which happens a
    /// moment after the cancelled call returns).
    ///
    /// - Throws: `CancellationError` when the waiting task is cancelled
    ///   first, so a leak check under a time limit fails instead of hanging.
    public func waitUntilIdle() async throws {
        try await delegate?.waitUntilIdle()
    }

    /// The configuration used by ``init(configuration:)`` when none is given.
    ///
    /// A request fails with ``HTTPClientError/timedOut(after:)`` when the
    /// server sends nothing for `timeoutIntervalForRequest`: 60 seconds, as
    /// the AsyncHTTPClient transport's read timeout, so a stalled server
    /// cannot hold a call forever when the request sets no timeout of its
    /// own. The wait starts again with every byte that arrives.
    public static func defaultConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        // URLSession's own default, said here as the transports' shared one.
        configuration.timeoutIntervalForRequest = 60
        return configuration
    }

    /// The limit a timed-out task ran out: the session's
    /// `timeoutIntervalForRequest`, which is what URLSession applies to a
    /// request that sets no `timeoutInterval` of its own (the transport's
    /// never do). A value no `Duration` holds (infinite, say) counts as a
    /// very long time.
    static func readTimeout(of session: URLSession) -> Duration {
        let seconds = session.configuration.timeoutIntervalForRequest
        guard seconds > 0 else { return .zero }  // also NaN
        return .seconds(min(seconds, 1e15))
    }

    /// Sends `request` through URLSession and returns at the response head,
    /// with the body arriving as it is received (see the type's overview).
    public func send(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse, HTTPBody) {
        guard let urlRequest = Self.urlRequest(for: request) else {
            throw HTTPClientError.invalidRequest(reason: "\(request.method) \(request.path ?? "") has no absolute URL")
        }
        let upload: Upload
        switch body {
        case nil:
            upload = .none
        case let body? where body.fileURL != nil:
            upload = .file(body.fileURL ?? URL(fileURLWithPath: "/"))
        case let body?:
            // URLSession takes a body as Data or as a file; a stream is gathered first.
            upload = .data(try await body.collect(upTo: .max))
        }
        do {
            if let delegate {
                return try await streamed(urlRequest, upload: upload, through: delegate)
            }
            return try await buffered(urlRequest, upload: upload)
        } catch let error as URLError where error.code == .timedOut {
            throw HTTPClientError.timedOut(after: Self.readTimeout(of: session))
        }
    }

    /// How a request's body is handed to URLSession.
    private enum Upload {
        case none
        case data(Data)
        case file(URL)

        func makeTask(in session: URLSession, for request: URLRequest) -> URLSessionDataTask {
            switch self {
            case .none: session.dataTask(with: request)
            case let .data(data): session.uploadTask(with: request, from: data)
            case let .file(url): session.uploadTask(with: request, fromFile: url)
            }
        }
    }

    /// Returns at the response head; the body follows as it arrives.
    ///
    /// The delegate resumes the head's continuation, exactly once, since it
    /// takes it out of the task's route under its lock; so does a
    /// cancellation, which ends the call at once instead of waiting for
    /// URLSession to report the cancelled task.
    private func streamed(
        _ urlRequest: URLRequest,
        upload: Upload,
        through delegate: StreamingDelegate
    ) async throws -> (HTTPResponse, HTTPBody) {
        try Task.checkCancellation()
        let task = upload.makeTask(in: session, for: urlRequest)
        let id = task.taskIdentifier
        let channel = BodyChannel(
            unreadLimit: Self.unpausableUnreadLimit,
            flowControl: Self.flowControl(for: task),
            onCancel: { task.cancel() }
        )
        let progress = UploadProgressReporting.current
        let (head, length) = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (head: StreamingDelegate.HeadContinuation) in
                delegate.register(
                    id,
                    route: StreamingDelegate.Route(head: head, body: channel, uploadProgress: progress)
                )
                task.resume()
                // A task is cancelled only once it has been resumed: one
                // cancelled before would never be reported, and its route
                // would stay. A cancellation that came before this point is
                // carried out here.
                if delegate.markStarted(id) || Task.isCancelled {
                    delegate.failHead(of: id, with: CancellationError())
                    task.cancel()
                }
            }
        } onCancel: {
            if delegate.requestCancellation(of: id) { task.cancel() }
        }
        return (head, HTTPBody(channel: channel, length: length))
    }

    /// Responses of at most this many bytes, by their `Content-Length`, are
    /// held whole when their first bytes are the whole body; longer ones,
    /// and those of unknown length (event streams), always stream as they arrive.
    static let wholeBodyLimit = 64 * 1024

    /// How many bytes may wait for a body's reader where the transfer cannot
    /// be paused (Linux): past this, the transfer stops with ``ReaderFellBehind``.
    /// Far above what a reader that keeps up leaves waiting (a download
    /// written to a file in a debug build, on a loaded machine, fell 32 MiB
    /// behind here), far below a body that would exhaust memory.
    static let unpausableUnreadLimit = 256 * 1024 * 1024

    /// Pauses the transfer while the reader is behind. Apple's URLSession
    /// suspends a task's reads. FoundationNetworking has nothing that does:
    /// its `suspend()` drops the connection and `resume()` asks for the whole
    /// body again, so there the reader has to keep up (see ``ReaderFellBehind``).
    private static func flowControl(for task: URLSessionTask) -> (@Sendable (Bool) -> Void)? {
        #if canImport(FoundationNetworking)
        return nil
        #else
        return { pause in pause ? task.suspend() : task.resume() }
        #endif
    }

    /// Receives the whole response with a completion handler.
    private func buffered(_ urlRequest: URLRequest, upload: Upload) async throws -> (HTTPResponse, HTTPBody) {
        let session = self.session
        let (head, data): (HTTPResponse, Data) = try await withCallback { completion in
            let handler: @Sendable (Data?, URLResponse?, (any Error)?) -> Void = { data, response, error in
                if let error {
                    completion.resume(throwing: error)
                } else if let response = (response as? HTTPURLResponse).flatMap(Self.responseHead(of:)) {
                    completion.resume(returning: (Self.inflatedHead(response).head, data ?? Data()))
                } else {
                    completion.resume(throwing: URLError(.badServerResponse))
                }
            }
            let task: URLSessionTask =
                switch upload {
                case .none: session.dataTask(with: urlRequest, completionHandler: handler)
                case let .data(data): session.uploadTask(with: urlRequest, from: data, completionHandler: handler)
                case let .file(url): session.uploadTask(with: urlRequest, fromFile: url, completionHandler: handler)
                }
            task.resume()
            return CallbackCancellation { task.cancel() }
        }
        return (head, HTTPBody(data))
    }
}

extension URLSessionTransport {
    /// The head of a response URLSession has inflated, as the client's own
    /// decompression would leave it: without `Content-Encoding` and the
    /// encoded `Content-Length`. URLSession decodes gzip and deflate on
    /// every platform (FoundationNetworking through libcurl), and Brotli on
    /// Apple platforms; it keeps the fields, which would otherwise make the
    /// body look compressed still.
    static func inflatedHead(_ head: HTTPResponse) -> (head: HTTPResponse, decoded: Bool) {
        switch ContentCoding(head.headerFields) {
        case .gzip, .deflate:
            return (head.withContentDecoded(), true)
        case .other("br"):
            #if canImport(Darwin)
            return (head.withContentDecoded(), true)
            #else
            return (head, false)
            #endif
        case .identity, .other:
            return (head, false)
        }
    }
}

/// The session delegate: routes each task's head, body chunks and upload
/// progress to the call that started it, and declines redirects (the
/// client's redirect policy decides).
private final class StreamingDelegate: NSObject, URLSessionDataDelegate, Sendable {
    typealias HeadContinuation = CheckedContinuation<(HTTPResponse, Int?), any Error>

    struct Route: Sendable {
        var head: HeadContinuation?
        /// A small body's head, kept while its first bytes come (see ``URLSessionTransport/wholeBodyLimit``).
        var heldHead: (head: HTTPResponse, length: Int)?
        /// Whether the first bytes held the whole body: the head then waits for the end, which follows at once.
        var heldWhole = false
        var body: BodyChannel
        var uploadProgress: (@Sendable (TransferProgress) -> Void)?
        /// Whether the task has been resumed, so that it may be cancelled.
        var started = false
        /// A cancellation that came before the task was resumed.
        var cancelRequested = false
    }

    private let routes = LockedValue<[Int: Route]>([:])
    private let idleWaiters = IdleWaiters()

    var activeCount: Int { routes.withLock { $0.count } }

    func waitUntilIdle() async throws {
        try await idleWaiters.wait { routes.withLock { $0.isEmpty } }
    }

    func register(_ task: Int, route: Route) {
        routes.withLock { $0[task] = route }
    }

    /// Records that `task` has been resumed; true when a cancellation came before.
    func markStarted(_ task: Int) -> Bool {
        routes.withLock { routes in
            guard var route = routes[task] else { return false }
            route.started = true
            routes[task] = route
            return route.cancelRequested
        }
    }

    /// Ends the call waiting for `task`'s head with `CancellationError`; true
    /// when the task itself is to be cancelled now (it has been resumed; if
    /// not, ``markStarted(_:)`` reports the request).
    func requestCancellation(of task: Int) -> Bool {
        let (head, cancelNow) = routes.withLock { routes -> (HeadContinuation?, Bool) in
            guard var route = routes[task] else { return (nil, false) }
            let head = route.head
            route.head = nil
            route.cancelRequested = true
            routes[task] = route
            return (head, route.started)
        }
        head?.resume(throwing: CancellationError())
        return cancelNow
    }

    /// Ends the call waiting for `task`'s head with `error`, unless the head came first.
    func failHead(of task: Int, with error: any Error) {
        takeHead(of: task)?.resume(throwing: error)
    }

    /// The continuation waiting for `task`'s head, taken so that it is resumed once.
    private func takeHead(of task: Int) -> HeadContinuation? {
        routes.withLock { routes in
            // Read, then written back: `routes[task]?.head = nil` goes through
            // the dictionary's `modify` accessor, which allocates.
            guard var route = routes[task], let head = route.head else { return nil }
            route.head = nil
            routes[task] = route
            return head
        }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        guard let report = routes.withLock({ $0[task.taskIdentifier]?.uploadProgress }) else { return }
        report(
            TransferProgress(
                completedBytes: totalBytesSent,
                totalBytes: totalBytesExpectedToSend >= 0 ? totalBytesExpectedToSend : nil
            )
        )
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let id = dataTask.taskIdentifier
        guard let converted = (response as? HTTPURLResponse).flatMap(URLSessionTransport.responseHead(of:)) else {
            failHead(of: id, with: URLError(.badServerResponse))
            completionHandler(.cancel)
            return
        }
        let (head, decoded) = URLSessionTransport.inflatedHead(converted)
        // The expected length is the encoded one when URLSession inflates.
        // Int(exactly:): a length beyond a 32-bit Int is none.
        let length =
            !decoded && response.expectedContentLength >= 0 ? Int(exactly: response.expectedContentLength) : nil
        if let length, length <= URLSessionTransport.wholeBodyLimit {
            // Held for the first bytes: when they are the whole body, the head
            // is handed over with it at the end, and the reader never waits.
            routes.withLock { routes in
                guard var route = routes[id] else { return }
                route.heldHead = (head, length)
                routes[id] = route
            }
        } else {
            takeHead(of: id)?.resume(returning: (head, length))
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let id = dataTask.taskIdentifier
        let (body, release) = routes.withLock {
            routes -> (BodyChannel?, (continuation: HeadContinuation, head: (HTTPResponse, Int?))?) in
            guard var route = routes[id] else { return (nil, nil) }
            guard let held = route.heldHead, !route.heldWhole else { return (route.body, nil) }
            // More than the length: URLSession inflated a coding the head did
            // not say it would; nothing is known, so it streams.
            if data.count == held.length {
                route.heldWhole = true
                routes[id] = route
                return (route.body, nil)
            }
            // Only part of it: the rest streams, and the head goes now.
            let continuation = route.head
            route.head = nil
            route.heldHead = nil
            routes[id] = route
            return (route.body, continuation.map { ($0, (held.head, held.length)) })
        }
        body?.yield(data)
        if let release { release.continuation.resume(returning: release.head) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (removed, idle) = routes.withLock { routes in
            (routes.removeValue(forKey: task.taskIdentifier), routes.isEmpty)
        }
        if idle { idleWaiters.resumeAll() }
        guard let route = removed else { return }
        if let error {
            let cancelled = (error as? URLError)?.code == .cancelled
            let timedOut = (error as? URLError)?.code == .timedOut
            route.body.finish(
                throwing: cancelled
                    ? CancellationError()
                    : timedOut
                        ? HTTPClientError.timedOut(after: URLSessionTransport.readTimeout(of: session))
                        : HTTPClientError.transport(underlying: error)
            )
            // A held head is delivered: its body reports the failure, as a streamed one would.
            if let held = route.heldHead {
                route.head?.resume(returning: (held.head, held.length))
            } else {
                route.head?.resume(throwing: error)
            }
        } else {
            route.body.finish()
            if let held = route.heldHead {
                route.head?.resume(returning: (held.head, held.length))
            } else {
                route.head?.resume(throwing: URLError(.badServerResponse))
            }
        }
    }
}
