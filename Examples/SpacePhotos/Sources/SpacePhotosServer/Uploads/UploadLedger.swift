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
