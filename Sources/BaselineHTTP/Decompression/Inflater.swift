internal import CZlib
import Foundation

/// zlib's inflate, for one encoded body.
///
/// Not thread-safe: its one owner (``DecompressingReader``) calls it from
/// one read at a time.
final class Inflater {
    /// The wrapper around the deflate data.
    enum Format {
        /// gzip (RFC 1952): header, deflate data, CRC-32 and length.
        case gzip
        /// zlib (RFC 1950): header, deflate data, Adler-32.
        case zlib
        /// Deflate data alone (RFC 1951).
        case raw
    }

    /// A chunk of output and what it took.
    struct Step {
        var output: Data
        /// How many input bytes zlib took in.
        var consumed: Int
        /// The compressed stream is complete (its checksum matched).
        var ended: Bool
    }

    /// zlib's error, in its words.
    struct Failure: Error {
        var reason: String
    }

    private let stream: UnsafeMutablePointer<z_stream>

    init(_ format: Format) throws {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let windowBits: Int32 =
            switch format {
            case .gzip: 15 + 16
            case .zlib: 15
            case .raw: -15
            }
        let status = czlib_inflate_init(stream, windowBits)
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw Failure(reason: "zlib could not start (status \(status))")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Starts over for the next member of a multi-member gzip body.
    func reset() {
        inflateReset(stream)
    }

    /// Inflates `input` into at most `capacity` bytes. Input it does not
    /// take (the output was full, or the stream ended) is the caller's to
    /// pass again or to drop.
    func inflate(_ input: Data, capacity: Int) throws -> Step {
        var output = Data(count: capacity)
        var status: Int32 = Z_OK
        var consumed = 0
        var produced = 0
        input.withUnsafeBytes { (source: UnsafeRawBufferPointer) in
            output.withUnsafeMutableBytes { (target: UnsafeMutableRawBufferPointer) in
                let start = source.bindMemory(to: Bytef.self).baseAddress
                stream.pointee.next_in = UnsafeMutablePointer(mutating: start)
                // zlib counts in 32 bits: what does not fit is the caller's
                // to pass again, as any input zlib leaves.
                stream.pointee.avail_in = uInt(clamping: source.count)
                stream.pointee.next_out = target.bindMemory(to: Bytef.self).baseAddress
                stream.pointee.avail_out = uInt(clamping: target.count)
                status = CZlib.inflate(stream, Z_NO_FLUSH)
                consumed = Int(uInt(clamping: source.count) - stream.pointee.avail_in)
                produced = Int(uInt(clamping: target.count) - stream.pointee.avail_out)
                // zlib keeps no pointer past this call that we rely on.
                stream.pointee.next_in = nil
                stream.pointee.next_out = nil
            }
        }
        output.count = produced
        switch status {
        case Z_OK:
            return Step(output: output, consumed: consumed, ended: false)
        case Z_STREAM_END:
            return Step(output: output, consumed: consumed, ended: true)
        case Z_BUF_ERROR:
            // No progress was possible: zlib wants more input.
            return Step(output: output, consumed: consumed, ended: false)
        case Z_NEED_DICT:
            throw Failure(reason: "the stream needs a preset dictionary")
        case Z_MEM_ERROR:
            throw Failure(reason: "zlib ran out of memory")
        default:
            let message = stream.pointee.msg.map { String(cString: $0) } ?? "status \(status)"
            throw Failure(reason: "the data is corrupt (\(message))")
        }
    }
}
