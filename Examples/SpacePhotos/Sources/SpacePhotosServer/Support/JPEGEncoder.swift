import Foundation

/// Writes a ``Bitmap`` as a baseline JPEG (JFIF) file, with no dependency but Swift.
///
/// What it writes is the most widely read kind of JPEG (ITU T.81, sequential
/// DCT, Huffman coding, 8-bit samples): `SOI`, a JFIF `APP0`, two quantisation
/// tables (`DQT`), the frame header (`SOF0`), the four standard Huffman tables
/// (`DHT`), one interleaved scan (`SOS`) and `EOI`. Colour is converted to
/// full-range YCbCr as JFIF defines it; chroma is kept at full resolution
/// (4:4:4) or averaged over 2×2 pixels (4:2:0). Alpha is dropped.
///
/// The tables are the example ones of T.81 Annex K, the quantisation tables
/// scaled by quality as libjpeg does, so the files look like any other
/// encoder's. The DCT is the separable floating-point one straight from the
/// definition: plain, and fast enough for images of a few megapixels.
enum JPEGEncoder {
    /// How the two chroma planes are sampled.
    enum ChromaSubsampling: Sendable {
        /// Full resolution: sharper colour edges, larger files.
        case none
        /// Half resolution both ways, as cameras write.
        case half
    }

    /// The JPEG file of `bitmap` at `quality` (1…100; clamped).
    static func encode(_ bitmap: Bitmap, quality: Int = 85, chroma: ChromaSubsampling = .half) -> [UInt8] {
        let quality = min(max(quality, 1), 100)
        let luminanceTable = scaled(luminanceQuantization, quality: quality)
        let chrominanceTable = scaled(chrominanceQuantization, quality: quality)

        var file: [UInt8] = [0xFF, 0xD8]  // SOI
        // APP0: "JFIF\0", version 1.01, no density units, 1:1 aspect, no thumbnail.
        appendSegment(0xE0, [0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00], to: &file)
        // DQT: 8-bit entries in zigzag order, table 0 then table 1.
        appendSegment(0xDB, [0x00] + zigzag.map { luminanceTable[$0] } + [0x01] + zigzag.map { chrominanceTable[$0] }, to: &file)
        // SOF0: 8-bit precision, the size, three components (id, sampling HV, table).
        let lumaSampling: UInt8 = chroma == .half ? 0x22 : 0x11
        var frame: [UInt8] = [8]
        frame.appendBigEndian16(UInt16(bitmap.height))
        frame.appendBigEndian16(UInt16(bitmap.width))
        frame += [3, 1, lumaSampling, 0, 2, 0x11, 1, 3, 0x11, 1]
        appendSegment(0xC0, frame, to: &file)
        // DHT: class (0 DC, 1 AC) and id in one byte, then the 16 counts and the values.
        var tables: [UInt8] = []
        for (classAndID, spec) in [(0x00, HuffmanSpec.luminanceDC), (0x10, .luminanceAC), (0x01, .chrominanceDC), (0x11, .chrominanceAC)] {
            tables.append(UInt8(classAndID))
            tables += spec.counts
            tables += spec.values
        }
        appendSegment(0xC4, tables, to: &file)
        // SOS: three components (id, DC/AC tables), spectral 0…63, no approximation.
        appendSegment(0xDA, [3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0], to: &file)

        var writer = BitWriter(capacity: bitmap.width * bitmap.height / 2)
        encodeScan(bitmap, chroma: chroma, luminance: luminanceTable, chrominance: chrominanceTable, into: &writer)
        writer.flush()
        file += writer.bytes
        file += [0xFF, 0xD9]  // EOI
        return file
    }

    // MARK: Scan

    /// The entropy-coded data: MCU by MCU, left to right, top to bottom.
    private static func encodeScan(
        _ bitmap: Bitmap, chroma: ChromaSubsampling,
        luminance: [UInt8], chrominance: [UInt8], into writer: inout BitWriter
    ) {
        let mcuSide = chroma == .half ? 16 : 8
        // Planes padded to whole MCUs by repeating the last row and column,
        // which keeps the padding from bleeding odd colours into the edge blocks.
        let paddedWidth = (bitmap.width + mcuSide - 1) / mcuSide * mcuSide
        let paddedHeight = (bitmap.height + mcuSide - 1) / mcuSide * mcuSide
        var (y, cb, cr) = planes(of: bitmap, paddedWidth: paddedWidth, paddedHeight: paddedHeight)
        var chromaWidth = paddedWidth
        if chroma == .half {
            cb = halved(cb, width: paddedWidth, height: paddedHeight)
            cr = halved(cr, width: paddedWidth, height: paddedHeight)
            chromaWidth = paddedWidth / 2
        }
        let lumaDivisors = luminance.map { 1 / Float($0) }
        let chromaDivisors = chrominance.map { 1 / Float($0) }
        let luma = HuffmanTable(dc: .luminanceDC, ac: .luminanceAC)
        let colour = HuffmanTable(dc: .chrominanceDC, ac: .chrominanceAC)
        var predictors = (y: 0, cb: 0, cr: 0)
        var block = Block()

        for mcuY in stride(from: 0, to: paddedHeight, by: mcuSide) {
            for mcuX in stride(from: 0, to: paddedWidth, by: mcuSide) {
                for blockY in stride(from: 0, to: mcuSide, by: 8) {
                    for blockX in stride(from: 0, to: mcuSide, by: 8) {
                        block.load(y, width: paddedWidth, x: mcuX + blockX, y: mcuY + blockY)
                        block.transformAndQuantize(lumaDivisors)
                        block.write(predictor: &predictors.y, table: luma, into: &writer)
                    }
                }
                let chromaX = chroma == .half ? mcuX / 2 : mcuX
                let chromaY = chroma == .half ? mcuY / 2 : mcuY
                block.load(cb, width: chromaWidth, x: chromaX, y: chromaY)
                block.transformAndQuantize(chromaDivisors)
                block.write(predictor: &predictors.cb, table: colour, into: &writer)
                block.load(cr, width: chromaWidth, x: chromaX, y: chromaY)
                block.transformAndQuantize(chromaDivisors)
                block.write(predictor: &predictors.cr, table: colour, into: &writer)
            }
        }
    }

    /// The image as level-shifted (−128…127) Y, Cb and Cr planes of the padded size.
    private static func planes(of bitmap: Bitmap, paddedWidth: Int, paddedHeight: Int) -> ([Float], [Float], [Float]) {
        let count = paddedWidth * paddedHeight
        var y = [Float](repeating: 0, count: count)
        var cb = y, cr = y
        let stride = bitmap.format.bytesPerPixel
        bitmap.withPixelBytes { pixels in
            y.withUnsafeMutableBufferPointer { yPlane in
                cb.withUnsafeMutableBufferPointer { cbPlane in
                    cr.withUnsafeMutableBufferPointer { crPlane in
                        for row in 0..<paddedHeight {
                            let sourceRow = min(row, bitmap.height - 1) * bitmap.width
                            for column in 0..<paddedWidth {
                                let source = (sourceRow + min(column, bitmap.width - 1)) * stride
                                let red = Float(pixels[source]), green = Float(pixels[source + 1]), blue = Float(pixels[source + 2])
                                let target = row * paddedWidth + column
                                // JFIF's full-range conversion; Cb and Cr are centred on 0, not 128.
                                yPlane[target] = 0.299 * red + 0.587 * green + 0.114 * blue - 128
                                cbPlane[target] = -0.168736 * red - 0.331264 * green + 0.5 * blue
                                crPlane[target] = 0.5 * red - 0.418688 * green - 0.081312 * blue
                            }
                        }
                    }
                }
            }
        }
        return (y, cb, cr)
    }

    /// A plane averaged over 2×2 pixels (both sides are even).
    private static func halved(_ plane: [Float], width: Int, height: Int) -> [Float] {
        let halfWidth = width / 2, halfHeight = height / 2
        var result = [Float](repeating: 0, count: halfWidth * halfHeight)
        plane.withUnsafeBufferPointer { source in
            result.withUnsafeMutableBufferPointer { target in
                for row in 0..<halfHeight {
                    let top = 2 * row * width, bottom = top + width
                    for column in 0..<halfWidth {
                        let left = 2 * column
                        target[row * halfWidth + column] =
                            (source[top + left] + source[top + left + 1] + source[bottom + left] + source[bottom + left + 1]) * 0.25
                    }
                }
            }
        }
        return result
    }

    /// One 8×8 block on its way from samples to Huffman codes.
    private struct Block {
        var samples = [Float](repeating: 0, count: 64)
        var scratch = [Float](repeating: 0, count: 64)
        var coefficients = [Int](repeating: 0, count: 64)

        mutating func load(_ plane: [Float], width: Int, x: Int, y: Int) {
            plane.withUnsafeBufferPointer { source in
                samples.withUnsafeMutableBufferPointer { target in
                    for row in 0..<8 {
                        let start = (y + row) * width + x
                        for column in 0..<8 { target[row * 8 + column] = source[start + column] }
                    }
                }
            }
        }

        /// The 2-D DCT as two passes of the 1-D one (rows, then columns),
        /// each a product with the cosine matrix; then each coefficient
        /// divided by its quantiser and rounded, stored in zigzag order.
        mutating func transformAndQuantize(_ divisors: [Float]) {
            cosineMatrix.withUnsafeBufferPointer { matrix in
                samples.withUnsafeMutableBufferPointer { samples in
                    scratch.withUnsafeMutableBufferPointer { scratch in
                        // scratch[row][u] = Σx samples[row][x]·M[u][x]
                        for row in 0..<8 {
                            for u in 0..<8 {
                                var sum: Float = 0
                                for x in 0..<8 { sum += samples[row * 8 + x] * matrix[u * 8 + x] }
                                scratch[row * 8 + u] = sum
                            }
                        }
                        // samples[v][u] = Σy M[v][y]·scratch[y][u]
                        for v in 0..<8 {
                            for u in 0..<8 {
                                var sum: Float = 0
                                for y in 0..<8 { sum += matrix[v * 8 + y] * scratch[y * 8 + u] }
                                samples[v * 8 + u] = sum
                            }
                        }
                    }
                }
            }
            samples.withUnsafeBufferPointer { transformed in
                divisors.withUnsafeBufferPointer { divisors in
                    zigzag.withUnsafeBufferPointer { order in
                        coefficients.withUnsafeMutableBufferPointer { output in
                            for index in 0..<64 {
                                let natural = order[index]
                                output[index] = Int((transformed[natural] * divisors[natural]).rounded())
                            }
                        }
                    }
                }
            }
        }

        /// The block's codes: the DC difference from the previous block of
        /// the component, then the AC coefficients as (zero run, size) symbols
        /// with their magnitude bits, `ZRL` for sixteen zeros, `EOB` to end early.
        mutating func write(predictor: inout Int, table: HuffmanTable, into writer: inout BitWriter) {
            let difference = coefficients[0] - predictor
            predictor = coefficients[0]
            let dcSize = magnitudeSize(difference)
            writer.write(table.dc[dcSize])
            if dcSize > 0 { writer.write(magnitudeBits(difference, size: dcSize), count: dcSize) }

            var lastNonZero = 63
            while lastNonZero > 0, coefficients[lastNonZero] == 0 { lastNonZero -= 1 }
            var run = 0
            var index = 1
            while index <= lastNonZero {
                let value = coefficients[index]
                if value == 0 {
                    run += 1
                } else {
                    while run >= 16 {
                        writer.write(table.ac[0xF0])
                        run -= 16
                    }
                    let size = magnitudeSize(value)
                    writer.write(table.ac[run << 4 | size])
                    writer.write(magnitudeBits(value, size: size), count: size)
                    run = 0
                }
                index += 1
            }
            if lastNonZero < 63 { writer.write(table.ac[0x00]) }
        }
    }

    /// The number of bits of `value`'s magnitude (T.81's "SSSS" category).
    static func magnitudeSize(_ value: Int) -> Int {
        let magnitude = value.magnitude
        return magnitude == 0 ? 0 : UInt.bitWidth - magnitude.leadingZeroBitCount
    }

    /// `value`'s additional bits: the value itself when positive, its ones'
    /// complement in `size` bits when negative.
    static func magnitudeBits(_ value: Int, size: Int) -> UInt32 {
        let bits = value < 0 ? value - 1 : value
        return UInt32(truncatingIfNeeded: bits) & ((1 << UInt32(size)) - 1)
    }

    // MARK: Tables

    /// `M[u][x] = c(u)/2 · cos((2x+1)uπ/16)`, with `c(0) = 1/√2`, else 1.
    static let cosineMatrix: [Float] = (0..<64).map { index in
        let u = index / 8, x = index % 8
        let scale = u == 0 ? 1 / (2 * 2.0.squareRoot()) : 0.5
        return Float(scale * cos(Double(2 * x + 1) * Double(u) * .pi / 16))
    }

    /// The natural (row-major) index of each zigzag position.
    static let zigzag: [Int] = [
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5,
        12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
        35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
        58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
    ]

    /// T.81 Table K.1, in natural order.
    static let luminanceQuantization: [Int] = [
        16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55,
        14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
        18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
        49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
    ]

    /// T.81 Table K.2, in natural order.
    static let chrominanceQuantization: [Int] = [
        17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99,
        24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99,
        99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
        99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
    ]

    /// A base table scaled for `quality` the way libjpeg's `jpeg_set_quality`
    /// does (50 is the table itself), each entry kept within 1…255.
    static func scaled(_ base: [Int], quality: Int) -> [UInt8] {
        let scale = quality < 50 ? 5000 / quality : 200 - 2 * quality
        return base.map { UInt8(min(max(($0 * scale + 50) / 100, 1), 255)) }
    }

    /// A Huffman table as DHT states it: how many codes of each length 1…16,
    /// then the symbols in code order (T.81 Annex K.3).
    struct HuffmanSpec: Sendable {
        let counts: [UInt8]
        let values: [UInt8]

        static let luminanceDC = HuffmanSpec(
            counts: [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0],
            values: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
        )
        static let chrominanceDC = HuffmanSpec(
            counts: [0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0],
            values: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
        )
        static let luminanceAC = HuffmanSpec(
            counts: [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7D],
            values: [
                0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07,
                0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xA1, 0x08, 0x23, 0x42, 0xB1, 0xC1, 0x15, 0x52, 0xD1, 0xF0,
                0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0A, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x25, 0x26, 0x27, 0x28,
                0x29, 0x2A, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3A, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49,
                0x4A, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5A, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69,
                0x6A, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7A, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89,
                0x8A, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9A, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6, 0xA7,
                0xA8, 0xA9, 0xAA, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xB9, 0xBA, 0xC2, 0xC3, 0xC4, 0xC5,
                0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8, 0xD9, 0xDA, 0xE1, 0xE2,
                0xE3, 0xE4, 0xE5, 0xE6, 0xE7, 0xE8, 0xE9, 0xEA, 0xF1, 0xF2, 0xF3, 0xF4, 0xF5, 0xF6, 0xF7, 0xF8,
                0xF9, 0xFA,
            ]
        )
        static let chrominanceAC = HuffmanSpec(
            counts: [0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77],
            values: [
                0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71,
                0x13, 0x22, 0x32, 0x81, 0x08, 0x14, 0x42, 0x91, 0xA1, 0xB1, 0xC1, 0x09, 0x23, 0x33, 0x52, 0xF0,
                0x15, 0x62, 0x72, 0xD1, 0x0A, 0x16, 0x24, 0x34, 0xE1, 0x25, 0xF1, 0x17, 0x18, 0x19, 0x1A, 0x26,
                0x27, 0x28, 0x29, 0x2A, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3A, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48,
                0x49, 0x4A, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5A, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68,
                0x69, 0x6A, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7A, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87,
                0x88, 0x89, 0x8A, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9A, 0xA2, 0xA3, 0xA4, 0xA5,
                0xA6, 0xA7, 0xA8, 0xA9, 0xAA, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xB9, 0xBA, 0xC2, 0xC3,
                0xC4, 0xC5, 0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8, 0xD9, 0xDA,
                0xE2, 0xE3, 0xE4, 0xE5, 0xE6, 0xE7, 0xE8, 0xE9, 0xEA, 0xF2, 0xF3, 0xF4, 0xF5, 0xF6, 0xF7, 0xF8,
                0xF9, 0xFA,
            ]
        )

        /// Each symbol's code and length, indexed by symbol (T.81 Annex C):
        /// codes of one length are consecutive, and each longer length starts
        /// at twice the next code of the shorter one.
        func codes() -> [Code] {
            var table = [Code](repeating: Code(bits: 0, length: 0), count: 256)
            var code: UInt32 = 0
            var next = 0
            for length in 1...16 {
                for _ in 0..<Int(counts[length - 1]) {
                    table[Int(values[next])] = Code(bits: code, length: length)
                    code += 1
                    next += 1
                }
                code <<= 1
            }
            return table
        }
    }

    struct Code: Sendable {
        var bits: UInt32
        var length: Int
    }

    /// The DC and AC codes of one component, looked up by symbol.
    struct HuffmanTable: Sendable {
        let dc: [Code]
        let ac: [Code]

        init(dc: HuffmanSpec, ac: HuffmanSpec) {
            self.dc = dc.codes()
            self.ac = ac.codes()
        }
    }

    /// Packs codes most significant bit first into bytes, inserting the
    /// 0x00 that must follow every 0xFF byte of entropy-coded data so that
    /// decoders do not take it for a marker.
    struct BitWriter {
        private(set) var bytes: [UInt8] = []
        private var buffer: UInt64 = 0
        private var count = 0

        init(capacity: Int) {
            bytes.reserveCapacity(capacity)
        }

        mutating func write(_ code: Code) {
            write(code.bits, count: code.length)
        }

        mutating func write(_ bits: UInt32, count length: Int) {
            buffer = buffer << UInt64(length) | UInt64(bits)
            count += length
            while count >= 8 {
                count -= 8
                let byte = UInt8(truncatingIfNeeded: buffer >> UInt64(count))
                bytes.append(byte)
                if byte == 0xFF { bytes.append(0x00) }
            }
            buffer &= (1 << UInt64(count)) - 1
        }

        /// Pads the last byte with 1 bits, as T.81 F.1.2.3 asks.
        mutating func flush() {
            if count > 0 { write((1 << UInt32(8 - count)) - 1, count: 8 - count) }
        }
    }

    private static func appendSegment(_ marker: UInt8, _ payload: [UInt8], to file: inout [UInt8]) {
        file += [0xFF, marker]
        // The length counts itself (two bytes) but not the marker.
        file.appendBigEndian16(UInt16(payload.count + 2))
        file += payload
    }
}

extension [UInt8] {
    mutating func appendBigEndian16(_ value: UInt16) {
        append(contentsOf: [UInt8(value >> 8), UInt8(value & 0xFF)])
    }
}
