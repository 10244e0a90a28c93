import BaselineConcurrency
import BaselineHTTP
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Runs calls of a generated client and throws what a ``BaselineHTTP/Request``
/// sent through the same ``BaselineHTTP/HTTPClient`` would have thrown, so
/// that code which matches on ``BaselineHTTP/HTTPClientError`` (a 401 ends
/// the session, an unreachable server shows an offline screen) works the
/// same with either:
///
/// ```swift
/// func me() async throws -> User {
///     try await withHTTPClientErrors { try User(await api.me().ok.body.json) }
/// }
/// ```
///
/// A generated client answers every status with a case of the operation's
/// output, and the OpenAPI runtime wraps every error in its `ClientError`.
/// Inside `body`:
///
/// - **An answer other than the one asked for** (the error the output's
///   `.ok` or the body's `.json` throws) becomes
///   ``BaselineHTTP/HTTPClientError/unacceptableStatus(_:body:)`` with the
///   response's head and the first ``BaselineHTTP/HTTPClient/errorBodyLimit``
///   bytes of its body, as the server sent them; for a 2xx answer (a
///   different 2xx, or another content type) it is
///   ``BaselineHTTP/HTTPClientError/decodingFailed(underlying:bodyExcerpt:)``.
/// - **A `ClientError`** becomes the error under it: the transport's
///   `HTTPClientError`, or `CancellationError`. One the runtime raised
///   itself becomes `decodingFailed` (a body that does not match the
///   document), `unacceptableStatus` (the same, for an error status), or
///   `invalidRequest` (an input that could not be made a request).
/// - **Anything else** (the errors `body` throws itself, or throws after
///   matching a documented case) passes through unchanged.
///
/// The body excerpt is taken as the generated code reads the body, so
/// handling a documented case yourself costs nothing. An answer is
/// remembered until the next one in `body`: make concurrent calls in
/// separate `withHTTPClientErrors` calls.
public func withHTTPClientErrors<Value>(
    isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws -> Value
) async throws -> Value {
    let recorder = ResponseRecorder()
    do {
        return try await ResponseRecorder.$current.withValue(recorder, operation: body, isolation: isolation)
    } catch {
        throw try await recorder.translated(error)
    }
}

/// The latest response a transport received inside `withHTTPClientErrors`,
/// for its errors to report.
final class ResponseRecorder: Sendable {
    /// The recorder of the `withHTTPClientErrors` call the task is in.
    @TaskLocal static var current: ResponseRecorder?

    private let latest = LockedValue<ResponseRecord?>(nil)

    /// Starts the record of a new answer, replacing the one before.
    func record(_ head: HTTPResponse, owner: IncomingBody.Owner) -> ResponseRecord {
        let record = ResponseRecord(head: head, owner: owner)
        latest.withLock { $0 = record }
        return record
    }

    /// `error` as a request sent through `HTTPClient` would have thrown it.
    func translated(_ error: any Error) async throws -> any Error {
        switch error {
        case is HTTPClientError, is CancellationError:
            return error
        case let error as ClientError:
            switch error.underlyingError {
            case let error as HTTPClientError:
                return error
            case is CancellationError:
                return CancellationError()
            default:
                // The runtime's own: the input could not be encoded, or the
                // answer could not be decoded.
                guard let head = error.response else {
                    return HTTPClientError.invalidRequest(reason: error.causeDescription)
                }
                return try await answer(head, failing: error.underlyingError)
            }
        default:
            // The runtime keeps the type of the error `.ok` and `.json` throw
            // internal; its name is what tells it from the caller's own.
            guard String(reflecting: type(of: error)) == "OpenAPIRuntime.RuntimeError",
                let record = latest.current
            else { return error }
            return try await answer(record.head, failing: error)
        }
    }

    /// The error for an answer with `head` that the caller could not use
    /// because of `failure`: the status if it is not 2xx, else the decoding.
    private func answer(_ head: HTTPResponse, failing failure: any Error) async throws -> HTTPClientError {
        let body = try await latest.current?.excerpt() ?? Data()
        guard head.status.kind == .successful else { return .unacceptableStatus(head, body: body) }
        return .decodingFailed(failure, body: body)
    }
}

/// One answer's head, and the first bytes of its body as the generated
/// code reads them.
final class ResponseRecord: Sendable {
    let head: HTTPResponse
    /// Keeps the body alive (and open) for ``excerpt()`` while the record is.
    private let owner: IncomingBody.Owner
    /// Whether the reader started, and the first bytes it read.
    private let state = LockedValue((started: false, bytes: Data()))

    init(head: HTTPResponse, owner: IncomingBody.Owner) {
        self.head = head
        self.owner = owner
    }

    /// For the body's reader: `chunk` was read.
    func read(_ chunk: Data) {
        state.withLock { state in
            state.started = true
            let room = BaselineHTTP.HTTPClient.errorBodyLimit - state.bytes.count
            if room > 0 { state.bytes.append(chunk.prefix(room)) }
        }
    }

    /// For the body's reader: it asked for the first chunk.
    func started() {
        state.withLock { $0.started = true }
    }

    /// The first bytes of the body: those the generated code read, or, if
    /// it did not start reading (an undocumented status), read now.
    func excerpt() async throws -> Data {
        let (started, bytes) = state.current
        if started { return bytes }
        return try await HTTPClientError.unacceptableStatus(head, reading: owner.body).responseBody ?? Data()
    }
}
