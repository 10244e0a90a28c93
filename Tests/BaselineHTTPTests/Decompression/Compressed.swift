import CZlib
import Foundation

/// Bytes compressed by zlib in one call, to stand for what a server sends.
enum Compressed {
    enum Format {
        case gzip, zlib, raw

        var windowBits: Int32 {
            switch self {
            case .gzip: 15 + 16
            case .zlib: 15
            case .raw: -15
            }
        }
    }

    struct Failure: Error {
        var status: Int32
    }

    static func bytes(_ input: Data, as format: Format) throws -> Data {
        var stream = z_stream()
        var status = czlib_deflate_init(&stream, 6, format.windowBits)
        guard status == Z_OK else { throw Failure(status: status) }
        defer { deflateEnd(&stream) }
        // Room for any input (gzip's header and trailer included), so one call finishes.
        var output = Data(count: Int(deflateBound(&stream, uLong(input.count))) + 32)
        let produced = input.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { target in
                stream.next_in = UnsafeMutablePointer(mutating: source.bindMemory(to: Bytef.self).baseAddress)
                stream.avail_in = uInt(source.count)
                stream.next_out = target.bindMemory(to: Bytef.self).baseAddress
                stream.avail_out = uInt(target.count)
                status = deflate(&stream, Z_FINISH)
                return target.count - Int(stream.avail_out)
            }
        }
        guard status == Z_STREAM_END else { throw Failure(status: status) }
        output.count = produced
        return output
    }
}
