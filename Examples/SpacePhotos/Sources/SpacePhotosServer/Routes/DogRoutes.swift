import Foundation
import Hummingbird

/// `GET /dogs/random`: a PNG of a dog (the "fetch a dog photo" of URLSession tours),
/// drawn by the server: one of a few variants, picked at random.
///
/// `?variant=<0…3>` asks for one variant, so a client can test caching with
/// a stable `ETag`. Answers carry `ETag` and `Cache-Control: public,
/// max-age=60`; a matching `If-None-Match` gets 304.
struct DogRoutes: Sendable {
    func add(to router: Router<ServerRequestContext>) {
        router.get("dogs/random") { request, _ -> Response in
            let gallery = DogGallery.shared
            guard !gallery.isEmpty else {
                throw APIError(.internalServerError, code: "internal", message: "No dog pictures could be drawn.")
            }
            let index: Int
            if let text = request.uri.queryParameters.get("variant") {
                guard let variant = Int(text), gallery.indices.contains(variant) else {
                    throw APIError(
                        .badRequest,
                        code: "bad_request",
                        message: "The variant must be an integer from 0 to \(gallery.count - 1)."
                    )
                }
                index = variant
            } else {
                index = Int.random(in: gallery.indices)
            }
            return gallery[index].response(to: request)
        }
    }
}

/// The dog pictures, drawn and encoded on first use and kept: every server
/// in the process shares them, as they are the same for all.
enum DogGallery {
    static let side = 256
    static let variants = 4

    static let shared: [EncodedImage] = (0..<variants).compactMap { index in
        // The sizes are constants within the bitmap's limits, so drawing
        // cannot fail, and encoding fails only when memory runs out.
        guard let bitmap = try? ProceduralImage.spaceDog(width: side, height: side, seed: UInt64(0xD06 + index)) else {
            return nil
        }
        return try? EncodedImage.png(bitmap, tagPrefix: "dog\(index)-")
    }
}
