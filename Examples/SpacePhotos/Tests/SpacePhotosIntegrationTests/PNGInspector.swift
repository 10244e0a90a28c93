import Foundation

/// Reads a PNG file's chunks and checks their CRCs bit by bit, independently
/// of libpng and zlib, so tests check the files the server writes, and the one
/// it puts together by hand (`huge.png`), against the spec.
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
            chunks.append(
                Chunk(
                    type: String(decoding: typeBytes, as: UTF8.self),
                    data: data,
                    storedCRC: Self.bigEndian(file, at: offset + 8 + length),
                    computedCRC: Self.crc32(typeBytes + data)
                )
            )
            offset += 12 + length
        }
        self.chunks = chunks
    }

    /// IHDR's width, height, bit depth and colour type.
    var header: (width: Int, height: Int, bitDepth: Int, colorType: Int)? {
        guard let ihdr = chunks.first, ihdr.type == "IHDR", ihdr.data.count == 13 else { return nil }
        return (
            Int(Self.bigEndian(ihdr.data, at: 0)), Int(Self.bigEndian(ihdr.data, at: 4)), Int(ihdr.data[8]),
            Int(ihdr.data[9])
        )
    }

    // MARK: Checksum, as the spec states it

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

    static func bigEndian(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
