import Foundation
import NIOCore
import NIOHTTP1

/// Answers a refused WebSocket upgrade with the server's JSON error (401
/// for a missing or stale token, so that clients know to refresh it).
///
/// hummingbird-websocket answers every refused upgrade with an empty 400 of
/// its own, and the request never reaches the router. So the refusal is
/// written here, on the connection, while the upgrade is being decided;
/// then the connection's sending side is shut, and the 400 written after it
/// goes nowhere. The client reads one answer, then the end of the stream.
enum UpgradeRefusal {
    /// Sends `error` on `channel` as a complete HTTP/1.1 answer with
    /// `Connection: close`, then shuts the channel's output.
    static func send(_ error: APIError, on channel: any Channel) {
        guard
            let body = try? JSONEncoder().encode(
                APIError.Document(error: .init(code: error.code, message: error.message))
            )
        else {
            channel.close(promise: nil)
            return
        }
        var headers = HTTPHeaders()
        for field in error.headers { headers.add(name: field.name.canonicalName, value: field.value) }
        headers.replaceOrAdd(name: "content-type", value: "application/json; charset=utf-8")
        headers.replaceOrAdd(name: "content-length", value: String(body.count))
        headers.replaceOrAdd(name: "connection", value: "close")
        let head = HTTPResponseHead(
            version: .http1_1,
            status: HTTPResponseStatus(statusCode: error.status.code, reasonPhrase: error.status.reasonPhrase),
            headers: headers
        )
        let parts: [HTTPServerResponsePart] = [.head(head), .body(.byteBuffer(ByteBuffer(bytes: body))), .end(nil)]
        @Sendable func write() {
            // Written from the connection's end of the pipeline: through the
            // HTTP encoder, which is still in place while an upgrade is decided.
            let pipeline = channel.pipeline.syncOperations
            for part in parts.dropLast() { pipeline.write(NIOAny(part), promise: nil) }
            let promise = channel.eventLoop.makePromise(of: Void.self)
            pipeline.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)), promise: promise)
            promise.futureResult.whenComplete { _ in channel.close(mode: .output, promise: nil) }
        }
        if channel.eventLoop.inEventLoop {
            write()
        } else {
            channel.eventLoop.execute(write)
        }
    }
}
