import NIOCore

/// The content of the server's generated downloads (`GET /downloads/…`):
/// the byte at offset *n* is the same in every file and on every run, so a
/// client can check what it received against ``bytes(in:)``.
///
/// The bytes come from a seeded generator and repeat every ``period`` bytes.
/// The period is prime, not a power of two, so a chunk delivered twice or
/// out of order shows up as wrong content. Streaming a file is then slicing
/// one buffer made once, with no per-byte work.
public enum DownloadPattern {
    /// How many bytes the pattern runs before repeating (a prime near 1 MiB).
    public static let period = 1_048_573

    /// The most one ``chunk(at:count:)`` returns.
    static let chunkSize = 64 * 1024

    private static let seed: UInt64 = 0x5BAC_E0F0_70DA_7A00

    /// One period and then a chunk more, so any chunk is a contiguous slice.
    private static let block: ByteBuffer = {
        var random = SplitMix64(seed: seed)
        var bytes = [UInt8]()
        bytes.reserveCapacity(period + chunkSize + 8)
        while bytes.count < period {
            withUnsafeBytes(of: random.next().littleEndian) { bytes.append(contentsOf: $0) }
        }
        bytes.removeLast(bytes.count - period)
        bytes += bytes[0..<chunkSize]
        return ByteBuffer(bytes: bytes)
    }()

    /// The pattern's bytes from `range.lowerBound` up to `range.upperBound`.
    /// For checking downloads; keep ranges to what you can hold in memory.
    public static func bytes(in range: Range<Int>) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(range.count)
        var offset = range.lowerBound
        while offset < range.upperBound {
            let slice = chunk(at: offset, count: min(chunkSize, range.upperBound - offset))
            result += slice.readableBytesView
            offset += slice.readableBytes
        }
        return result
    }

    /// Up to ``chunkSize`` bytes of the pattern from `offset` (≥ 0): a
    /// slice of the shared buffer, not a copy.
    static func chunk(at offset: Int, count: Int) -> ByteBuffer {
        let length = min(max(count, 0), chunkSize)
        return block.getSlice(at: offset % period, length: length) ?? ByteBuffer()
    }
}
