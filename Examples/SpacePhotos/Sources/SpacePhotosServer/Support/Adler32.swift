/// Adler-32, the checksum that ends a zlib stream (RFC 1950).
struct Adler32: Sendable {
    private var a: UInt32 = 1
    private var b: UInt32 = 0

    init() {}

    /// Adds `bytes` to the checksum.
    mutating func update(_ bytes: some Collection<UInt8>) {
        var a = self.a
        var b = self.b
        var pending = 0
        for byte in bytes {
            a += UInt32(byte)
            b += a
            pending += 1
            // The largest run for which `b` cannot overflow 32 bits before
            // the reduction (zlib's NMAX).
            if pending == 5552 {
                a %= Self.modulus
                b %= Self.modulus
                pending = 0
            }
        }
        self.a = a % Self.modulus
        self.b = b % Self.modulus
    }

    /// The checksum of the bytes added so far.
    var value: UInt32 { b << 16 | a }

    /// The checksum of `bytes`.
    static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
        var adler = Adler32()
        adler.update(bytes)
        return adler.value
    }

    /// The largest prime below 2^16.
    private static let modulus: UInt32 = 65_521
}
