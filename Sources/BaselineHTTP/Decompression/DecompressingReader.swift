import Foundation

/// A response body inflated as it is read.
///
/// Each read hands out at most ``chunkSize`` inflated bytes, holding no more
/// than one compressed chunk besides, so a small body that inflates to a
/// huge one (a "zip bomb") costs no memory before the reader's size limit
/// refuses it.
///
/// A body that ends before its compressed stream does fails with
/// ``HTTPClientError/decompressionFailed(contentEncoding:reason:)``, rather
/// than passing as a shorter body. An empty body (the answer to a `HEAD`, a
/// 304) stays empty.
///
/// The size limit counts inflated bytes, so compressed bytes that inflate to
/// nothing must not be read without end either: bytes after the compressed
/// data (other than another gzip member) end the body there and stop the
/// transfer, and more than ``maximumBytesWithoutOutput`` compressed bytes in
/// a row that inflate to nothing (empty blocks, empty gzip members, a
/// header's extra fields) fail the body.
// The inflate state is touched only by `next()`, which the body's single
// reader (`StreamIteration`) calls one at a time; `cancel()`, which may come
// from any task, touches only `upstream`, itself safe to cancel concurrently.
final class DecompressingReader: ChunkReader, @unchecked Sendable {  // safety: see above
    /// The most one read returns.
    static let chunkSize = 64 * 1024
    /// The most compressed bytes in a row that may inflate to nothing. A
    /// real stream's headers and flushes take a few bytes each between
    /// bytes of output.
    static let maximumBytesWithoutOutput = 1024 * 1024

    private let coding: ContentCoding
    /// The compressed body, kept to stop its transfer on `cancel()` even
    /// before the first read (when `upstream` has nothing to drop yet).
    private let body: HTTPBody
    private let upstream: SequenceReader<HTTPBody>
    private var inflater: Inflater?
    /// Compressed bytes received and not yet taken by zlib.
    private var pending = Data()
    private var receivedAny = false
    private var upstreamEnded = false
    /// The current compressed stream ended; what follows is another gzip
    /// member or trailing bytes.
    private var streamEnded = false
    /// The last inflate filled its output: zlib may hold more output
    /// without needing another input byte.
    private var outputPending = false
    /// Compressed bytes taken since the last inflated byte.
    private var bytesWithoutOutput = 0

    init(_ body: HTTPBody, coding: ContentCoding) {
        self.coding = coding
        self.body = body
        self.upstream = SequenceReader(body)
    }

    func next() async throws -> Data? {
        while true {
            if !pending.isEmpty || outputPending, let output = try inflatePending() {
                return output
            }
            if upstreamEnded {
                guard !receivedAny || streamEnded else {
                    throw failure("the body ended before its compressed data did")
                }
                return nil
            }
            if let chunk = try await upstream.next() {
                guard !chunk.isEmpty else { continue }
                receivedAny = true
                pending = pending.isEmpty ? chunk : pending + chunk
            } else {
                upstreamEnded = true
            }
        }
    }

    /// The upstream reader is this reader's alone: claiming it claims this one.
    func claim() -> Bool {
        upstream.claim()
    }

    func cancel() {
        upstream.cancel()
        body.discard()
    }

    /// Inflates what is pending: some output, or nil when zlib needs more
    /// input (or what is pending is dropped, after the stream's end).
    private func inflatePending() throws -> Data? {
        while !pending.isEmpty || outputPending {
            if streamEnded {
                // Only gzip may carry several members, each opening with its
                // magic number; other trailing bytes are ignored, as browsers
                // and curl do. They are not read to their end, though: they
                // inflate to nothing, so the size limit would never stop an
                // endless run of them.
                guard coding == .gzip, let inflater else {
                    stopReading()
                    return nil
                }
                if pending.count < 2 && !upstreamEnded { return nil }
                guard pending.starts(with: [0x1F, 0x8B]) else {
                    stopReading()
                    return nil
                }
                inflater.reset()
                streamEnded = false
            }
            guard let inflater = try startedInflater() else { return nil }
            let step: Inflater.Step
            do {
                step = try inflater.inflate(pending, capacity: Self.chunkSize)
            } catch let error as Inflater.Failure {
                throw failure(error.reason)
            }
            pending = step.consumed == pending.count ? Data() : pending.dropFirst(step.consumed)
            if step.output.isEmpty {
                // Both at most the limit or a chunk: no overflow.
                bytesWithoutOutput += step.consumed
                guard bytesWithoutOutput <= Self.maximumBytesWithoutOutput else {
                    throw failure("more than \(Self.maximumBytesWithoutOutput) compressed bytes inflated to nothing")
                }
            } else {
                bytesWithoutOutput = 0
            }
            streamEnded = step.ended
            outputPending = step.output.count == Self.chunkSize && !step.ended
            if !step.output.isEmpty { return step.output }
            if step.consumed == 0 && !step.ended { return nil }
        }
        return nil
    }

    /// Ends the body after the compressed data: drops what is pending and
    /// stops the transfer of the rest.
    private func stopReading() {
        pending = Data()
        upstreamEnded = true
        upstream.cancel()
        body.discard()
    }

    /// The inflater, made on the first bytes: for `deflate` they tell a zlib
    /// stream from a raw one. Nil while there are too few bytes to tell.
    private func startedInflater() throws -> Inflater? {
        if let inflater { return inflater }
        let format: Inflater.Format
        switch coding {
        case .gzip:
            format = .gzip
        default:
            guard pending.count >= 2 || upstreamEnded else { return nil }
            format = Self.hasZlibHeader(pending) ? .zlib : .raw
        }
        do {
            let made = try Inflater(format)
            inflater = made
            return made
        } catch let error as Inflater.Failure {
            throw failure(error.reason)
        }
    }

    /// Whether `bytes` start with a zlib header (RFC 1950 §2.2): deflate
    /// with a window of at most 32 KiB, and a check value that makes the
    /// first two bytes a multiple of 31.
    static func hasZlibHeader(_ bytes: Data) -> Bool {
        guard bytes.count >= 2 else { return false }
        let first = bytes[bytes.startIndex]
        let second = bytes[bytes.startIndex + 1]
        return first & 0x0F == 8 && first >> 4 <= 7 && (UInt16(first) << 8 | UInt16(second)) % 31 == 0
    }

    private func failure(_ reason: String) -> HTTPClientError {
        .decompressionFailed(contentEncoding: coding.name, reason: reason)
    }
}
