import AsyncHTTPClient
import BaselineConcurrency
import BaselineHTTP
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1

/// A transport on AsyncHTTPClient (SwiftNIO): a connection pool that grows
/// with the concurrency it sees, real back-pressure on response bodies, and
/// no Foundation networking — the fast choice on Linux servers and tools.
///
/// ```swift
/// let transport = AsyncHTTPClientTransport()
/// let client = BaselineHTTP.HTTPClient(baseURL: apiURL, transport: transport)
/// ...
/// try await transport.shutdown()     // before the transport is released
/// ```
///
/// Lifetime is explicit, as in SwiftNIO: a transport that creates its
/// AsyncHTTPClient must be shut down with ``shutdown()`` when done. One made
/// with ``init(client:)`` uses a client the caller owns and shuts down.
///
/// The transport follows no redirects and does not decompress: the Baseline
/// client's redirect policy and its decompression
/// (`HTTPClient.Configuration.decompressesResponses`) do that, the same on
/// every transport. Keep AsyncHTTPClient's own `decompression` off in a
/// client you pass to ``init(client:)``, or bodies would be inflated twice. Task cancellation cancels the request (and a body being read)
/// and surfaces as `CancellationError`.
///
/// A request fails with `HTTPClientError.timedOut(after:)` when the server
/// sends nothing for the read timeout: 60 seconds by default, as
/// URLSession's `timeoutIntervalForRequest`, so a stalled server cannot hold
/// a call forever when the request sets no timeout of its own. The wait
/// starts once the request is sent, and starts again with every byte that
/// arrives, so a long download or event stream that keeps sending is never
/// cut. Set it with `readTimeout`; `nil` waits without limit.
public final class AsyncHTTPClientTransport: HTTPTransport {
    /// The AsyncHTTPClient requests run on.
    public let client: AsyncHTTPClient.HTTPClient
    private let ownsClient: Bool
    /// The client's read timeout, when the transport made the client: what
    /// a `readTimeout` error reports as `HTTPClientError.timedOut(after:)`.
    private let readTimeout: TimeAmount?
    /// The configuration the transport made its client with, nil for a
    /// client passed in (AsyncHTTPClient does not give it back): WebSocket
    /// connections, made outside the client's pool, take their TLS
    /// settings and timeouts from it.
    let ownConfiguration: AsyncHTTPClient.HTTPClient.Configuration?

    /// A transport with its own AsyncHTTPClient on the shared event loop group.
    ///
    /// - Parameters:
    ///   - maximumConnectionsPerHost: how many HTTP/1.1 connections
    ///     to one host the pool may open. Connections open on demand, so the
    ///     pool grows to the concurrency the transport sees, up to this bound
    ///     (AsyncHTTPClient's own default is 8, which halves throughput at 64
    ///     concurrent requests).
    ///   - idleTimeout: how long an unused connection stays in the pool.
    ///   - readTimeout: how long a request waits for the server's next bytes
    ///     (the head, or more of the body) before it fails with
    ///     `HTTPClientError.timedOut(after:)`; `nil` waits without limit.
    public convenience init(
        maximumConnectionsPerHost: Int = 128,
        idleTimeout: TimeAmount = .seconds(60),
        readTimeout: TimeAmount? = AsyncHTTPClientTransport.defaultReadTimeout
    ) {
        self.init(
            configuration: Self.configuration(
                maximumConnectionsPerHost: maximumConnectionsPerHost,
                idleTimeout: idleTimeout,
                readTimeout: readTimeout
            )
        )
    }

    /// The read timeout of ``init(maximumConnectionsPerHost:idleTimeout:readTimeout:)``
    /// and ``configuration(maximumConnectionsPerHost:idleTimeout:readTimeout:)``:
    /// 60 seconds without a byte from the server, URLSession's default too.
    public static let defaultReadTimeout: TimeAmount = .seconds(60)

    /// A transport with its own AsyncHTTPClient made from `configuration`.
    /// Redirects are turned off whatever it says: the Baseline client follows them.
    ///
    /// Its `timeout.read` is the read timeout as given: AsyncHTTPClient's own
    /// default is none. Start from
    /// ``configuration(maximumConnectionsPerHost:idleTimeout:readTimeout:)``
    /// to keep the transport's defaults, 60 seconds among them.
    public init(configuration: AsyncHTTPClient.HTTPClient.Configuration) {
        var configuration = configuration
        configuration.redirectConfiguration = .disallow
        client = AsyncHTTPClient.HTTPClient(
            eventLoopGroup: AsyncHTTPClient.HTTPClient.defaultEventLoopGroup,
            configuration: configuration
        )
        ownsClient = true
        readTimeout = configuration.timeout.read
        ownConfiguration = configuration
    }

    /// A transport on a client the caller owns (and shuts down). Turn its
    /// redirects off (`.disallow`) for the Baseline redirect policy to apply.
    /// Its read timeout is its configuration's (AsyncHTTPClient's own
    /// default is none); as the transport cannot read it back, a read that
    /// times out fails with a ``TransportFailure`` of reason `timedOut`
    /// rather than `HTTPClientError.timedOut(after:)`.
    public init(client: AsyncHTTPClient.HTTPClient) {
        self.client = client
        ownsClient = false
        readTimeout = nil
        ownConfiguration = nil
    }

    /// The configuration ``init(maximumConnectionsPerHost:idleTimeout:readTimeout:)`` uses.
    public static func configuration(
        maximumConnectionsPerHost: Int = 128,
        idleTimeout: TimeAmount = .seconds(60),
        readTimeout: TimeAmount? = AsyncHTTPClientTransport.defaultReadTimeout
    ) -> AsyncHTTPClient.HTTPClient.Configuration {
        var configuration = AsyncHTTPClient.HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            decompression: .disabled
        )
        // AsyncHTTPClient waits without limit by default: a server that
        // stops sending would hold a request that sets no timeout forever.
        configuration.timeout.read = readTimeout
        configuration.connectionPool = .init(
            idleTimeout: idleTimeout,
            concurrentHTTP1ConnectionsPerHostSoftLimit: maximumConnectionsPerHost
        )
        // A refused connection fails now, not after ten seconds of retries
        // against the connect timeout: retrying is the client's retry
        // middleware's decision.
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    /// Shuts down a client this transport created, closing its connections.
    /// Does nothing to a client passed in.
    public func shutdown() async throws {
        if ownsClient { try await client.shutdown() }
    }

    /// Sends `request` through AsyncHTTPClient and returns the response head
    /// with a body that streams as it arrives, or, for a small body of known
    /// length (at most 64 KiB) whose first bytes are all of it, with that
    /// body held whole. Connection failures throw ``TransportFailure``;
    /// cancelling the task cancels the request.
    public func send(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse, HTTPBody) {
        guard let scheme = request.scheme, let authority = request.authority, let path = request.path else {
            throw HTTPClientError.invalidRequest(reason: "\(request.method) \(request.path ?? "") has no absolute URL")
        }
        // The URL's text straight from the request's parts: no `URL` to parse
        // and print again, as AsyncHTTPClient parses the string itself. One
        // buffer, sized up front (each `+` would make a string of its own).
        var url = String()
        url.reserveCapacity(scheme.utf8.count + 3 + authority.utf8.count + path.utf8.count)
        url += scheme
        url += "://"
        url += authority
        url += path
        var outgoing = HTTPClientRequest(url: url)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        outgoing.headers.reserveCapacity(request.headerFields.count)
        for field in request.headerFields {
            outgoing.headers.add(name: field.name.rawName, value: field.value)
        }
        if let body {
            outgoing.body = Self.requestBody(body, progress: UploadProgressReporting.current)
        }
        let response: HTTPClientResponse
        let mapping = TransportErrorMapping(server: authority, readTimeout: readTimeout)
        do {
            // No deadline here: the client's timeout bounds the whole call,
            // and the read timeout a server that stops sending.
            response = try await client.execute(outgoing, deadline: .distantFuture)
        } catch {
            throw mapping.map(error)
        }

        var fields = HTTPFields()
        fields.reserveCapacity(response.headers.count)
        for header in response.headers {
            guard let name = HTTPField.Name(header.name) else { continue }
            fields.append(HTTPField(name: name, value: header.value))
        }
        // NIO's parser reads three digits; HTTPResponse.Status traps on anything else.
        guard response.status.code <= 999 else {
            throw TransportFailure(
                .malformedResponse(detail: "status code \(response.status.code)"),
                server: authority,
                underlying: URLError(.badServerResponse)
            )
        }
        let head = HTTPResponse(
            sharingStatus: Int(response.status.code),
            reasonPhrase: response.status.reasonPhrase,
            headerFields: fields
        )
        let length = Self.contentLength(response.headers)
        // Not with a `Content-Encoding`: a client passed in may inflate, and
        // the length would then be the compressed one.
        if let length, length <= Self.wholeBodyLimit, Self.hasBody(request.method, response.status.code),
            !response.headers.contains(name: "content-encoding")
        {
            return (head, try await Self.smallBody(of: response, length: length, mapping: mapping))
        }
        return (head, HTTPBody(ErrorMappingBody(base: Self.data(response.body), mapping: mapping), length: length))
    }

    /// The body's declared length: a `Content-Length` of ASCII digits that
    /// fits an `Int`, or nil (`Int(_:)` alone would take `-1` or `+5`). NIO's
    /// parser frames the body by the same field and refuses a malformed one.
    static func contentLength(_ headers: HTTPHeaders) -> Int? {
        guard let text = headers.first(name: "content-length"), !text.isEmpty,
            text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return Int(text)
    }

    /// A small body of known length: held whole when it came with its head
    /// (the usual case), with none of a stream's machinery; otherwise the
    /// part that came first and then the rest as it arrives.
    private static func smallBody(
        of response: HTTPClientResponse,
        length: Int,
        mapping: TransportErrorMapping
    ) async throws -> HTTPBody {
        var iterator = response.body.makeAsyncIterator()
        let first: ByteBuffer?
        do {
            first = try await iterator.next()
        } catch {
            let failure = mapping.bodyError(error)
            if failure is CancellationError { throw failure }
            // The head stands (a 503 is still a 503); its body reports the failure, as a streamed one would.
            return HTTPBody(AsyncThrowingStream<Data, any Error> { $0.finish(throwing: failure) }, length: length)
        }
        do {
            guard var whole = first else { return HTTPBody(Data()) }
            guard whole.readableBytes >= length else {
                let rest = ContinuedBody(first: whole, rest: .init(iterator))
                return HTTPBody(ErrorMappingBody(base: data(rest), mapping: mapping), length: length)
            }
            // The end follows the last byte at once.
            while var more = try await iterator.next() { whole.writeBuffer(&more) }
            return HTTPBody(whole.withUnsafeReadableBytes { Data($0) })
        } catch {
            throw mapping.bodyError(error)
        }
    }

    /// Each buffer copied into `Data` through a raw buffer pointer:
    /// `Data(buffer.readableBytesView)` would first box the view to look
    /// for contiguous storage.
    private static func data<Buffers: AsyncSequence & Sendable>(
        _ buffers: Buffers
    ) -> AsyncThrowingMapSequence<Buffers, Data> where Buffers.Element == ByteBuffer {
        buffers.map { buffer in buffer.withUnsafeReadableBytes { Data($0) } }
    }

    /// Bodies of at most this many bytes, by their `Content-Length`, are
    /// held whole when they arrive with their head; longer ones, and those
    /// of unknown length (event streams), always stream as they arrive.
    static let wholeBodyLimit = 64 * 1024

    /// Whether a response to `method` with status `code` carries a body
    /// (a `HEAD` response and a 1xx, 204 or 304 declare a length but have none).
    private static func hasBody(_ method: HTTPRequest.Method, _ code: UInt) -> Bool {
        method != .head && code >= 200 && code != 204 && code != 304
    }

    /// The request body as AsyncHTTPClient takes it, counting bytes as the
    /// connection pulls them when someone watches the upload.
    private static func requestBody(
        _ body: HTTPBody,
        progress: (@Sendable (TransferProgress) -> Void)?
    ) -> HTTPClientRequest.Body {
        let length: HTTPClientRequest.Body.Length = body.knownLength.map { .known(Int64($0)) } ?? .unknown
        let total = body.knownLength.map(Int64.init)
        guard let progress else {
            return .stream(body.map { ByteBuffer(bytes: $0) }, length: length)
        }
        let sent = SentBytes()
        return .stream(
            body.map { chunk in
                progress(TransferProgress(completedBytes: sent.add(chunk.count), totalBytes: total))
                return ByteBuffer(bytes: chunk)
            },
            length: length
        )
    }
}

/// A running byte count for upload progress.
private final class SentBytes: Sendable {
    private let count = LockedValue<Int64>(0)

    func add(_ bytes: Int) -> Int64 {
        count.withLock { count in
            count += Int64(bytes)
            return count
        }
    }
}

/// A response body whose first buffer was read already: that buffer, then
/// the rest from the same iterator.
struct ContinuedBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    /// The iterator, shared by the sequence and its one reader.
    // Only the body's single reader calls `next()`, one call at a time
    // (HTTPBody hands a streamed body to one reader); nothing else touches it.
    final class Rest: @unchecked Sendable {  // safety: see above
        var iterator: HTTPClientResponse.Body.AsyncIterator

        init(_ iterator: HTTPClientResponse.Body.AsyncIterator) {
            self.iterator = iterator
        }
    }

    let first: ByteBuffer
    let rest: Rest

    func makeAsyncIterator() -> Iterator {
        Iterator(first: first, rest: rest)
    }

    struct Iterator: AsyncIteratorProtocol {
        var first: ByteBuffer?
        let rest: Rest

        mutating func next() async throws -> ByteBuffer? {
            if let first {
                self.first = nil
                return first
            }
            return try await rest.iterator.next()
        }
    }
}
