/// Reads a JPEG file's marker structure, written independently of the
/// server's encoder, so tests check the files against T.81 rather than
/// against the encoder itself.
struct JPEGInspector {
    struct Segment {
        /// The marker's second byte (`0xD8` for SOI, `0xC0` for SOF0…).
        var marker: UInt8
        /// The payload, without marker and length.
        var payload: [UInt8]
    }

    enum Failure: Error, Equatable {
        case notJPEG
        case truncated
        case noEndOfImage
    }

    /// The segments from SOI through SOS.
    let segments: [Segment]
    /// The entropy-coded data after SOS, up to EOI.
    let scanData: [UInt8]

    init(_ file: [UInt8]) throws {
        guard file.count >= 4, file[0] == 0xFF, file[1] == 0xD8 else { throw Failure.notJPEG }
        var segments = [Segment(marker: 0xD8, payload: [])]
        var offset = 2
        while true {
            guard offset + 4 <= file.count, file[offset] == 0xFF else { throw Failure.truncated }
            let marker = file[offset + 1]
            let length = Int(file[offset + 2]) << 8 | Int(file[offset + 3])
            guard length >= 2, offset + 2 + length <= file.count else { throw Failure.truncated }
            segments.append(Segment(marker: marker, payload: Array(file[(offset + 4)..<(offset + 2 + length)])))
            offset += 2 + length
            if marker == 0xDA { break }
        }
        guard file.count >= offset + 2, file[file.count - 2] == 0xFF, file[file.count - 1] == 0xD9 else {
            throw Failure.noEndOfImage
        }
        self.segments = segments
        self.scanData = Array(file[offset..<(file.count - 2)])
    }

    /// The markers in file order, EOI included.
    var markers: [UInt8] { segments.map(\.marker) + [0xD9] }

    /// SOF0's height, width and per-component (id, sampling) pairs.
    var frame: (width: Int, height: Int, components: [(id: UInt8, sampling: UInt8)])? {
        guard let sof = segments.first(where: { $0.marker == 0xC0 })?.payload, sof.count >= 6 else { return nil }
        let count = Int(sof[5])
        guard sof.count == 6 + 3 * count else { return nil }
        var components: [(id: UInt8, sampling: UInt8)] = []
        for index in 0..<count {
            components.append((id: sof[6 + 3 * index], sampling: sof[7 + 3 * index]))
        }
        let height = Int(sof[1]) << 8 | Int(sof[2])
        let width = Int(sof[3]) << 8 | Int(sof[4])
        return (width, height, components)
    }

    /// Whether every 0xFF in the scan data is followed by a stuffed 0x00
    /// (no restart markers are written, so nothing else may follow it).
    var isByteStuffed: Bool {
        var index = 0
        while index < scanData.count {
            if scanData[index] == 0xFF {
                guard index + 1 < scanData.count, scanData[index + 1] == 0x00 else { return false }
                index += 2
            } else {
                index += 1
            }
        }
        return true
    }
}
