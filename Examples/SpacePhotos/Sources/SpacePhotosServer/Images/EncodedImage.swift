import HTTPTypes
import Hummingbird

/// An image file ready to send: its bytes, media type and entity tag.
/// Encoded once and kept, so serving it costs no more than the copy out.
struct EncodedImage: Sendable {
    let contentType: String
    let bytes: ByteBuffer
    let entityTag: EntityTag

    /// A PNG of `bitmap`, tagged by its content.
    static func png(_ bitmap: Bitmap, tagPrefix: String) throws(ImageEncoder.Failure) -> EncodedImage {
        let file = try ImageEncoder.png(bitmap)
        return EncodedImage(
            contentType: "image/png",
            bytes: ByteBuffer(bytes: file),
            entityTag: .digest(of: file, prefix: tagPrefix)
        )
    }

    /// A file of `bytes` served as `contentType`, tagged by its content.
    init(bytes: [UInt8], contentType: String, tagPrefix: String) {
        self.contentType = contentType
        self.bytes = ByteBuffer(bytes: bytes)
        self.entityTag = .digest(of: bytes, prefix: tagPrefix)
    }

    init(contentType: String, bytes: ByteBuffer, entityTag: EntityTag) {
        self.contentType = contentType
        self.bytes = bytes
        self.entityTag = entityTag
    }

    /// The image, or 304 Not Modified when the request already has it.
    ///
    /// Cacheable by anyone (`public`): the images are the same for every
    /// client. By default only for a minute, which keeps "random" picks fresh.
    func response(to request: Request, cacheControl: String = "public, max-age=60") -> Response {
        var headers: HTTPFields = [
            .eTag: entityTag.headerValue,
            .cacheControl: cacheControl,
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
