/// CRC-32 as PNG (and zip, and Ethernet) define it: polynomial 0xEDB88320
/// (reflected), initial value and final XOR 0xFFFFFFFF.
struct CRC32: Sendable {
    private var state: UInt32 = 0xFFFF_FFFF

    init() {}

    /// Adds `bytes` to the checksum.
    mutating func update(_ bytes: some Sequence<UInt8>) {
        var crc = state
        for byte in bytes {
            crc = Self.table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        state = crc
    }

    /// The checksum of the bytes added so far.
    var value: UInt32 { ~state }

    /// The checksum of `bytes`.
    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }

    /// One entry per byte value: the remainder of that byte, so the update
    /// loop does one lookup per byte rather than eight shifts.
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1
        }
        return value
    }
}
