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
        let essence = value.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces).lowercased()
        let parts = essence.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, !essence.contains("*") else { return true }
        let (type, subtype) = (parts[0], parts[1])
        if subtype.hasSuffix("+json") || subtype.hasSuffix("+xml") { return true }
        switch (type, subtype) {
        case ("application", "json"), ("application", "x-www-form-urlencoded"), ("application", "xml"),
            ("text", "xml"):
            return true
        default:
            return false
        }
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
                    received += chunk.count
                }
                record?.read(chunk)
                return ArraySlice(chunk)
            }

            private func tooLarge(_ limit: Int) -> HTTPClientError {
                owner.body.discard()
                return .responseTooLarge(limit: limit)
            }
        }
    }
}
