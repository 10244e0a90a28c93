/// Packs values into bytes least significant bit first, as deflate
/// (RFC 1951 §3.1.1) stores everything but Huffman codes; those are passed
/// in already bit-reversed (see ``HuffmanCode``), so one writer serves both.
struct DeflateBitWriter {
    private(set) var bytes: [UInt8] = []
    /// Bits not yet in `bytes`, the oldest in the lowest position.
    private var buffer: UInt64 = 0
    private var count = 0

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    /// Appends the low `length` bits of `bits` (at most 32).
    mutating func write(_ bits: UInt32, count length: Int) {
        buffer |= UInt64(bits) << UInt64(count)
        count += length
        // Emptying four bytes at a time keeps the appends rare; with fewer
        // than 32 bits held, any write of up to 32 bits fits in 64.
        if count >= 32 {
            let word = UInt32(truncatingIfNeeded: buffer)
            bytes.append(UInt8(truncatingIfNeeded: word))
            bytes.append(UInt8(truncatingIfNeeded: word >> 8))
            bytes.append(UInt8(truncatingIfNeeded: word >> 16))
            bytes.append(UInt8(truncatingIfNeeded: word >> 24))
            buffer >>= 32
            count -= 32
        }
    }

    /// Pads with zero bits to the next byte boundary and moves every held
    /// byte out: what a stored block and the end of the stream need.
    mutating func alignToByte() {
        while count > 0 {
            bytes.append(UInt8(truncatingIfNeeded: buffer))
            buffer >>= 8
            count = max(count - 8, 0)
        }
        buffer = 0
    }

    /// Appends whole bytes; only after ``alignToByte()``.
    mutating func appendAligned(_ raw: UnsafeBufferPointer<UInt8>) {
        precondition(count == 0, "Raw bytes must start on a byte boundary")
        bytes.append(contentsOf: raw)
    }
}
