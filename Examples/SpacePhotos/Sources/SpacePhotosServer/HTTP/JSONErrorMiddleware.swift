import HTTPTypes
import Hummingbird
import Logging

/// Turns every error into a JSON error answer, so clients parse one shape.
///
/// Hummingbird's own errors (malformed JSON, missing fields, an oversized body,
/// an unknown route) arrive as `HTTPResponseError`s; anything unexpected becomes a 500
/// whose message does not leak internals.
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            return try error.response(from: request, context: context)
        } catch let error as any HTTPResponseError {
            // Hummingbird's HTTPError, and NIO's errors it maps (a body over
            // the size limit arrives as NIOTooManyBytesError).
            let apiError = APIError(
                error.status,
                code: Self.code(for: error.status),
                message: (error as? HTTPError)?.body ?? Self.message(for: error.status, request: request),
                headers: (error as? HTTPError)?.headers ?? [:]
            )
            return try apiError.response(from: request, context: context)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            context.logger.error("Unhandled error", metadata: ["error.type": "\(type(of: error))"])
            return try APIError(.internalServerError, code: "internal", message: "Internal server error")
                .response(from: request, context: context)
        }
    }

    /// What a person can do about an error Hummingbird raised without a message.
    static func message(for status: HTTPResponse.Status, request: Request) -> String {
        switch status {
        case .notFound:
            // The router found no route: say which, and where the routes are listed.
            "There is no \(request.method) \(request.uri.path.prefix(200)) on this server (the routes are in openapi.json)."
        default:
            status.reasonPhrase
        }
    }

    static func code(for status: HTTPResponse.Status) -> String {
        switch status {
        case .badRequest: "bad_request"
        case .notFound: "not_found"
        case .methodNotAllowed: "method_not_allowed"
        case .contentTooLarge: "body_too_large"
        case .unsupportedMediaType: "unsupported_media_type"
        case .unauthorized: "unauthenticated"
        case .tooManyRequests: "rate_limited"
        default: status.code >= 500 ? "internal" : "client_error"
        }
    }
}
