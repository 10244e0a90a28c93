import HTTPTypes
import Hummingbird

/// An image file ready to send: its bytes, media type and entity tag.
/// Encoded once and kept, so serving it costs no more than the copy out.
struct EncodedImage: Sendable {
    let contentType: String
    let bytes: ByteBuffer
    let entityTag: EntityTag

    /// A PNG of `bitmap`, tagged by its content.
    static func png(_ bitmap: Bitmap, tagPrefix: String) -> EncodedImage {
        let file = PNGEncoder.encode(bitmap)
        return EncodedImage(
            contentType: "image/png",
            bytes: ByteBuffer(bytes: file),
            entityTag: .digest(of: file, prefix: tagPrefix)
        )
    }

    /// The image, or 304 Not Modified when the request already has it.
    ///
    /// Cacheable for a minute by anyone (`public`): the images are the same
    /// for every client, and a short lifetime keeps "random" picks fresh.
    func response(to request: Request) -> Response {
        var headers: HTTPFields = [
            .eTag: entityTag.headerValue,
            .cacheControl: "public, max-age=60",
        ]
        if entityTag.isMatched(byIfNoneMatch: request.headers[.ifNoneMatch]) {
            // A 304's Content-Length, if any, must be the full answer's (RFC 9110 §8.6), not 0.
            headers[.contentLength] = String(bytes.readableBytes)
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = contentType
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: bytes))
    }
}
