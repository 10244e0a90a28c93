import Foundation
import HTTPTypes
import NIOCore

@testable import SpacePhotosServer

/// One request of the property run, and what the server may answer to it.
struct RandomRequest: CustomStringConvertible {
    var method: HTTPRequest.Method
    var uri: String
    var headers: HTTPFields = [:]
    var body: ByteBuffer?
    /// The 5xx the request asks for on purpose (a test knob), if any.
    var deliberateFailure: Set<Int> = []
    /// Whether the request asks the server to break the body mid-way
    /// (`?cutAt=`, `?dropAfter=`), which the test client reports as an error.
    var mayBreakBody = false

    var description: String {
        let shown = headers.map {
            "\($0.name): \($0.value.prefix(80))\($0.value.count > 80 ? "…(\($0.value.utf8.count))" : "")"
        }
        return "\(method) \(uri.prefix(200)) [\(shown.joined(separator: "; "))] body \(body?.readableBytes ?? -1) bytes"
    }
}

/// Makes random requests for every route of the example server, and for
/// none: hostile `Range` headers, huge or nonsense `Content-Length`, bad
/// JSON, long headers, odd methods and paths. The same generator state
/// makes the same requests, so a failing run replays from its number.
struct RandomRequests {
    var random: SplitMix64
    /// Tokens the server handed out, to send back (some of them spent).
    var refreshTokens: [String] = []
    var idTokens: [String] = []
    var uploadIDs: [String] = []
    /// The login ids tried, to bound the limiter's table by.
    var loginIDs: Set<String> = []

    static let failingDate = "2001-09-11"

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
    mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
    mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }

    /// Printable and unprintable junk, some of it not UTF-8 once in bytes.
    mutating func junk(_ maximum: Int) -> String {
        let alphabet = Array("abcXYZ019-_.~%/?&=;:,\"'\\ \t{}[]<>é日\u{0}\u{7F}\u{FEFF}\u{202E}")
        return String((0..<int(0...maximum)).map { _ in pick(alphabet) })
    }

    /// Decimal text from small to far past `Int.max`, with signs and junk.
    mutating func number() -> String {
        switch int(0...9) {
        case 0: return String(int(-5...5))
        case 1: return String(int(0...2_000_000))
        case 2: return "9223372036854775807"
        case 3: return "9223372036854775808"
        case 4: return "-9223372036854775808"
        case 5: return String(repeating: "9", count: int(20...400))
        case 6: return "+" + String(int(0...100))
        case 7: return pick(["1e3", "0x10", "NaN", "inf", "", " 5", "5 ", "٣", "1.5"])
        case 8: return String(repeating: "0", count: int(1...50)) + String(int(0...100))
        default: return String(int(0...100))
        }
    }

    /// A `Range` header meant to break a parser: huge numbers, many
    /// ranges, empty elements, other units, junk.
    mutating func hostileRange() -> String {
        switch int(0...11) {
        case 0: return "bytes=0-9223372036854775807"
        case 1: return "bytes=\(number())-\(number())"
        case 2: return "bytes=-\(number())"
        case 3: return "bytes=\(number())-"
        case 4:
            return "bytes="
                + (0..<int(1...300)).map { _ in "\(int(0...3_000_000))-\(int(0...3_000_000))" }.joined(separator: ",")
        case 5: return "bytes=" + String(repeating: ",", count: int(0...20_000)) + "0-\(number())"
        case 6: return pick(["bytes=", "bytes=-", "bytes=-0", "BYTES=0-0", "items=0-5", "bytes 0-5", "bytes=5-4"])
        case 7: return "bytes=\(int(0...2_000_000))-\(int(0...2_000_000)),-\(int(0...100))"
        case 8: return "bytes=" + junk(200)
        case 9: return "bytes=-" + String(repeating: "9", count: int(19...5_000))
        case 10: return "bytes=\(int(0...1_048_576))-\(int(0...1_048_576))"
        default: return junk(100)
        }
    }

    mutating func headerValue() -> String {
        switch int(0...4) {
        case 0: return String(repeating: pick(["a", "9", " ", ",", "日"]), count: int(1_000...64_000))
        case 1: return number()
        default: return junk(300).replacingOccurrences(of: "\u{0}", with: "")
        }
    }

    /// A JSON body: the right shape, the wrong one, or not JSON.
    mutating func jsonBody(_ good: () -> String) -> ByteBuffer {
        let text: String
        switch int(0...9) {
        case 0, 1, 2, 3: text = good()
        case 4: text = #"{"id": 7, "password": null}"#
        case 5: text = "{" + String(repeating: "[", count: int(1...5_000))
        case 6: text = #"{"refreshToken": ""# + String(repeating: "x", count: int(0...40_000)) + #""}"#
        case 7: text = junk(400)
        case 8: text = ""
        default: text = "[" + String(repeating: "1,", count: int(0...3_000)) + "1]"
        }
        return ByteBuffer(string: text)
    }

    mutating func multipartBody(boundary: String) -> ByteBuffer {
        var text = pick(["", "preamble\r\n"])
        for _ in 0..<pick([0, 1, 3, 50, int(900...1_100)]) {
            let name = chance(10) ? String(repeating: "n", count: int(200...8_000)) : junk(20)
            let escaped = name.replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\r", with: "")
                .replacingOccurrences(of: "\n", with: "")
            text +=
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(escaped)\"; filename=\"\(escaped)\"\r\n\r\n"
            text += junk(30) + "\r\n"
        }
        if !chance(10) { text += "--\(boundary)--\r\n" }
        return ByteBuffer(string: text)
    }

    /// Waits `/slow?ms=` and `?delay=` refuse (400). A wait that is taken
    /// runs in Hummingbird's `consumeWithCancellationOnInboundClose`, which
    /// HummingbirdTesting's router client cannot drive: its request stream,
    /// read by a task cancelled as a short wait ends, stops without
    /// finishing the body, and NIO's precondition ends the process. Through
    /// sockets, the real server answers such waits (SlowIntegrationTests,
    /// and `wrk` on `/slow?ms=0`).
    static let waitsRefused = ["-1", "10001", "x", "99999999999999999999", "1e3", ""]

    static let smallImages = ImageCatalog.images.filter { $0.width * $0.height <= 320 * 240 }.map(\.name)

    /// The next request.
    mutating func next() -> RandomRequest {
        var request = request()
        // Extra header fields on any request.
        if chance(15) { request.headers[.range] = hostileRange() }
        if chance(5), request.body == nil { request.headers[.contentLength] = number() }
        if chance(5) { request.headers[HTTPField.Name("X-Long")!] = headerValue() }
        if chance(3) {
            for index in 0..<int(1...100) {
                request.headers.append(
                    HTTPField(
                        name: HTTPField.Name("X-Many-\(index)")!,
                        value: junk(20).replacingOccurrences(of: "\u{0}", with: "")
                    )
                )
            }
        }
        if chance(5) {
            request.headers[.acceptEncoding] = pick([
                "gzip;q=nan", "deflate;q=1e400", "*;q=-1", "gzip;q=0x1p-2", headerValue(),
            ])
        }
        if chance(5) { request.headers[.ifNoneMatch] = pick(["*", "\"", "W/", headerValue()]) }
        if chance(5) {
            request.headers[.contentType] = pick([
                "multipart/form-data", "multipart/form-data; boundary=", "application/json", headerValue(),
            ])
        }
        if chance(10), ![.get, .head].contains(request.method) || chance(30) {
            request.method = pick([
                .get, .post, .put, .delete, .head, .patch, .options, .trace, HTTPRequest.Method("BREW")!,
            ])
        }
        return request
    }

    private mutating func request() -> RandomRequest {
        switch int(0...20) {
        case 0:
            return RandomRequest(method: .get, uri: "/health")
        case 1:
            let known = pick(DemoUser.all)
            let id =
                chance(50)
                ? known.id
                : pick(["", "astro", "guess-\(int(0...300))", String(repeating: "i", count: int(250...300)), junk(30)])
            loginIDs.insert(id)
            let password = chance(40) ? known.password : junk(40)
            return RandomRequest(
                method: .post,
                uri: "/auth/login",
                headers: [.contentType: "application/json"],
                body: jsonBody { Self.json(["id": id, "password": password]) }
            )
        case 2:
            let token = !refreshTokens.isEmpty && chance(80) ? pick(refreshTokens) : junk(60)
            return RandomRequest(
                method: .post,
                uri: "/auth/refresh",
                headers: [.contentType: "application/json"],
                body: jsonBody { Self.json(["refreshToken": token]) }
            )
        case 3:
            let token = !idTokens.isEmpty && chance(60) ? pick(idTokens) : junk(200)
            return RandomRequest(
                method: .get,
                uri: "/members/me",
                headers: [.authorization: pick(["Bearer \(token)", "bearer \(token)", token, "Bearer "])]
            )
        case 4:
            let user = pick(DemoUser.all)
            let pair = chance(50) ? "\(user.id):\(chance(50) ? user.password : junk(10))" : junk(40)
            loginIDs.insert(String(pair.prefix { $0 != ":" }))
            let encoded = chance(80) ? Data(pair.utf8).base64EncodedString() : junk(60)
            return RandomRequest(method: .get, uri: "/basic/profile", headers: [.authorization: "Basic \(encoded)"])
        case 5:
            let fail = chance(20)
            return RandomRequest(
                method: .get,
                uri: "/facts/\(Self.segment(number()))"
                    + (fail ? "?fail=true" : "?delay=\(pick(["0", "1", "-5", "x"]))"),
                deliberateFailure: fail ? [503] : []
            )
        case 6:
            return RandomRequest(method: .get, uri: "/dogs/random" + (chance(70) ? "?variant=\(number())" : ""))
        case 7:
            return upload()
        case 8:
            let id = !uploadIDs.isEmpty && chance(70) ? pick(uploadIDs) : junk(40)
            return RandomRequest(method: .get, uri: "/uploads/\(Self.segment(id))")
        case 9, 10:
            return download()
        case 11:
            let kind = pick(["text", "zeros", junk(10)])
            var query = ["bytes=\(chance(80) ? String(int(0...65_536)) : number())"]
            if chance(30) { query.append("truncate=\(chance(80) ? String(int(0...100)) : number())") }
            if chance(30) { query.append("deflate=raw") }
            return RandomRequest(
                method: .get,
                uri: "/compressible/\(Self.segment(kind))?" + query.joined(separator: "&"),
                headers: [.acceptEncoding: pick(["gzip", "deflate", "identity", "gzip;q=0, deflate;q=0", "*"])]
            )
        case 12:
            var query = ["count=\(chance(80) ? String(int(0...40)) : number())", "interval=0"]
            if chance(30) { query.append("from=\(chance(80) ? String(int(0...1_000_000)) : number())") }
            if chance(20) { query.append("format=\(pick(["sse", "ndjson", junk(8)]))") }
            var request = RandomRequest(method: .get, uri: pick(["/events", "/events/sse"]))
            if chance(30) { query.append("until=\(chance(80) ? String(int(0...100)) : number())") }
            if chance(20) { query.append("retry=\(number())") }
            if chance(10) {
                query.append("dropAfter=\(int(0...5))")
                request.mayBreakBody = true
            }
            if chance(30) { request.headers[HTTPField.Name("Last-Event-ID")!] = number() }
            request.uri += "?" + query.map(Self.query).joined(separator: "&")
            return request
        case 13:
            let status = chance(70) ? pick(["301", "302", "303", "307", "308"]) : number()
            return RandomRequest(
                method: .get,
                uri: chance(50)
                    ? "/redirect/\(Self.segment(number()))?status=\(Self.query(status))"
                    : "/redirect-to?url=\(Self.query(pick(["/health", "http://example.com/x", "//evil", "javascript:x", junk(100)])))&status=\(Self.query(status))"
            )
        case 14:
            return RandomRequest(method: .get, uri: "/echo/headers", headers: [.userAgent: headerValue()])
        case 15:
            return RandomRequest(
                method: .get,
                uri:
                    "/flaky/\(Self.segment(chance(50) ? "key-\(int(0...200))" : junk(250)))?failures=\(pick(["0", "1", "3", number()]))&retryAfter=\(pick(["0", "1", number()]))",
                deliberateFailure: [503]
            )
        case 16:
            // Out of range only: see `waitsRefused`.
            return RandomRequest(method: .get, uri: "/slow?ms=\(Self.query(pick(Self.waitsRefused)))")
        case 17:
            return RandomRequest(
                method: .get,
                uri: "/json/items?count=\(Self.query(chance(80) ? String(int(0...1_000)) : number()))"
            )
        case 18:
            let date = pick([
                Self.failingDate, "1995-06-16", "2020-02-29", "2021-02-29", "1995-06-15", "9999-12-31", "2020-1-1",
                junk(12),
            ])
            var request = RandomRequest(method: .get, uri: "/photos?date=\(Self.query(date))")
            if date == Self.failingDate { request.deliberateFailure.insert(500) }
            knobs(&request)
            if chance(20) { request.uri = "/photos/dates?count=\(Self.query(number()))&seed=\(Self.query(number()))" }
            return request
        case 19:
            let name = pick(
                Self.smallImages + ["corrupt.png", "garbage.jpg", "huge.png", junk(30), "../../etc/passwd"]
            )
            var request = RandomRequest(method: .get, uri: chance(20) ? "/images" : "/images/\(Self.segment(name))")
            knobs(&request)
            return request
        default:
            // No route: odd paths, long ones, encoded ones.
            let path = pick([
                "/" + (0..<int(0...6)).map { _ in Self.segment(junk(12)) }.joined(separator: "/"),
                "/" + String(repeating: "a/", count: int(1...4_000)),
                "/%00", "/..%2f..%2f", "//", "/health/../auth/login", "*", "/" + String(repeating: "%", count: 100),
            ])
            return RandomRequest(
                method: pick([.get, .post, .delete]),
                uri: path,
                body: chance(30) ? ByteBuffer(string: junk(1_000)) : nil
            )
        }
    }

    /// `?fail=` and `?delay=` on the photo and image routes.
    private mutating func knobs(_ request: inout RandomRequest) {
        guard chance(30) else { return }
        let separator = request.uri.contains("?") ? "&" : "?"
        if chance(50) {
            let status = chance(80) ? int(400...599) : int(-1_000...1_000)
            request.uri += "\(separator)fail=\(status)"
            if (500...599).contains(status) { request.deliberateFailure.insert(status) }
        } else {
            request.uri += "\(separator)delay=\(Self.query(pick(["0"] + Self.waitsRefused)))"
        }
    }

    private mutating func upload() -> RandomRequest {
        var request = RandomRequest(method: .post, uri: "/uploads")
        switch int(0...3) {
        case 0:
            request.body = ByteBuffer(
                bytes: (0..<int(0...300_000)).map { _ in UInt8.random(in: 0...255, using: &random) }
            )
        case 1:
            let boundary = pick(["b", "----x", String(repeating: "q", count: 70)])
            request.headers[.contentType] = "multipart/form-data; boundary=\(boundary)"
            request.body = multipartBody(boundary: boundary)
        case 2:
            // A declared length with no body, or one far past the limit.
            request.headers[.contentLength] = pick([
                "99999999999999999999", "9223372036854775807", "-1", "1e9", "300000", number(),
            ])
        default:
            request.headers[.contentType] = pick([
                "multipart/form-data", "multipart/form-data; boundary=\"\"",
                "multipart/form-data; boundary=" + String(repeating: "x", count: 71),
            ])
            request.body = ByteBuffer(string: junk(500))
        }
        return request
    }

    private mutating func download() -> RandomRequest {
        // Small files only: the test client holds each body whole.
        let name = pick([
            "1MiB.bin", "1KiB.bin", "0B.bin", "1B.bin", "100B.bin", "2MiB.bin", "5GiB.bin", "99999999999GiB.bin",
            "12345678901B.bin", "x.bin", junk(20),
        ])
        var uri = "/downloads/\(Self.segment(name))"
        var query: [String] = []
        if name == "x.bin" || chance(10) { query.append("bytes=\(chance(70) ? String(int(0...2_000_000)) : number())") }
        var request = RandomRequest(method: .get, uri: uri)
        if chance(10) {
            query.append("cutAt=\(chance(70) ? String(int(0...1_000_000)) : number())")
            request.mayBreakBody = true
        }
        if !query.isEmpty { uri += "?" + query.map(Self.query).joined(separator: "&") }
        request.uri = uri
        request.headers[.range] = hostileRange()
        if chance(20) { request.headers[.ifRange] = pick(["\"download-v1-1048576\"", "\"other\"", junk(20)]) }
        return request
    }

    /// One path segment, percent-encoded.
    static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/")))
            ?? "x"
    }

    /// A query item `name=value` with its value percent-encoded.
    static func query(_ item: String) -> String {
        guard let equals = item.firstIndex(of: "=") else {
            return item.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "x"
        }
        let value = item[item.index(after: equals)...]
        return item[...equals] + (value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "x")
    }

    static func json(_ fields: [String: String]) -> String {
        (try? JSONSerialization.data(withJSONObject: fields)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
