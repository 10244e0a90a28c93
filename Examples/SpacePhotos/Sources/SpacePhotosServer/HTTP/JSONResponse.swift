import Foundation
import Hummingbird

extension Response {
    /// A 200 answer of `value` as JSON, for top-level arrays, which
    /// Hummingbird's `ResponseEncodable` does not cover.
    static func json(_ value: some Encodable) throws -> Response {
        let encoder = JSONEncoder()
        // URLs read as written, not with escaped slashes.
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return Response(
            status: .ok,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: try encoder.encode(value)))
        )
    }
}
