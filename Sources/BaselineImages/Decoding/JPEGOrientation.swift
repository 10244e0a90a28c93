import Foundation

extension ImageOrientation {
    /// The orientation a JPEG's EXIF data records, or `nil` when it has none
    /// (or none that reads cleanly: a damaged EXIF block is ignored, the
    /// image is not).
    ///
    /// Reads the markers before the image data, looking for an APP1 `Exif`
    /// segment, and in it the TIFF header and the first directory's
    /// `Orientation` tag (0x0112). Every offset is checked against the
    /// segment's bounds, in either byte order.
    init?(jpeg data: Data) {
        guard let value = data.withUnsafeBytes({ Self.exifOrientation(inJPEG: $0) }) else { return nil }
        self.init(rawValue: value)
    }

    private static let exifSignature: [UInt8] = Array("Exif".utf8) + [0, 0]

    private static func exifOrientation(inJPEG bytes: UnsafeRawBufferPointer) -> UInt8? {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var offset = 2
        while offset + 4 <= bytes.count {
            guard bytes[offset] == 0xFF else { return nil }
            let marker = bytes[offset + 1]
            switch marker {
            case 0xFF:
                offset += 1  // fill byte before a marker
                continue
            case 0x01, 0xD0...0xD7:
                offset += 2  // markers without a length
                continue
            case 0xD9, 0xDA:
                return nil  // end of image, start of scan: no EXIF before the pixels
            default:
                break
            }
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let start = offset + 4
            let end = offset + 2 + length
            guard length >= 2, end <= bytes.count else { return nil }
            if marker == 0xE1, end - start >= exifSignature.count,
                exifSignature.indices.allSatisfy({ bytes[start + $0] == exifSignature[$0] })
            {
                return orientation(inTIFF: UnsafeRawBufferPointer(rebasing: bytes[(start + exifSignature.count)..<end]))
            }
            offset = end
        }
        return nil
    }

    /// The `Orientation` tag of a TIFF structure's first directory.
    private static func orientation(inTIFF tiff: UnsafeRawBufferPointer) -> UInt8? {
        guard tiff.count >= 8 else { return nil }
        let bigEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x4D, 0x4D): bigEndian = true  // "MM"
        case (0x49, 0x49): bigEndian = false  // "II"
        default: return nil
        }
        // Offsets are compared, never added to past the buffer's size: a
        // crafted 32-bit offset must not overflow `Int` on 32-bit platforms.
        func uint16(at offset: Int) -> Int? {
            guard offset >= 0, offset <= tiff.count - 2 else { return nil }
            let (a, b) = (Int(tiff[offset]), Int(tiff[offset + 1]))
            return bigEndian ? a << 8 | b : b << 8 | a
        }
        func uint32(at offset: Int) -> Int? {
            guard let high = uint16(at: bigEndian ? offset : offset + 2),
                let low = uint16(at: bigEndian ? offset + 2 : offset)
            else { return nil }
            return high << 16 | low
        }
        guard uint16(at: 2) == 42, let directory = uint32(at: 4), directory >= 0, directory <= tiff.count,
            let count = uint16(at: directory)
        else { return nil }
        // From here every offset is at most the buffer's size plus 65,535 × 12.
        for entry in 0..<count {
            let field = directory + 2 + entry * 12
            guard let tag = uint16(at: field) else { return nil }
            guard tag == 0x0112 else { continue }
            // SHORT (type 3), one value, held in the entry's value field.
            guard uint16(at: field + 2) == 3, uint32(at: field + 4) == 1,
                let value = uint16(at: field + 8), (1...8).contains(value)
            else { return nil }
            return UInt8(value)
        }
        return nil
    }
}
