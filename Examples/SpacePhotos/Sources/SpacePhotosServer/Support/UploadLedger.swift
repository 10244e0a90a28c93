import Foundation
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

/// The receipts of recent uploads, so an upload's `Location` can be read
/// back. Bounded: past ``capacity`` receipts the oldest are forgotten.
actor UploadLedger {
    let capacity: Int
    private var receipts: [String: UploadReceipt] = [:]
    private var order: [String] = []

    init(capacity: Int = 1_000) {
        self.capacity = max(capacity, 1)
    }

    func record(_ receipt: UploadReceipt) {
        receipts[receipt.id] = receipt
        order.append(receipt.id)
        if order.count > capacity {
            let evicted = order.prefix(order.count - capacity)
            for id in evicted { receipts[id] = nil }
            order.removeFirst(evicted.count)
        }
    }

    func receipt(id: String) -> UploadReceipt? {
        receipts[id]
    }
}
