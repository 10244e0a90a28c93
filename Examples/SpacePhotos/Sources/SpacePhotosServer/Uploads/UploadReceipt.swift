import Hummingbird

/// What the server remembers of an upload: its size and digest, never its
/// bytes. Sent back by `POST /uploads` and `GET /uploads/{id}`.
struct UploadReceipt: ResponseCodable, Sendable, Equatable {
    var id: String
    var bytes: Int
    var sha256: String
    /// The parts of a `multipart/form-data` upload; absent for other uploads.
    /// Bounded by ``MultipartScanner``: at most ``MultipartScanner/maximumParts``,
    /// names cut to ``MultipartScanner/maximumNameLength`` bytes.
    var parts: [MultipartScanner.Part]?

    /// About how many bytes of memory the receipt holds: its strings and
    /// a fixed allowance for each value's own storage. What
    /// ``UploadLedger`` counts against its byte limit.
    var footprint: Int {
        let receipt = 128 + id.utf8.count + sha256.utf8.count
        let perPart = (parts ?? []).reduce(0) { total, part in
            total + 64 + (part.name?.utf8.count ?? 0) + (part.filename?.utf8.count ?? 0)
        }
        return receipt + perPart
    }
}
