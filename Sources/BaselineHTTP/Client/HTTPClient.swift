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
/// The client is a value: copies share the transport. Its async methods are
/// not isolated to any actor, so encoding and decoding run off the main actor
/// even when you call them from it.
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

        /// Creates a configuration; the defaults suit a JSON API.
        public init(
            baseURL: URL,
            headerFields: HTTPFields = [.accept: "application/json"],
            acceptableStatusCodes: Range<Int> = 200..<300,
            maximumResponseSize: Int = 16 * 1024 * 1024,
            encoder: JSONEncoder = JSONEncoder(),
            decoder: JSONDecoder = JSONDecoder()
        ) {
            self.baseURL = baseURL
            self.headerFields = headerFields
            self.acceptableStatusCodes = acceptableStatusCodes
            self.maximumResponseSize = maximumResponseSize
            self.encoder = encoder
            self.decoder = decoder
        }
    }

    /// The client's settings.
    public let configuration: Configuration
    /// The transport that does the network work.
    public let transport: any HTTPTransport
    /// The middleware between the client and the transport, outermost first.
    public let middleware: [any HTTPMiddleware]
    private let chain: HTTPMiddleware.Next

    /// Creates a client.
    public init(
        configuration: Configuration,
        transport: any HTTPTransport = URLSessionTransport.shared,
        middleware: [any HTTPMiddleware] = []
    ) {
        self.configuration = configuration
        self.transport = transport
        self.middleware = middleware
        self.chain = transport.chained(behind: middleware)
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

    /// Sends `request` and decodes its JSON body.
    ///
    /// `String` and `Data` responses are the raw body here too, so a generic
    /// caller (`func load<T: Decodable>(_: Request<T>)`) gets the same result
    /// as a direct one.
    public func send<Value: Decodable & Sendable>(_ request: Request<Value>) async throws -> Response<Value> {
        try await send(request) { body in
            if Value.self == Data.self, let data = body as? Value { return data }
            if Value.self == String.self {
                if let text = try Self.text(from: body) as? Value { return text }
            }
            do {
                return try configuration.decoder.decode(Value.self, from: body)
            } catch {
                throw HTTPClientError.decodingFailed(underlying: error, bodyExcerpt: HTTPClientError.excerpt(of: body))
            }
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

    private static func text(from body: Data) throws -> String {
        guard let text = String(data: body, encoding: .utf8) else {
            throw HTTPClientError.decodingFailed(
                underlying: DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "Body is not UTF-8")),
                bodyExcerpt: HTTPClientError.excerpt(of: body)
            )
        }
        return text
    }

    /// Sends `request` and ignores its body.
    @discardableResult
    public func send(_ request: Request<Void>) async throws -> Response<Void> {
        try await send(request) { _ in () }
    }

    private func send<Value>(
        _ request: Request<Value>,
        decode: (Data) throws -> Value
    ) async throws -> Response<Value> {
        let (head, body) = try makeHTTPRequest(request)
        let (responseHead, responseBody) = try await perform(head, body: body)
        let data = try await responseBody.collect(upTo: configuration.maximumResponseSize)
        let acceptable = request.acceptableStatusCodes ?? configuration.acceptableStatusCodes
        guard acceptable.contains(responseHead.status.code) else {
            throw HTTPClientError.unacceptableStatus(responseHead, body: data)
        }
        return Response(value: try decode(data), head: responseHead, body: data)
    }

    /// Runs the middleware chain and transport, keeping the error contract:
    /// cancellation as `CancellationError`, everything else as `HTTPClientError`.
    private func perform(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse, HTTPBody) {
        do {
            try Task.checkCancellation()
            return try await chain(request, body)
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

    // MARK: Building

    /// The HTTP request `request` describes, resolved against the base URL.
    public func makeHTTPRequest<Value>(_ request: Request<Value>) throws -> (HTTPRequest, HTTPBody?) {
        let url = try resolveURL(for: request)
        var fields = configuration.headerFields
        if request.body != nil {
            // The body says what it is; a client-wide default must not relabel it.
            fields[.contentType] = nil
        }
        for field in request.headerFields {
            fields[fields: field.name] = []
        }
        fields.append(contentsOf: request.headerFields)

        var body: HTTPBody?
        if let requestBody = request.body {
            switch requestBody.content {
            case let .data(data):
                body = HTTPBody(data)
            case let .json(value):
                do {
                    body = HTTPBody(try configuration.encoder.encode(value))
                } catch {
                    throw HTTPClientError.invalidRequest(reason: "The JSON body could not be encoded: \(error)")
                }
            }
            if fields[.contentType] == nil {
                fields[.contentType] = requestBody.contentType
            }
        }
        return (HTTPRequest(method: request.method, url: url, headerFields: fields), body)
    }

    private func resolveURL<Value>(for request: Request<Value>) throws -> URL {
        guard !request.path.contains("?") else {
            // URLComponents would escape it into the path; queries go in `query`.
            throw HTTPClientError.invalidRequest(reason: "The path \(request.path) contains '?': pass query items in `query`")
        }
        let base: URL
        if !request.path.hasPrefix("/"), let absolute = URL(string: request.path),
           absolute.scheme != nil, absolute.host != nil {
            base = absolute
        } else {
            // Append rather than resolve (RFC 3986 would drop the last segment
            // of a base URL such as `https://host/api`).
            guard var components = URLComponents(url: configuration.baseURL, resolvingAgainstBaseURL: false) else {
                throw HTTPClientError.invalidRequest(reason: "The base URL \(configuration.baseURL) is not valid")
            }
            let trimmedBase = components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path
            let path = request.path.hasPrefix("/") || request.path.isEmpty ? request.path : "/" + request.path
            components.path = trimmedBase + path
            guard let joined = components.url else {
                throw HTTPClientError.invalidRequest(reason: "The path \(request.path) does not form a valid URL")
            }
            base = joined
        }
        guard !request.query.isEmpty else { return base }
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else {
            throw HTTPClientError.invalidRequest(reason: "The URL \(base) is not valid")
        }
        components.queryItems = (components.queryItems ?? []) + request.query
        guard let url = components.url else {
            throw HTTPClientError.invalidRequest(reason: "The query does not form a valid URL")
        }
        return url
    }
}
