import Hummingbird

/// What the server remembers of an upload: its size and digest, never its
/// bytes. Sent back by `POST /uploads` and `GET /uploads/{id}`.
struct UploadReceipt: ResponseCodable, Sendable, Equatable {
    var id: String
    var bytes: Int
    var sha256: String
    /// The parts of a `multipart/form-data` upload; absent for other uploads.
    var parts: [MultipartScanner.Part]?
}
