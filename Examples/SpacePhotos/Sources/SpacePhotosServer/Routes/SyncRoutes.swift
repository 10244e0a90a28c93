import BaselineSync
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `POST /sync/push` and `GET /sync/pull`: the server side of Baseline's
/// sync protocol, each member's rows kept apart, with
/// `Authorization: Bearer <idToken>` as for `GET /members/me` (401 otherwise).
///
/// - `POST /sync/push`, body ``SyncPush``, → 200 ``SyncPushResult``. At most
///   ``maximumChanges`` changes and ``maximumPushBytes`` bytes, else 413
///   `push_too_large`. Every change is checked before anything is written,
///   and one bad change refuses the whole push, nothing applied, with a
///   ``SyncRefusal`` listing every change at fault: 400 `unknown_table`,
///   `malformed_change`, `invalid_field`, `clock_ahead`; 413
///   `value_too_large`; 403 `not_yours` for rows of another member (checked
///   once the rest passes). The refusal's code and status are those of its
///   first change. A body that is not JSON, or has no `changes` array, is a
///   400 `bad_request` in the usual error shape.
/// - `GET /sync/pull?after=<cursor>&limit=<n>` (`after` 0 by default,
///   `limit` 1…``maximumPullLimit``, ``defaultPullLimit`` by default; other
///   values 400 `bad_request`) → 200 ``SyncPage``; a cursor the server never
///   gave, or gave for data it has since lost (``SyncCursor``) → 400
///   `cursor_ahead` (a ``SyncRefusal``).
///
/// Each push that changes rows is announced on `GET /sync/live`
/// (``SyncSocketRoutes``).
struct SyncRoutes: Sendable {
    /// The most changes one push may carry.
    static let maximumChanges = 500
    /// The largest push body, in bytes: a value too large for its column is
    /// refused (413 `value_too_large`) only if its push fits in this.
    static let maximumPushBytes = 1024 * 1024
    static let defaultPullLimit = 500
    static let maximumPullLimit = 1000

    /// Checks bearer tokens, as `GET /members/me` does.
    let members: MemberRoutes
    let store: any SyncStore
    let feed: SyncCursorFeed
    let validator: SyncPushValidator

    func add(to router: Router<ServerRequestContext>) {
        router.post("sync/push") { request, _ -> Response in
            let member = try members.authenticate(request).id
            do {
                return try Response.json(try await push(request, member: member))
            } catch let refusal as SyncRefusalError {
                return try refusal.response()
            }
        }
        router.get("sync/pull") { request, _ -> Response in
            let member = try members.authenticate(request).id
            let after = try request.integerParameter("after", in: 0...Int.max) ?? 0
            let limit = try request.integerParameter("limit", in: 1...Self.maximumPullLimit) ?? Self.defaultPullLimit
            let epoch = store.epoch
            // Another epoch's cursor counted in data this server has lost.
            guard let cursor = SyncCursor(Int64(after), epoch: epoch) else {
                return try Self.cursorAhead(after).response()
            }
            do {
                var page = try await store.pull(member: member, after: cursor.seq, limit: limit)
                page.cursor = SyncCursor(seq: page.cursor, epoch: epoch).rawValue
                return try Response.json(page)
            } catch SyncStoreError.cursorAhead {
                return try Self.cursorAhead(after).response()
            }
        }
    }

    /// Reads, checks and applies a push; a ``SyncRefusalError`` or an
    /// ``APIError`` otherwise, nothing applied.
    func push(_ request: Request, member: String) async throws -> SyncPushResult {
        let body = try await readBody(request)
        guard body.changes.count <= Self.maximumChanges else {
            throw SyncRefusalError(
                .contentTooLarge,
                code: .pushTooLarge,
                message: "A push carries at most \(Self.maximumChanges) changes: push them in smaller batches."
            )
        }
        let faults = body.faults(validator)
        guard faults.isEmpty, let changes = body.decoded else { throw SyncRefusalError.push(refusing: faults) }
        let result: SyncPushResult
        do {
            result = try await store.push(changes, member: member)
        } catch SyncStoreError.notYours(let ids) {
            let foreign = Set(ids)
            throw SyncRefusalError.push(
                refusing: changes.filter { foreign.contains($0.id) }.map { change in
                    SyncRefusal.Change(
                        id: change.id,
                        code: .notYours,
                        message: "The row \(change.row) of \(change.table) belongs to another member."
                    )
                }
            )
        }
        // At once, for this server's sockets; the store's cursorChanges()
        // brings the same cursor again (the feed keeps the largest), and
        // other servers' pushes. The feed counts in `seq`s.
        feed.publish(result.cursor, member: member)
        return SyncPushResult(
            applied: result.applied,
            cursor: SyncCursor(seq: result.cursor, epoch: store.epoch).rawValue
        )
    }

    /// The body, at most ``maximumPushBytes`` (413 `push_too_large` past
    /// them, before they are buffered), decoded change by change.
    func readBody(_ request: Request) async throws -> SyncPushBody {
        // A declared length over the limit is refused before reading a byte.
        if let declared = request.declaredContentLength, declared > Self.maximumPushBytes {
            throw Self.tooLarge()
        }
        var request = request
        let bytes: ByteBuffer
        do {
            bytes = try await request.collectBody(upTo: Self.maximumPushBytes)
        } catch is NIOTooManyBytesError {
            // A chunked body declares no length: the limit applies as it arrives.
            throw Self.tooLarge()
        }
        guard bytes.readableBytes > 0 else {
            throw APIError(.badRequest, code: "bad_request", message: "A push needs a JSON body; it was empty.")
        }
        do {
            return try JSONDecoder().decode(SyncPushBody.self, from: Data(bytes.readableBytesView))
        } catch let error as DecodingError {
            throw APIError(.badRequest, code: "bad_request", message: Request.message(for: error))
        }
    }

    /// The refusal of a cursor the server never gave, or gave for data it
    /// has since lost: either way the device starts again from 0.
    static func cursorAhead(_ after: Int) -> SyncRefusalError {
        SyncRefusalError(
            .badRequest,
            code: .cursorAhead,
            message: "The cursor \(after) is not one this server gave for its current data. Pull again from 0."
        )
    }

    static func tooLarge() -> SyncRefusalError {
        SyncRefusalError(
            .contentTooLarge,
            code: .pushTooLarge,
            message: "A push body is at most \(maximumPushBytes) bytes: push the changes in smaller batches."
        )
    }
}
