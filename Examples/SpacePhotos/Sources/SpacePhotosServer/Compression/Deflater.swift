import CLibZ

/// zlib's deflate, for the responses the server compresses
/// (`GET /compressible/…`).
final class Deflater {
    /// The wrapper around the deflate data, as `Content-Encoding` names it.
    enum Format: Sendable {
        /// `Content-Encoding: gzip`.
        case gzip
        /// `Content-Encoding: deflate` as RFC 9110 means it: a zlib stream.
        case zlib
        /// `Content-Encoding: deflate` as some servers send it: bare deflate data.
        case raw
    }

    struct Failure: Error {
        var status: Int32
    }

    private let stream: UnsafeMutablePointer<z_stream>

    init(_ format: Format, level: Int32 = 6) throws {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let windowBits: Int32 =
            switch format {
            case .gzip: 15 + 16
            case .zlib: 15
            case .raw: -15
            }
        let status = clibz_deflate_init(stream, level, windowBits)
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw Failure(status: status)
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Compresses `input` and returns the output it made; `finish` ends the
    /// stream (trailer and all).
    func deflate(_ input: [UInt8], finish: Bool) throws -> [UInt8] {
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        try input.withUnsafeBufferPointer { source in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.pointee.avail_in = uInt(source.count)
            while true {
                let (status, produced) = buffer.withUnsafeMutableBufferPointer { target in
                    stream.pointee.next_out = target.baseAddress
                    stream.pointee.avail_out = uInt(target.count)
                    let status = CLibZ.deflate(stream, finish ? Z_FINISH : Z_NO_FLUSH)
                    return (status, target.count - Int(stream.pointee.avail_out))
                }
                output += buffer[0..<produced]
                switch status {
                case Z_STREAM_END:
                    return
                case Z_OK, Z_BUF_ERROR:
                    // Without finishing, done once the input is taken and the output had room.
                    if !finish && stream.pointee.avail_in == 0 && produced < buffer.count { return }
                    if status == Z_BUF_ERROR && produced == 0 { return }
                default:
                    throw Failure(status: status)
                }
            }
        }
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        return output
    }
}
