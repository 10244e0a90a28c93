import BaselineConcurrency
import Foundation
import FuzzSupport
import HTTPTypes

@testable import BaselineHTTP

// Random response heads and bodies through the whole client: the cache,
// retries (on a clock that never waits), bearer authentication with
// refreshes that succeed or fail, redirects and decompression, over a
// transport that answers from a script read from the input.
//
// Properties: every call ends (libFuzzer's -timeout catches a hang) with a
// value or an `HTTPClientError`, never a trap nor another error; a value's
// status is acceptable and its body within the size limit; an `Age` the
// cache serves is delta-seconds in 0...2^31; a call sends a bounded number
// of requests (attempts × refresh × revalidation × redirects).
/// Runs one input of libFuzzer's: returns 0, or stops the process when a
/// property fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count: count)
    let calls = (0..<input.number(in: 1...4)).map { _ in Call(&input) }
    let tokens = Tokens(mode: input.number(in: 0...2))
    let script = (0..<input.number(in: 1...6)).map { _ in Scripted(&input) }
    let transport = ScriptedTransport(script)
    let clock = Moment()
    let client = HTTPClient(
        configuration: .init(
            baseURL: URL(string: "https://api.test")!,
            maximumResponseSize: limit,
            redirectPolicy: .follow(maximum: maximumRedirects)
        ),
        transport: transport,
        middleware: [
            RetryMiddleware(
                policy: RetryPolicy(maximumAttempts: maximumAttempts, maximumRetryAfter: .seconds(Int64.max)),
                clock: NoWaitClock(),
                random: { 0.5 },
                now: { Date(timeIntervalSince1970: 1_700_000_000) }
            ),
            BearerAuthentication(provider: tokens),
            ResponseCache(
                store: MemoryCacheStore(byteLimit: 16 * 1024),
                maximumEntrySize: 4 * 1024,
                maximumResponseSize: limit,
                now: { clock.now }
            ),
        ]
    )
    let outcomes = synchronously {
        var outcomes: [(Call, Result<(HTTPResponse, Data), any Error>, sent: Int, lastStatus: Int?)] = []
        for call in calls {
            clock.advance(by: call.advance)
            let before = transport.sent
            let result = await outcome { try await call.run(on: client) }
            outcomes.append((call, result, transport.sent - before, transport.lastStatus))
        }
        return outcomes
    }
    guard case .success(let results) = outcomes else {
        require(false, "the calls failed as a whole: \(outcomes)")
        return 0
    }
    for (call, result, sent, lastStatus) in results {
        require(sent <= maximumRequestsPerCall, "\(call) sent \(sent) requests")
        switch result {
        case .success(let (head, body)):
            require((200..<300).contains(head.status.code), "\(call) returned \(head.status)")
            require(body.count <= limit, "\(call) returned \(body.count) bytes")
            // Served from the cache: without the network, or after a 304.
            if sent == 0 || (head.status != .notModified && lastStatus == 304) {
                let ages = head.headerFields[values: .age]
                let seconds = ages.count == 1 ? DeltaSeconds.parse(ages[0]) : nil
                require(seconds.map { (0...DeltaSeconds.maximum).contains($0) } ?? false, "served Age \(ages)")
            }
        case .failure(let error):
            require(error is HTTPClientError, "\(call) failed with \(type(of: error)): \(error)")
        }
    }
    return 0
}

let limit = 8 * 1024
let maximumAttempts = 3
let maximumRedirects = 3
/// Each attempt may be refreshed once, each refresh revalidated and sent
/// again once, and each of those follow the redirects.
let maximumRequestsPerCall = maximumAttempts * 2 * 2 * (maximumRedirects + 1)

/// One call of the client.
struct Call: CustomStringConvertible {
    enum Kind: CaseIterable {
        case get, getStream, post, delete, head
    }

    var kind: Kind
    var path: String
    /// Seconds the cache's clock moves on before the call.
    var advance: TimeInterval

    init(_ input: inout FuzzInput) {
        kind = Kind.allCases[input.number(in: 0...(Kind.allCases.count - 1))]
        path = ["/a", "/b", "/a/b"][input.number(in: 0...2)]
        let step = input.byte()
        advance = step < 128 ? TimeInterval(step) : pow(10, TimeInterval(step % 20))
    }

    var description: String { "\(kind) \(path)" }

    func run(on client: HTTPClient) async throws -> (HTTPResponse, Data) {
        switch kind {
        case .get:
            let response = try await client.send(Request<Data>.get(path))
            return (response.head, response.value)
        case .getStream:
            let response = try await client.stream(Request<Void>.get(path))
            return (response.head, try await response.body.collect(upTo: limit))
        case .post:
            let response = try await client.send(
                Request<Data>(method: .post, path: path, body: .data(Data("{}".utf8), contentType: "application/json"))
            )
            return (response.head, response.value)
        case .delete:
            let response = try await client.send(Request<Data>(method: .delete, path: path))
            return (response.head, response.value)
        case .head:
            let response = try await client.send(Request<Data>(method: .head, path: path))
            return (response.head, response.value)
        }
    }
}

/// One answer of the script: a status, header fields and a body, whole or
/// in chunks, with a declared length that may or may not be its own.
struct Scripted: Sendable {
    static let statuses: [Int] = [
        200, 200, 201, 204, 206, 301, 302, 303, 304, 307, 308, 401, 401, 403, 404, 408, 416, 429, 500, 502, 503, 504,
    ]
    static let names: [HTTPField.Name] = [
        .age, .cacheControl, .eTag, .vary, .location, .retryAfter, .contentEncoding, .contentLength,
        .wwwAuthenticate, .expires, .date, .lastModified, .contentType, .contentRange,
    ]
    static let values: [String] = [
        "0", "1", "60", "-1", "1e19", "inf", "0x10", "99999999999999999999", "2147483648", "max-age=60",
        "max-age=99999999999999999999", "no-store", "no-cache", "must-revalidate, max-age=0", "max-age=\"5\"",
        "\"v1\"", "W/\"v1\"", "\"v2\"", "*", "Accept-Encoding", "Accept-Language", "Authorization, *", "/a", "/b",
        "https://api.test/a", "https://other.test/a", "http://api.test/b", "//other.test/c", "ftp://x/y", "a:b",
        "gzip", "deflate", "br", "gzip, gzip", "identity", "Bearer", "Basic realm=\"x\"",
        "Sun, 06 Nov 1994 08:49:37 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", "Sunday, 06-Nov-94 08:49:37 GMT",
        "application/json", "text/plain", "bytes 0-9/10", "bytes */10", "",
    ]
    /// `{"a":1}` gzipped.
    static let gzip: [UInt8] = [
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xab, 0x56, 0x4a, 0x54, 0xb2, 0x32, 0xac,
        0x05, 0x00, 0x1e, 0x72, 0x9f, 0xa4, 0x07, 0x00, 0x00, 0x00,
    ]

    var status: Int
    var fields: HTTPFields
    var body: [UInt8]
    var cuts: [Int]?
    var declaredLength: Int?

    init(_ input: inout FuzzInput) {
        status = Self.statuses[input.number(in: 0...(Self.statuses.count - 1))]
        fields = HTTPFields()
        for _ in 0..<input.number(in: 0...6) {
            let name = Self.names[input.number(in: 0...(Self.names.count - 1))]
            let choice = input.byte()
            let value =
                choice < 200
                ? Self.values[Int(choice) % Self.values.count]
                : String(decoding: (0..<input.number(in: 0...32)).map { _ in input.byte() }, as: UTF8.self)
            fields.append(HTTPField(name: name, value: value))
        }
        let size = input.number(in: 0...255) * input.number(in: 1...64)
        switch input.number(in: 0...3) {
        case 0: body = (0..<input.number(in: 0...64)).map { _ in input.byte() }
        case 1: body = Self.gzip
        case 2: body = Array(Self.gzip.prefix(input.number(in: 0...Self.gzip.count)))
        default: body = Array(Self.gzip.prefix(10)) + (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        }
        let framing = input.number(in: 0...3)
        cuts = framing == 0 ? nil : [Int(input.byte()), Int(input.byte())]
        declaredLength =
            switch framing {
            case 1: body.count
            case 2: nil
            default: input.number(in: 0...255)
            }
    }

    var response: (HTTPResponse, HTTPBody) {
        let head = HTTPResponse(status: .init(code: status), headerFields: fields)
        guard let cuts else { return (head, HTTPBody(Data(body))) }
        return (head, HTTPBody(Chunks(body, cutAt: cuts), length: declaredLength))
    }
}

/// Answers each request with the script's next response, from the start
/// again after the last.
final class ScriptedTransport: HTTPTransport {
    let script: [Scripted]
    private let count = LockedValue(0)

    init(_ script: [Scripted]) {
        self.script = script
    }

    /// Requests received so far.
    var sent: Int { count.current }

    /// The status of the last answer, if any.
    var lastStatus: Int? {
        let sent = count.current
        return sent == 0 ? nil : script[(sent - 1) % script.count].status
    }

    func send(_ request: HTTPRequest, body: HTTPBody?) async throws -> (HTTPResponse, HTTPBody) {
        _ = try await body?.collect(upTo: .max)
        let index = count.withLock { count in
            defer { count += 1 }
            return count
        }
        return script[index % script.count].response
    }
}

/// Tokens that are absent (mode 0), refresh (1), or fail to refresh (2).
final class Tokens: AccessTokenProvider {
    struct RefreshFailed: Error {}

    let mode: Int
    private let generation = LockedValue(0)

    init(mode: Int) {
        self.mode = mode
    }

    func accessToken() async throws -> String? {
        mode == 0 ? nil : "token-\(generation.current)"
    }

    func refreshAccessToken(rejected: String) async throws -> String {
        guard mode == 1 else { throw RefreshFailed() }
        let next = generation.withLock { generation in
            generation += 1
            return generation
        }
        return "token-\(next)"
    }
}

/// The cache's date, moved on by the harness.
final class Moment: Sendable {
    private let date = LockedValue(Date(timeIntervalSince1970: 1_700_000_000))

    var now: Date { date.current }

    func advance(by seconds: TimeInterval) {
        date.withLock { $0 += seconds }
    }
}

/// A clock whose sleeps end at once, so that retries and `Retry-After`
/// waits of any length cost nothing.
struct NoWaitClock: Clock {
    struct Instant: InstantProtocol {
        var offset: Swift.Duration

        func advanced(by duration: Swift.Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Swift.Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    var now: Instant { Instant(offset: .zero) }
    var minimumResolution: Swift.Duration { .zero }

    func sleep(until deadline: Instant, tolerance: Swift.Duration?) async throws {  // sleep-ok: never waits
        try Task.checkCancellation()
    }
}

/// The program's entry point: hands the command line to libFuzzer.
@_cdecl("FuzzClient_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
