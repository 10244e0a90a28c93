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
///   bytes of its body, as the server sent them, when its status is not
///   2xx; a 2xx answer other than the one asked for (another 2xx status,
///   another content type) is
///   ``BaselineHTTP/HTTPClientError/decodingFailed(underlying:bodyExcerpt:)``.
///   The case asked for is what counts as success here: the client's
///   `acceptableStatusCodes` do not apply.
/// - **A `ClientError`** becomes the error under it: the transport's
///   `HTTPClientError` or `CancellationError`, or what a middleware of the
///   generated client threw. One the runtime raised itself becomes
///   `decodingFailed` (a body that does not match the document),
///   `unacceptableStatus` (the same, for an error status), or
///   `invalidRequest` (an input that could not be made a request).
/// - **Anything else** (the errors `body` throws itself, or throws after
///   matching a documented case) passes through unchanged.
///
/// The answer reported is the latest one received inside `body`: check each
/// answer before making the next call, as `.ok` does, and make concurrent
/// calls (`async let`, tasks) in separate `withHTTPClientErrors` calls. The
/// body excerpt is taken as the generated code reads the body; a body it did
/// not read (an undocumented status) is read when the error is made, for
/// as long as the transport's read timeout allows, and until then an
/// unread error body stays open while `body` runs.
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

    /// Starts the record of a new answer, replacing the one before;
    /// `owner` holds its body, nil for an answer without one.
    func record(_ head: HTTPResponse, owner: IncomingBody.Owner?) -> ResponseRecord {
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
                break
            }
            if let head = error.response {
                // The answer could not be decoded. Its body is the recorded
                // one only if the record is of this answer.
                let record = latest.current.flatMap { $0.head == head ? $0 : nil }
                return try await Self.answer(head, record: record, failing: error.underlyingError)
            }
            // A middleware of the generated client threw: its error is the one to see.
            if error.request != nil { return error.underlyingError }
            return HTTPClientError.invalidRequest(
                reason: "\(error.causeDescription) (\(error.underlyingError))"
            )
        default:
            guard Self.isUnexpectedAnswer(error), let record = latest.current else { return error }
            return try await Self.answer(record.head, record: record, failing: error)
        }
    }

    /// Whether `error` is what the generated output's `.ok` (another case)
    /// or a body's `.json` (another content type) throws. The runtime keeps
    /// its type internal: its name and the case's tell it from the runtime's
    /// other errors (a bad server URL, a multipart part), which pass through.
    static func isUnexpectedAnswer(_ error: any Error) -> Bool {
        guard String(reflecting: type(of: error)) == "OpenAPIRuntime.RuntimeError" else { return false }
        switch Mirror(reflecting: error).children.first?.label {
        case "unexpectedResponseStatus", "unexpectedResponseBody": return true
        default: return false
        }
    }

    /// The error for an answer with `head` that the caller could not use
    /// because of `failure`: the status if it is not 2xx, else the decoding.
    private static func answer(
        _ head: HTTPResponse,
        record: ResponseRecord?,
        failing failure: any Error
    ) async throws -> HTTPClientError {
        let body = try await record?.excerpt() ?? Data()
        guard head.status.kind == .successful else { return .unacceptableStatus(head, body: body) }
        return .decodingFailed(failure, body: body)
    }
}

/// One answer's head, and the first bytes of its body as the generated
/// code reads them.
final class ResponseRecord: Sendable {
    let head: HTTPResponse
    /// For an error status, keeps the body open for ``excerpt()`` while the
    /// record lives, should the generated code not read it. A 2xx body is
    /// not held: one dropped unread stops at once, as it does outside
    /// `withHTTPClientErrors`.
    private let owner: IncomingBody.Owner?
    /// Whether a reader started, and the body's first bytes as read.
    private let state = LockedValue((started: false, bytes: Data()))

    init(head: HTTPResponse, owner: IncomingBody.Owner?) {
        self.head = head
        self.owner = head.status.kind == .successful ? nil : owner
    }

    /// For a reader of the body: `chunk` was read at `offset`. Bytes kept
    /// already (a replayable body read again) are not kept twice.
    func read(_ chunk: Data, at offset: Int) {
        state.withLock { state in
            state.started = true
            let kept = state.bytes.count
            let limit = BaselineHTTP.HTTPClient.errorBodyLimit
            // `offset` counts bytes read before `chunk`; no sum can overflow
            // past the limit, which bounds `kept`.
            guard kept < limit, offset <= kept, chunk.count > kept - offset else { return }
            let fresh = chunk.dropFirst(kept - offset)
            state.bytes.append(fresh.prefix(limit - kept))
        }
    }

    /// For a reader of the body: it asked for the first chunk.
    func started() {
        state.withLock { $0.started = true }
    }

    /// The first bytes of the body: those the generated code read, or, if
    /// it did not start reading (an undocumented status), read now.
    func excerpt() async throws -> Data {
        let (started, bytes) = state.current
        guard !started, let owner else { return bytes }
        return try await HTTPClientError.unacceptableStatus(head, reading: owner.body).responseBody ?? Data()
    }
}
