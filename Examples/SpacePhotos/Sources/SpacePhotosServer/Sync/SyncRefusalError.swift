import BaselineSync
import Foundation
import HTTPTypes
import Hummingbird

/// A sync request refused with a ``SyncRefusal`` document:
/// `{"error": {"code", "message", "changes": [{"id", "code", "message"}]}}`,
/// the server's usual error shape with the changes at fault added.
///
/// The sync routes answer it themselves (``response()``): the server's
/// error middleware knows only the usual shape, and would drop `changes`.
struct SyncRefusalError: Error, Sendable {
    var status: HTTPResponse.Status
    var refusal: SyncRefusal

    init(
        _ status: HTTPResponse.Status,
        code: SyncRefusalCode,
        message: String,
        changes: [SyncRefusal.Change] = []
    ) {
        self.status = status
        refusal = SyncRefusal(.init(code: code, message: message, changes: changes))
    }

    /// The status a refusal with this code gets: 413 for sizes, 403 for
    /// another member's row, 400 for the rest.
    static func status(for code: SyncRefusalCode) -> HTTPResponse.Status {
        switch code {
        case .tooLarge, .pushTooLarge: .contentTooLarge
        case .notYours: .forbidden
        default: .badRequest
        }
    }

    /// A refusal of a push for `changes`, every one at fault, in push order:
    /// its code and status are the first one's.
    static func push(refusing changes: [SyncRefusal.Change]) -> SyncRefusalError {
        let code = changes.first?.code ?? .malformed
        let count = changes.count == 1 ? "One change" : "\(changes.count) changes"
        return SyncRefusalError(
            status(for: code),
            code: code,
            message: "\(count) of the push cannot be applied, so none of it was: see `changes`.",
            changes: changes
        )
    }

    /// The JSON answer.
    func response() throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: try encoder.encode(refusal)))
        )
    }
}
