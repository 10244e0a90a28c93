import Foundation

/// Reads a PNG file's structure, written independently of the server's
/// encoder (bitwise CRC, plain Adler loop, its own inflater), so tests check
/// the encoder against the spec rather than against itself.
struct PNGInspector {
    struct Chunk {
        var type: String
        var data: [UInt8]
        var storedCRC: UInt32
        var computedCRC: UInt32
    }

    enum Failure: Error, Equatable {
        case notPNG
        case truncated
        case badZlibHeader
        case unsupportedBlockType(Int)
        case lengthMismatch
        case adlerMismatch
        case noImageData
    }

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    let chunks: [Chunk]

    init(_ file: [UInt8]) throws {
        guard file.starts(with: Self.signature) else { throw Failure.notPNG }
        var chunks: [Chunk] = []
        var offset = 8
        while offset < file.count {
            guard offset + 12 <= file.count else { throw Failure.truncated }
            let length = Int(Self.bigEndian(file, at: offset))
            guard offset + 12 + length <= file.count else { throw Failure.truncated }
            let typeBytes = Array(file[(offset + 4)..<(offset + 8)])
            let data = Array(file[(offset + 8)..<(offset + 8 + length)])
            chunks.append(Chunk(
                type: String(decoding: typeBytes, as: UTF8.self),
                data: data,
                storedCRC: Self.bigEndian(file, at: offset + 8 + length),
                computedCRC: Self.crc32(typeBytes + data)
            ))
            offset += 12 + length
        }
        self.chunks = chunks
    }

    /// IHDR's width, height, bit depth and colour type.
    var header: (width: Int, height: Int, bitDepth: Int, colorType: Int)? {
        guard let ihdr = chunks.first, ihdr.type == "IHDR", ihdr.data.count == 13 else { return nil }
        return (Int(Self.bigEndian(ihdr.data, at: 0)), Int(Self.bigEndian(ihdr.data, at: 4)), Int(ihdr.data[8]), Int(ihdr.data[9]))
    }

    /// The concatenated IDAT data, inflated.
    func imageData() throws -> [UInt8] {
        let stream = chunks.filter { $0.type == "IDAT" }.flatMap(\.data)
        guard !stream.isEmpty else { throw Failure.noImageData }
        return try Self.inflateZlib(stream)
    }

    // MARK: Checksums, as the specs state them

    /// CRC-32 bit by bit (ISO 3309 / PNG spec annex D), no table.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 {
                crc = (crc >> 1) ^ (crc & 1 == 0 ? 0 : 0xEDB8_8320)
            }
        }
        return ~crc
    }

    /// Adler-32 (RFC 1950 §8), reducing on every byte.
    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }

    /// Inflates a zlib stream whose deflate data is stored blocks (what the
    /// server's uncompressed PNGs hold, as `/dogs/random` serves); compressed
    /// block types are reported, not decoded: libpng checks those.
    static func inflateZlib(_ stream: [UInt8]) throws -> [UInt8] {
        guard stream.count >= 6 else { throw Failure.truncated }
        let cmf = stream[0], flg = stream[1]
        // Deflate, window ≤ 32 KiB, check bits right, no preset dictionary.
        guard cmf & 0x0F == 8, cmf >> 4 <= 7, (UInt16(cmf) << 8 | UInt16(flg)) % 31 == 0, flg & 0x20 == 0 else {
            throw Failure.badZlibHeader
        }
        var output: [UInt8] = []
        var offset = 2
        var final = false
        while !final {
            guard offset < stream.count else { throw Failure.truncated }
            let header = stream[offset]
            final = header & 1 == 1
            let type = Int(header >> 1 & 0b11)
            guard type == 0 else { throw Failure.unsupportedBlockType(type) }
            // A stored block's length starts at the next byte boundary.
            guard offset + 5 <= stream.count else { throw Failure.truncated }
            let length = Int(stream[offset + 1]) | Int(stream[offset + 2]) << 8
            let complement = Int(stream[offset + 3]) | Int(stream[offset + 4]) << 8
            guard length == ~complement & 0xFFFF else { throw Failure.lengthMismatch }
            guard offset + 5 + length <= stream.count else { throw Failure.truncated }
            output += stream[(offset + 5)..<(offset + 5 + length)]
            offset += 5 + length
        }
        guard offset + 4 == stream.count else { throw Failure.truncated }
        guard bigEndian(stream, at: offset) == adler32(output) else { throw Failure.adlerMismatch }
        return output
    }

    static func bigEndian(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
