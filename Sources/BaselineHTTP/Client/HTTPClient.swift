import Foundation
import HTTPTypes

/// Sends ``Request`` values through middleware and a transport, validates the
/// status and decodes the body.
///
/// ```swift
/// let client = HTTPClient(baseURL: URL(string: "http://127.0.0.1:8080")!)
/// let token = try await client.send(.post("/auth/login", body: .json(credentials)) as Request<TokenResponse>).value
/// ```
///
/// The client is a value: copies share the transport. The exchange always
/// runs off the caller's actor, and so does decoding, for a response type
/// whose `Decodable` conformance may be used anywhere.
///
/// ### In an Xcode 26 app target
///
/// There, default isolation is `MainActor`, and a `struct Member: Decodable`
/// the app declares conforms on the main actor. Such a type can only be
/// decoded there, and ``send(_:)-13tyv`` does so: it compiles
/// as it is, and a small body costs little. For a large body, declare the
/// type `nonisolated` and decoding moves off the main actor:
///
/// ```swift
/// nonisolated struct Row: Decodable, Sendable { … }
/// let rows = try await client.send(Request<[Row]>.get("/rows")).value
/// ```
///
/// Measured on a 1 MiB array of 14,669 rows (`ApproachableConcurrency`'s
/// `decoding-benchmark`, release, Linux): the send takes about 60 ms either
/// way, but the main actor stalls for about 60 ms when it decodes, against
/// about 1.5 ms when the type is `nonisolated`.
///
/// Errors are ``HTTPClientError``, except task cancellation, which is always
/// `CancellationError`.
public struct HTTPClient: Sendable {
    /// Settings shared by every request of a client.
    public struct Configuration: Sendable {
        /// Relative request paths are appended to this URL.
        public var baseURL: URL
        /// Header fields sent with every request, unless the request sets them.
        public var headerFields: HTTPFields
        /// Status codes accepted when a request does not say otherwise.
        public var acceptableStatusCodes: Range<Int>
        /// Responses with larger bodies fail with ``HTTPClientError/responseTooLarge(limit:)``.
        public var maximumResponseSize: Int
        /// Encodes ``RequestBody/json(_:)`` bodies.
        public var encoder: JSONEncoder
        /// Decodes JSON responses.
        public var decoder: JSONDecoder
        /// How long a request may take, unless it says otherwise (``Request/timeout``);
        /// `nil` leaves it to the transport, which gives up on a server that
        /// sends nothing for a while: 60 s by default on both
        /// ``URLSessionTransport`` and the AsyncHTTPClient transport.
        public var timeout: Duration?
        /// Which redirects to follow (the transport follows none itself).
        public var redirectPolicy: RedirectPolicy
        /// Whether the client asks for compressed responses
        /// (`Accept-Encoding: gzip, deflate`, unless the configuration's header fields or the request set it)
        /// and inflates them as they arrive. On by default.
        ///
        /// The inflated body is what middleware, decoding and
        /// ``maximumResponseSize`` see, so a small body that inflates to a
        /// huge one is refused at the limit. Decoded responses lose their
        /// `Content-Encoding` and `Content-Length` fields, whichever transport
        /// did the inflating. URLSession inflates by itself whatever this says;
        /// other transports (AsyncHTTPClient's) rely on it.
        public var decompressesResponses: Bool
        /// Measures ``timeout`` and ``Request/timeout``. Tests pass a test
        /// clock (swift-clocks' `TestClock`) to run a timeout out without
        /// waiting for it; metrics always use the continuous clock.
        public var clock: any Clock<Duration>

        /// Creates a configuration; the defaults suit a JSON API.
        public init(
            baseURL: URL,
            headerFields: HTTPFields = [.accept: "application/json"],
            acceptableStatusCodes: Range<Int> = 200..<300,
            maximumResponseSize: Int = 16 * 1024 * 1024,
            encoder: JSONEncoder = JSONEncoder(),
            decoder: JSONDecoder = JSONDecoder(),
            timeout: Duration? = nil,
            redirectPolicy: RedirectPolicy = .follow(),
            decompressesResponses: Bool = true,
            clock: any Clock<Duration> = ContinuousClock()
        ) {
            self.baseURL = baseURL
            self.headerFields = headerFields
            self.acceptableStatusCodes = acceptableStatusCodes
            self.maximumResponseSize = maximumResponseSize
            self.encoder = encoder
            self.decoder = decoder
            self.timeout = timeout
            self.redirectPolicy = redirectPolicy
            self.decompressesResponses = decompressesResponses
            self.clock = clock
        }
    }

    /// The client's settings.
    public let configuration: Configuration
    /// The transport that does the network work.
    public let transport: any HTTPTransport
    /// The middleware between the client and the transport, outermost first.
    /// Redirects are followed after the last of them; responses are inflated
    /// (``Configuration/decompressesResponses``) next to the transport.
    public let middleware: [any HTTPMiddleware]
    let chain: HTTPMiddleware.Next
    /// The base URL, taken apart once (every request starts from it); `nil`
    /// when it is not an absolute URL.
    private let base: RequestTarget?
    /// The configuration's header fields and, when the client inflates
    /// responses, `Accept-Encoding`: made once, so that a request that adds
    /// no field of its own shares them instead of copying.
    private let defaultHeaderFields: HTTPFields

    /// How much of an unacceptable response's body is kept for its
    /// ``HTTPClientError/unacceptableStatus(_:body:)``: 64 KiB, enough for
    /// any error document, and a bound against a server that sends more.
    public static let errorBodyLimit = 64 * 1024

    /// Creates a client.
    public init(
        configuration: Configuration,
        transport: any HTTPTransport = URLSessionTransport.shared,
        middleware: [any HTTPMiddleware] = []
    ) {
        self.configuration = configuration
        self.transport = transport
        self.middleware = middleware
        let innermost: [any HTTPMiddleware] =
            configuration.decompressesResponses
            ? [RedirectMiddleware(policy: configuration.redirectPolicy), ResponseDecompression()]
            : [RedirectMiddleware(policy: configuration.redirectPolicy)]
        self.chain = transport.chained(behind: middleware + innermost)
        var defaultHeaderFields = configuration.headerFields
        if configuration.decompressesResponses, defaultHeaderFields[.acceptEncoding] == nil {
            defaultHeaderFields[.acceptEncoding] = ContentCoding.acceptedByDefault
        }
        self.defaultHeaderFields = defaultHeaderFields
        self.base = RequestTarget(baseURL: configuration.baseURL)
    }

    /// Creates a client with the default configuration for `baseURL`.
    public init(
        baseURL: URL,
        transport: any HTTPTransport = URLSessionTransport.shared,
        middleware: [any HTTPMiddleware] = []
    ) {
        self.init(configuration: Configuration(baseURL: baseURL), transport: transport, middleware: middleware)
    }

    // MARK: Sending

    /// Sends `request` and decodes its JSON body, off the caller's actor.
    ///
    /// `String` and `Data` responses are the raw body here too, so a generic
    /// caller (`func load<T: Decodable>(_: Request<T>)`) gets the same result
    /// as a direct one.
    ///
    /// This overload serves a `Value` whose `Decodable` conformance may be
    /// used anywhere (a `nonisolated` type, or any type in a module without
    /// a default actor): a large body is decoded without holding the caller's
    /// actor. A type whose conformance is isolated to the main actor (the
    /// default for a type declared in an Xcode 26 app target) is served by
    /// ``send(_:)-13tyv`` instead, which decodes on the caller's
    /// actor: declare the type `nonisolated` to keep decoding off it.
    @inlinable
    public nonisolated(nonsending) func send<Value: Decodable & Sendable>(
        _ request: Request<Value>
    ) async throws -> Response<Value> {
        try await sendDecodingConcurrently(request)
    }

    /// Sends `request` and decodes its JSON body on the caller's actor: what
    /// a type whose `Decodable` conformance is isolated to that actor needs
    /// (`struct Member: Decodable` in a module whose default isolation is
    /// `MainActor`). The exchange itself runs off the caller's actor.
    @inlinable
    @_disfavoredOverload
    public nonisolated(nonsending) func send<Value: Decodable>(
        _ request: Request<Value>
    ) async throws -> Response<Value> {
        let exchange = try await exchange(for: request)
        return try Response(exchange, value: Self.decode(Value.self, from: exchange.body, with: configuration.decoder))
    }

    @inlinable
    @concurrent
    func sendDecodingConcurrently<Value: Decodable & Sendable>(
        _ request: Request<Value>
    ) async throws -> Response<Value> {
        let exchange = try await exchange(for: request)
        return try Response(exchange, value: Self.decode(Value.self, from: exchange.body, with: configuration.decoder))
    }

    /// `body` as `Value`: `Data` and `String` as they came, anything else
    /// decoded as JSON.
    @inlinable
    static func decode<Value: Decodable>(_ type: Value.Type, from body: Data, with decoder: JSONDecoder) throws -> Value
    {
        // Inlinable, so this is compiled where `Value` is known: the JSON
        // decoder then runs specialised for it, instead of generic code that
        // looks type metadata up at run time for every container.
        if Value.self == Data.self, let data = body as? Value { return data }
        if Value.self == String.self {
            if let text = try Self.text(from: body) as? Value { return text }
        }
        do {
            return try decoder.decode(Value.self, from: body)
        } catch {
            throw HTTPClientError.decodingFailed(error, body: body)
        }
    }

    /// Sends `request` and returns its body as it came.
    public func send(_ request: Request<Data>) async throws -> Response<Data> {
        try await send(request) { $0 }
    }

    /// Sends `request` and returns its body as UTF-8 text.
    public func send(_ request: Request<String>) async throws -> Response<String> {
        try await send(request, decode: Self.text(from:))
    }

    @usableFromInline
    static func text(from body: Data) throws -> String {
        guard let text = String(data: body, encoding: .utf8) else {
            throw HTTPClientError.decodingFailed(
                DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "Body is not UTF-8")),
                body: body
            )
        }
        return text
    }

    /// Sends `request` and ignores its body.
    @discardableResult
    public func send(_ request: Request<Void>) async throws -> Response<Void> {
        try await send(request) { _ in () }
    }

    @inlinable
    func send<Value>(
        _ request: Request<Value>,
        decode: (Data) throws -> Value
    ) async throws -> Response<Value> {
        let exchange = try await exchange(for: request)
        return Response(exchange, value: try decode(exchange.body))
    }

    /// Sends `request` and receives its whole, accepted response. Only
    /// building the request depends on `Value`; the exchange is one
    /// non-generic function, which runs off the caller's actor.
    @inlinable
    func exchange<Value>(for request: Request<Value>) async throws -> Exchange {
        try await exchange(prepare(request))
    }

    /// What sending `request` needs, without its response type.
    @inlinable
    func prepare<Value>(_ request: Request<Value>) throws -> Prepared {
        let (head, body) = try makeHTTPRequest(request)
        return Prepared(
            head: head,
            body: body,
            limit: request.maximumResponseSize ?? configuration.maximumResponseSize,
            timeout: request.timeout ?? configuration.timeout,
            acceptableStatusCodes: request.acceptableStatusCodes ?? configuration.acceptableStatusCodes
        )
    }

    /// A request ready to send: its head and body, and the limits that apply.
    @usableFromInline
    struct Prepared: Sendable {
        @usableFromInline let head: HTTPRequest
        @usableFromInline let body: HTTPBody?
        @usableFromInline let limit: Int
        @usableFromInline let timeout: Duration?
        @usableFromInline let acceptableStatusCodes: Range<Int>

        @usableFromInline
        init(head: HTTPRequest, body: HTTPBody?, limit: Int, timeout: Duration?, acceptableStatusCodes: Range<Int>) {
            self.head = head
            self.body = body
            self.limit = limit
            self.timeout = timeout
            self.acceptableStatusCodes = acceptableStatusCodes
        }
    }

    /// Sends a prepared request and receives its whole, accepted response.
    @usableFromInline
    func exchange(_ prepared: Prepared) async throws -> Exchange {
        try await exchange(
            prepared.head,
            body: prepared.body,
            limit: prepared.limit,
            timeout: prepared.timeout,
            acceptableStatusCodes: prepared.acceptableStatusCodes
        )
    }

    /// A response received whole and accepted, before decoding.
    @usableFromInline
    struct Exchange: Sendable {
        @usableFromInline var head: HTTPResponse
        @usableFromInline var body: Data
        @usableFromInline var metrics: RequestMetrics
    }

    /// Sends `head` and `body` through the chain, receives the whole
    /// response body (at most `limit` bytes) and checks the status.
    @usableFromInline
    func exchange(
        _ head: HTTPRequest,
        body: HTTPBody?,
        limit: Int,
        timeout: Duration?,
        acceptableStatusCodes: Range<Int>
    ) async throws -> Exchange {
        let startDate = Date()
        let start = ContinuousClock.now
        let chain = self.chain
        let (responseHead, data, firstByte) =
            if let timeout {
                try await Self.withTimeout(timeout, on: configuration.clock) {
                    try await Self.receive(head, body: body, on: chain, upTo: limit, since: start)
                }
            } else {
                // No timer task and no escaping closure: the common case stays cheap.
                try await Self.receive(head, body: body, on: chain, upTo: limit, since: start)
            }
        let metrics = RequestMetrics(
            startDate: startDate,
            timeToFirstByte: firstByte,
            duration: ContinuousClock.now - start,
            bytesSent: body?.knownLength ?? 0,
            bytesReceived: data.count
        )
        guard acceptableStatusCodes.contains(responseHead.status.code) else {
            throw HTTPClientError.unacceptableStatus(responseHead, body: data)
        }
        return Exchange(head: responseHead, body: data, metrics: metrics)
    }

    /// The response head, its whole body and the time to the head.
    private static func receive(
        _ head: HTTPRequest,
        body: HTTPBody?,
        on chain: HTTPMiddleware.Next,
        upTo limit: Int,
        since start: ContinuousClock.Instant
    ) async throws -> (HTTPResponse, Data, Duration) {
        let (responseHead, responseBody) = try await perform(head, body: body, on: chain)
        let firstByte = ContinuousClock.now - start
        let data = try await mappingErrors { try await responseBody.collect(upTo: limit) }
        return (responseHead, data, firstByte)
    }

    /// Runs the middleware chain and transport, keeping the error contract.
    static func perform(
        _ request: HTTPRequest,
        body: HTTPBody?,
        on chain: HTTPMiddleware.Next
    ) async throws -> (HTTPResponse, HTTPBody) {
        try await mappingErrors {
            try Task.checkCancellation()
            return try await chain(request, body)
        }
    }

    /// Cancellation as `CancellationError`, everything else as `HTTPClientError`.
    static func mappingErrors<T>(_ operation: () async throws -> T) async throws -> T {
        do {
            return try await operation()
        } catch let error as HTTPClientError {
            throw error
        } catch let error as CancellationError {
            throw error
        } catch {
            // Transports report a cancelled task in their own words (URLError.cancelled).
            if Task.isCancelled { throw CancellationError() }
            throw HTTPClientError.transport(underlying: error)
        }
    }

    /// `operation`, or ``HTTPClientError/timedOut(after:)`` when it takes
    /// longer than `timeout` on `clock` (it is then cancelled).
    static func withTimeout<T: Sendable>(
        _ timeout: Duration,
        on clock: any Clock<Duration>,
        _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await clock.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            guard let value = first else { throw HTTPClientError.timedOut(after: timeout) }
            return value
        }
    }

    // MARK: Building

    /// The HTTP request `request` describes, resolved against the base URL.
    public func makeHTTPRequest<Value>(_ request: Request<Value>) throws -> (HTTPRequest, HTTPBody?) {
        var fields = headerFields(merging: request.headerFields, hasBody: request.body != nil)

        var body: HTTPBody?
        if let requestBody = request.body {
            body = try requestBody.makeHTTPBody(encoder: configuration.encoder)
            if fields[.contentType] == nil {
                fields[.contentType] = requestBody.contentType
            }
        }
        return (try makeHead(for: request, headerFields: fields), body)
    }

    /// The client's default header fields with `fields` in place of any of
    /// the same name; with a body, no default `Content-Type`.
    func headerFields(merging fields: HTTPFields, hasBody: Bool) -> HTTPFields {
        var merged = defaultHeaderFields
        if hasBody {
            // The body says what it is; a client-wide default must not relabel it.
            merged[.contentType] = nil
        }
        for field in fields {
            merged[fields: field.name] = []
        }
        merged.append(contentsOf: fields)
        return merged
    }

    /// The request head: method, target and `fields`.
    func makeHead<Value>(for request: Request<Value>, headerFields fields: HTTPFields) throws -> HTTPRequest {
        let path = request.pathValue
        guard !path.literalContains(UInt8(ascii: "?")) else {
            // It would be escaped into the path; queries go in `query`.
            throw HTTPClientError.invalidRequest(
                reason: "The path \(request.path) contains '?': pass query items in `query`"
            )
        }
        if !request.path.hasPrefix("/"), let absolute = try Self.absoluteURL(path) {
            guard !request.query.isEmpty else {
                return HTTPRequest(method: request.method, url: absolute, headerFields: fields)
            }
            guard var components = URLComponents(url: absolute, resolvingAgainstBaseURL: false) else {
                throw HTTPClientError.invalidRequest(reason: "The URL \(request.path) is not valid")
            }
            components.queryItems = (components.queryItems ?? []) + request.query
            guard let url = components.url else {
                throw HTTPClientError.invalidRequest(
                    reason: "The URL \(request.path) and query do not form a valid URL"
                )
            }
            return HTTPRequest(method: request.method, url: url, headerFields: fields)
        }
        // Append rather than resolve (RFC 3986 would drop the last segment
        // of a base URL such as `https://host/api`).
        guard let base else {
            throw HTTPClientError.invalidRequest(reason: "The base URL \(configuration.baseURL) is not valid")
        }
        return HTTPRequest(
            method: request.method,
            scheme: base.scheme,
            authority: base.authority,
            path: try base.target(path: path, query: request.query),
            headerFields: fields
        )
    }

    /// The URL `path` names when it is an absolute URL with a scheme and a
    /// host, used as it is but for its interpolated values, escaped as
    /// segments. (An interpolated scheme or host is escaped too, so that
    /// path is no absolute URL.)
    private static func absoluteURL(_ path: RequestPath) throws -> URL? {
        var text = path.text
        if !path.values.isEmpty {
            text = ""
            try path.appendEscaped(keeping: { _ in true }, to: &text)
        }
        guard let url = URL(string: text), url.scheme != nil, url.host != nil else { return nil }
        return url
    }
}

extension Response {
    /// `exchange`'s head, body and metrics, with `value` decoded from it.
    @inlinable
    init(_ exchange: HTTPClient.Exchange, value: Value) {
        self.init(value: value, head: exchange.head, body: exchange.body, metrics: exchange.metrics)
    }
}
