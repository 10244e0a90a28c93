import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// `POST /uploads` (for `URLSession.upload(for:fromFile:)`, expecting 201):
/// takes any body, streamed, and answers 201 Created with
/// `{"id", "bytes", "sha256"}` and `Location: /uploads/{id}`.
/// A `multipart/form-data` body also gets `"parts": [{"name", "filename", "bytes"}]`
/// (at most ``MultipartScanner/maximumParts`` parts, else 413; names and
/// file names cut to ``MultipartScanner/maximumNameLength`` bytes).
///
/// The body is hashed as it arrives and never kept, so the limit
/// (``ExampleServer/Configuration/maxUploadBytes``) is about time, not
/// memory; past it the answer is 413. `GET /uploads/{id}` reads a receipt
/// back, while the ``UploadLedger`` still holds it.
struct UploadRoutes: Sendable {
    let limit: Int
    let ledger: UploadLedger

    func add(to router: Router<ServerRequestContext>) {
        router.post("uploads") { request, _ -> EditedResponse<UploadReceipt> in
            let receipt = try await receive(request)
            await ledger.record(receipt)
            return EditedResponse(status: .created, headers: [.location: "/uploads/\(receipt.id)"], response: receipt)
        }
        router.get("uploads/:id") { _, context -> UploadReceipt in
            guard let id = context.parameters.get("id"), let receipt = await ledger.receipt(id: id) else {
                throw APIError(
                    .notFound,
                    code: "not_found",
                    message: "No such upload (the server keeps the most recent ones)."
                )
            }
            return receipt
        }
    }

    func receive(_ request: Request) async throws -> UploadReceipt {
        // A declared length over the limit is refused before reading a byte.
        if let declared = request.declaredContentLength, declared > limit {
            throw tooLarge()
        }
        var scanner: MultipartScanner?
        let contentType = request.headers[.contentType] ?? ""
        if contentType.lowercased().hasPrefix("multipart/form-data") {
            do {
                scanner = try MultipartScanner(contentType: contentType)
            } catch {
                throw APIError(
                    .badRequest,
                    code: "bad_request",
                    message: "A multipart/form-data upload needs a boundary parameter."
                )
            }
        }
        var hash = SHA256()
        var count = 0
        do {
            for try await chunk in request.body {
                count += chunk.readableBytes
                // Chunked bodies declare no length: the limit applies as they arrive.
                guard count <= limit else { throw tooLarge() }
                chunk.withUnsafeReadableBytes { hash.update(bufferPointer: $0) }
                try scanner?.consume(chunk.readableBytesView)
            }
        } catch let failure as MultipartScanner.Failure {
            throw Self.badMultipart(failure)
        }
        var parts: [MultipartScanner.Part]?
        do {
            parts = try scanner?.finish()
        } catch {
            throw Self.badMultipart(error)
        }
        return UploadReceipt(
            id: UUID().uuidString.lowercased(),
            bytes: count,
            sha256: hash.finalize().map { String(format: "%02x", $0) }.joined(),
            parts: parts
        )
    }

    func tooLarge() -> APIError {
        APIError(.contentTooLarge, code: "body_too_large", message: "Uploads are limited to \(limit) bytes.")
    }

    static func badMultipart(_ failure: MultipartScanner.Failure) -> APIError {
        if failure == .tooManyParts {
            return APIError(
                .contentTooLarge,
                code: "body_too_large",
                message: "A multipart/form-data upload may have at most \(MultipartScanner.maximumParts) parts."
            )
        }
        let reason =
            switch failure {
            case .missingBoundary: "it has no boundary parameter"
            case .headersTooLarge: "a part's headers are over \(MultipartScanner.maximumHeaderSize) bytes"
            case .malformedPart: "a part is malformed"
            case .unterminated: "it does not end with the closing boundary"
            case .tooManyParts: "it has more than \(MultipartScanner.maximumParts) parts"
            }
        return APIError(
            .badRequest,
            code: "bad_request",
            message: "The multipart/form-data body is not valid: \(reason)."
        )
    }
}
