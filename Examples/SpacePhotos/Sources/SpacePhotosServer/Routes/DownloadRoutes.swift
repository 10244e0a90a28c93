import Foundation
import HTTPTypes
import Hummingbird

/// `GET /downloads/{name}`: a large file generated as it is sent (for
/// `URLSession.download(from:)`), never held whole in memory.
///
/// The name gives the size: `<n><unit>.bin` with unit `B`, `KiB`, `MiB` or
/// `GiB` (`1MiB.bin`, `64MiB.bin`, `1GiB.bin`); or any `<name>.bin` with
/// `?bytes=<n>`. At most ``maximumSize`` (4 GiB). The content is
/// ``DownloadPattern``, so clients can verify it; `Content-Length` and
/// `ETag` are set, and a matching `If-None-Match` gets 304.
///
/// One byte range is served (`Range: bytes=…`, read by ``ByteRange``: 206
/// with `Content-Range`; 416 with `Content-Range: bytes */<size>` when no
/// byte of it exists), unless `If-Range` names another tag: then the whole
/// file, as RFC 9110 asks, which is how a client learns that the file it
/// resumes changed.
///
/// Test knob: `?cutAt=<offset>` closes the connection once the bytes before
/// that offset are sent: a transfer that breaks. It applies to the whole
/// file only, not to a range, so a resume gets the rest (the bytes in flight
/// when the connection closed may be lost, so a resume can start before the
/// cut).
struct DownloadRoutes: Sendable {
    static let maximumSize = 4 * 1024 * 1024 * 1024

    func add(to router: Router<ServerRequestContext>) {
        router.get("downloads/:name") { request, context -> Response in
            let name = context.parameters.get("name") ?? ""
            let size = try Self.size(name: name, bytes: request.uri.queryParameters.get("bytes"))
            let cut = try request.integerParameter("cutAt", in: 0...Self.maximumSize)
            // The content depends only on the size: the size names it.
            let tag = EntityTag("download-v1-\(size)")
            var headers: HTTPFields = [
                .eTag: tag.headerValue,
                .cacheControl: "public, max-age=3600",
                .contentDisposition: "attachment; filename=\"\(name)\"",
                .acceptRanges: "bytes",
            ]
            if tag.isMatched(byIfNoneMatch: request.headers[.ifNoneMatch]) {
                // A 304's Content-Length, if any, must be the full answer's (RFC 9110 §8.6), not 0.
                headers[.contentLength] = String(size)
                return Response(status: .notModified, headers: headers)
            }
            headers[.contentType] = "application/octet-stream"
            // If-Range takes a strong tag only; anything else means "send it all".
            let ifRange = request.headers[.ifRange]
            let range: ByteRange =
                ifRange == nil || ifRange == tag.headerValue
                ? ByteRange(header: request.headers[.range], size: size) : .whole
            switch range {
            case .whole:
                return Response(status: .ok, headers: headers, body: Self.body(0..<size, cutAt: cut))
            case let .satisfiable(bytes):
                headers[.contentRange] = "bytes \(bytes.lowerBound)-\(bytes.upperBound - 1)/\(size)"
                return Response(status: .partialContent, headers: headers, body: Self.body(bytes))
            case .unsatisfiable:
                headers[.contentRange] = "bytes */\(size)"
                headers[.contentType] = nil
                return Response(status: .rangeNotSatisfiable, headers: headers)
            }
        }
    }

    /// Writes `bytes` of the file in chunks of 64 KiB: each write waits
    /// until the connection has taken the last, so a slow client slows the
    /// server down instead of making it buffer. With `cut`, the connection
    /// closes once the file's bytes before that offset are sent.
    static func body(_ bytes: Range<Int>, cutAt cut: Int? = nil) -> ResponseBody {
        ResponseBody(contentLength: bytes.count) { writer in
            var offset = bytes.lowerBound
            while offset < bytes.upperBound {
                var count = bytes.upperBound - offset
                if let cut, cut > offset { count = min(count, cut - offset) }
                let chunk = DownloadPattern.chunk(at: offset, count: count)
                try await writer.write(chunk)
                offset += chunk.readableBytes
                if let cut, offset == cut, offset < bytes.upperBound {
                    throw CutTransfer()
                }
            }
            try await writer.finish(nil)
        }
    }

    /// Thrown mid-body by `?cutAt=`: Hummingbird closes the connection.
    struct CutTransfer: Error {}

    /// The size a download's name and `bytes` parameter ask for.
    static func size(name: String, bytes: String?) throws -> Int {
        if let bytes {
            // Plain names only: the name goes back out in Content-Disposition.
            let plain = name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }
            guard plain, name.hasSuffix(".bin"), name.count > 4, name.count <= 128 else { throw notFound(name) }
            guard let size = Int(bytes), (0...maximumSize).contains(size) else {
                throw APIError(
                    .badRequest,
                    code: "bad_request",
                    message: "bytes must be an integer from 0 to \(maximumSize)."
                )
            }
            return size
        }
        guard let size = parse(name) else { throw notFound(name) }
        return size
    }

    /// The size `<n><unit>.bin` names, nil for any other name or a size over the maximum.
    static func parse(_ name: String) -> Int? {
        guard name.hasSuffix(".bin") else { return nil }
        let stem = name.dropLast(4)
        let digits = stem.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count <= 10, let count = Int(digits) else { return nil }
        let units = ["B": 1, "KiB": 1024, "MiB": 1024 * 1024, "GiB": 1024 * 1024 * 1024]
        guard let unit = units[String(stem.dropFirst(digits.count))] else { return nil }
        let (size, overflow) = count.multipliedReportingOverflow(by: unit)
        guard !overflow, size <= maximumSize else { return nil }
        return size
    }

    static func notFound(_ name: String) -> APIError {
        APIError(
            .notFound,
            code: "not_found",
            message:
                "No download is named \(name.prefix(128)). Try 1MiB.bin, 64MiB.bin, 1GiB.bin, or <name>.bin?bytes=<n>."
        )
    }
}
