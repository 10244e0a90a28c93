import BaselineHTTP
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A Baseline response body as the generated client reads it.
enum IncomingBody {
    /// `body` as an OpenAPI body that reads it as it arrives: of the same
    /// length, if known, and readable as often as `body` is. With a `limit`,
    /// reading fails with `HTTPClientError.responseTooLarge(limit:)` as soon
    /// as the body is known to be longer (by its length, or once more bytes
    /// have arrived), and the transfer stops.
    ///
    /// Inside `withHTTPClientErrors`, the answer is recorded, and its first
    /// bytes as they are read, for the errors it throws.
    static func make(from body: BaselineHTTP.HTTPBody, head: HTTPResponse, limit: Int?) -> OpenAPIRuntime.HTTPBody {
        let owner = Owner(body)
        let record = ResponseRecorder.current?.record(head, owner: owner)
        return OpenAPIRuntime.HTTPBody(
            Chunks(body: body, limit: limit, owner: owner, record: record),
            length: body.knownLength.map { .known(Int64($0)) } ?? .unknown,
            iterationBehavior: body.isReplayable ? .multiple : .single
        )
    }

    /// Whether the OpenAPI runtime reads a response body with these fields
    /// whole into memory before decoding it (and with no limit of its own):
    /// JSON, URL-encoded forms and XML, and a body whose `Content-Type` is
    /// missing, malformed or a wildcard, which the generated code takes for
    /// the operation's first documented type. Other bodies (binary, text,
    /// multipart) reach the caller as streams.
    static func isReadWhole(_ fields: HTTPFields) -> Bool {
        guard let value = fields[.contentType] else { return true }
        // The essence, `type/subtype`, compared byte by byte: this runs for
        // every response, and Foundation's trimming and lowercasing took
        // several microseconds of it.
        var essence = value.utf8[...]
        if let semicolon = essence.firstIndex(of: UInt8(ascii: ";")) { essence = essence[..<semicolon] }
        while let first = essence.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
            essence = essence.dropFirst()
        }
        while let last = essence.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") {
            essence = essence.dropLast()
        }
        guard let slash = essence.firstIndex(of: UInt8(ascii: "/")), !essence.contains(UInt8(ascii: "*")) else {
            return true
        }
        let type = essence[..<slash]
        let subtype = essence[essence.index(after: slash)...]
        guard !type.isEmpty, !subtype.isEmpty, !subtype.contains(UInt8(ascii: "/")) else { return true }
        if hasSuffix(subtype, "+json") || hasSuffix(subtype, "+xml") { return true }
        if matches(type, "application") {
            return matches(subtype, "json") || matches(subtype, "x-www-form-urlencoded") || matches(subtype, "xml")
        }
        return matches(type, "text") && matches(subtype, "xml")
    }

    /// Whether `bytes` are `lowercase`, ASCII letters in either case.
    private static func matches(_ bytes: Substring.UTF8View, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        return lowercase.withUTF8Buffer { expected in
            zip(bytes, expected).allSatisfy { byte, wanted in
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 == wanted : byte == wanted
            }
        }
    }

    /// Whether `bytes` end with `lowercase`, ASCII letters in either case.
    private static func hasSuffix(_ bytes: Substring.UTF8View, _ lowercase: StaticString) -> Bool {
        let count = lowercase.utf8CodeUnitCount
        guard bytes.count >= count else { return false }
        return matches(bytes[bytes.index(bytes.endIndex, offsetBy: -count)...], lowercase)
    }

    /// Stops a body that was not read to its end once nothing holds it any
    /// more: a response the generated code had no use for (a documented
    /// 404 without content), or one whose reader stopped early.
    final class Owner: Sendable {
        let body: BaselineHTTP.HTTPBody

        init(_ body: BaselineHTTP.HTTPBody) {
            self.body = body
        }

        deinit {
            // Nothing for a body read to its end, or held in memory.
            body.discard()
        }
    }

    /// The body's chunks as the OpenAPI runtime takes them.
    struct Chunks: AsyncSequence, Sendable {
        typealias Element = ArraySlice<UInt8>

        let body: BaselineHTTP.HTTPBody
        let limit: Int?
        let owner: Owner
        let record: ResponseRecord?

        func makeAsyncIterator() -> Iterator {
            Iterator(base: body.makeAsyncIterator(), limit: limit, owner: owner, record: record)
        }

        struct Iterator: AsyncIteratorProtocol {
            var base: BaselineHTTP.HTTPBody.Iterator
            let limit: Int?
            let owner: Owner
            let record: ResponseRecord?
            var received = 0
            var started = false

            init(base: BaselineHTTP.HTTPBody.Iterator, limit: Int?, owner: Owner, record: ResponseRecord?) {
                self.base = base
                self.limit = limit
                self.owner = owner
                self.record = record
            }

            mutating func next() async throws -> ArraySlice<UInt8>? {
                if !started {
                    started = true
                    record?.started()
                    if let limit, let length = owner.body.knownLength, length > limit {
                        throw tooLarge(limit)
                    }
                }
                let next: Data?
                do {
                    next = try await base.next()
                } catch let error as HTTPClientError {
                    throw error
                } catch {
                    // The contract of the client's own calls: cancellation as
                    // itself, any other failure as a transport error.
                    if error is CancellationError || Task.isCancelled { throw CancellationError() }
                    throw HTTPClientError.transport(underlying: error)
                }
                guard let chunk = next else { return nil }
                if let limit {
                    // Compared before adding: no overflow, whatever the limit.
                    guard chunk.count <= limit - received else { throw tooLarge(limit) }
                }
                record?.read(chunk, at: received)
                // Bytes that arrived: an Int counts more than any transfer.
                received += chunk.count
                return ArraySlice(chunk)
            }

            private func tooLarge(_ limit: Int) -> HTTPClientError {
                owner.body.discard()
                return .responseTooLarge(limit: limit)
            }
        }
    }
}
