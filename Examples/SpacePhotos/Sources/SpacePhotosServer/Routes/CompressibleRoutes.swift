import Foundation
import HTTPTypes
import Hummingbird

/// `GET /compressible/{text|zeros}`: a body compressed on request, for the
/// client's transparent decompression.
///
/// The server answers with gzip or deflate when `Accept-Encoding` allows
/// (gzip first), else with the bytes as they are; `Vary: Accept-Encoding`
/// says so. The content is ``CompressibleContent``.
///
/// - `?bytes=<n>`: the size before compression (default 200,000; at most 16 MiB of text, 256 MiB of zeros).
/// - `?deflate=raw`: `deflate` as bare deflate data, as some servers send it,
///   instead of the zlib stream RFC 9110 asks for.
/// - `?truncate=<n>`: drop the last `n` compressed bytes (`Content-Length`
///   matches): a complete HTTP answer whose compressed data stops short.
struct CompressibleRoutes: Sendable {
    static let maximumSize = 256 * 1024 * 1024
    static let maximumTextSize = 16 * 1024 * 1024

    func add(to router: Router<ServerRequestContext>) {
        router.get("compressible/:kind") { request, context -> Response in
            let name = context.parameters.get("kind") ?? ""
            guard let content = CompressibleContent(rawValue: name) else {
                throw APIError(.notFound, code: "not_found", message: "Try /compressible/text or /compressible/zeros.")
            }
            let limit = content == .text ? Self.maximumTextSize : Self.maximumSize
            let size = try request.integerParameter("bytes", in: 0...limit) ?? 200_000
            let truncate = try request.integerParameter("truncate", in: 0...Self.maximumSize) ?? 0
            var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8", .vary: "Accept-Encoding"]
            let coding = ContentNegotiation.coding(forAcceptEncoding: request.headers[.acceptEncoding])
            guard let coding else {
                return Response(
                    status: .ok,
                    headers: headers,
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: content.bytes(count: size)))
                )
            }
            let format: Deflater.Format =
                coding == "gzip" ? .gzip : request.uri.queryParameters.get("deflate") == "raw" ? .raw : .zlib
            var encoded = try Self.compress(content, count: size, format: format)
            encoded.removeLast(min(truncate, encoded.count))
            headers[.contentEncoding] = coding
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: encoded)))
        }
    }

    /// The content compressed a megabyte at a time, so a large body of zeros
    /// never sits in memory uncompressed.
    static func compress(_ content: CompressibleContent, count: Int, format: Deflater.Format) throws -> [UInt8] {
        let deflater = try Deflater(format)
        let step = 1024 * 1024
        // Text is at most 16 MiB: made whole. Zeros are made a step at a time.
        let text = content == .text ? content.bytes(count: count) : []
        var output: [UInt8] = []
        var offset = 0
        repeat {
            let length = min(step, count - offset)
            let slice = content == .zeros ? [UInt8](repeating: 0, count: length) : Array(text[offset..<offset + length])
            offset += length
            output += try deflater.deflate(slice, finish: offset == count)
        } while offset < count
        return output
    }
}
