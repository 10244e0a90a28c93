/// The receipts of recent uploads, so an upload's `Location` can be read
/// back.
///
/// Bounded both ways: at most ``capacity`` receipts, and at most
/// ``byteLimit`` bytes of them (``UploadReceipt/footprint``), since a
/// multipart receipt can hold a thousand names. Past either, the oldest
/// receipts are forgotten (the newest is always kept).
actor UploadLedger {
    let capacity: Int
    let byteLimit: Int
    private var receipts: [String: UploadReceipt] = [:]
    /// Ids from oldest to newest; those before `head` are gone.
    private var order: [String] = []
    private var head = 0
    /// The footprints of the receipts held, added up.
    private(set) var bytes = 0

    /// A ledger of at most `capacity` receipts and `byteLimit` bytes.
    init(capacity: Int = 1_000, byteLimit: Int = 8 * 1024 * 1024) {
        self.capacity = max(capacity, 1)
        self.byteLimit = max(byteLimit, 0)
    }

    /// How many receipts the ledger holds.
    var count: Int { receipts.count }

    func record(_ receipt: UploadReceipt) {
        if let replaced = receipts.updateValue(receipt, forKey: receipt.id) {
            bytes -= replaced.footprint
        } else {
            order.append(receipt.id)
        }
        bytes += receipt.footprint
        while receipts.count > 1, receipts.count > capacity || bytes > byteLimit {
            let oldest = order[head]
            head += 1
            if let evicted = receipts.removeValue(forKey: oldest) { bytes -= evicted.footprint }
        }
        // Drop the forgotten ids once they are half the array: each id is
        // moved a constant number of times on average.
        if head > order.count / 2 {
            order.removeFirst(head)
            head = 0
        }
    }

    func receipt(id: String) -> UploadReceipt? {
        receipts[id]
    }
}
