import Foundation
import HTTPTypes

/// A response whose body is still arriving.
public struct StreamingResponse: Sendable {
    /// The response head: status and header fields.
    public let head: HTTPResponse
    /// The body, as an `AsyncSequence` of chunks; read it once. Stopping
    /// early (leaving the loop, or cancelling the reading task) stops the
    /// transfer.
    public let body: HTTPBody

    /// The response status.
    public var status: HTTPResponse.Status { head.status }
}

extension HTTPClient {
    /// Sends `request` and returns as soon as the response head arrives, with
    /// the body to read as it comes: bytes, ``HTTPBody/lines(maximumLength:)``,
    /// ``HTTPBody/jsonLines(of:decoder:maximumLineLength:)`` (NDJSON) or
    /// ``HTTPBody/serverSentEvents(maximumLineLength:maximumEventLength:)``.
    ///
    /// ```swift
    /// let events = try await client.stream(Request<Void>.get("/events"))
    /// for try await update in events.body.jsonLines(of: PhotoMetadata.self) {
    ///     model.apply(update)
    /// }
    /// ```
    ///
    /// The status is checked first: an unacceptable one throws
    /// ``HTTPClientError/unacceptableStatus(_:body:)`` with the start of the
    /// body. The timeout, if any, applies up to the head, and for an
    /// unacceptable status to reading the start of its body too, so an error
    /// body that stalls cannot hold the call past it.
    public func stream<Value>(_ request: Request<Value>) async throws -> StreamingResponse {
        let (head, body) = try makeHTTPRequest(request)
        return try await streamingResponse(
            head,
            body: body,
            timeout: request.timeout ?? configuration.timeout,
            acceptable: request.acceptableStatusCodes ?? configuration.acceptableStatusCodes
        )
    }

    /// Sends `head` and `body` through the middleware and returns at the
    /// response head, its status checked against `acceptable` unless that
    /// is nil; `timeout`, if any, applies up to the head (and to reading
    /// the start of an unacceptable response's body).
    func streamingResponse(
        _ head: HTTPRequest,
        body: HTTPBody?,
        timeout: Duration?,
        acceptable: Range<Int>?
    ) async throws -> StreamingResponse {
        let chain = self.chain
        let exchange: @Sendable () async throws -> StreamingResponse = {
            let (responseHead, responseBody) = try await Self.perform(head, body: body, on: chain)
            if let acceptable { try await Self.validate(responseHead, body: responseBody, acceptable: acceptable) }
            return StreamingResponse(head: responseHead, body: responseBody)
        }
        guard let timeout else { return try await exchange() }
        return try await Self.withTimeout(timeout, on: configuration.clock, exchange)
    }

    /// Throws ``HTTPClientError/unacceptableStatus(_:body:)`` for a status
    /// outside `acceptable`, with the body's first bytes; a body left unread
    /// (the read cancelled, by a timeout say) is stopped.
    static func validate(_ head: HTTPResponse, body: HTTPBody, acceptable: Range<Int>) async throws {
        guard !acceptable.contains(head.status.code) else { return }
        throw try await HTTPClientError.unacceptableStatus(head, reading: body)
    }

    /// The first ``errorBodyLimit`` bytes of an error response's body; a
    /// body that breaks gives what arrived (the status is the error worth
    /// reporting), one left unread by cancellation is stopped.
    static func errorExcerpt(of body: HTTPBody) async throws -> Data {
        var excerpt = Data()
        do {
            for try await chunk in body {
                excerpt.append(chunk.prefix(Self.errorBodyLimit - excerpt.count))
                if excerpt.count >= Self.errorBodyLimit { break }
            }
        } catch is CancellationError {
            body.discard()
            throw CancellationError()
        } catch {
            // What arrived is all there is.
        }
        return excerpt
    }
}
