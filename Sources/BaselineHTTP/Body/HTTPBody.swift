import BaselineConcurrency
import Foundation

/// The bytes of a request or response body: held whole, read from a file, or
/// arriving in chunks.
///
/// A body is an `AsyncSequence` of `Data` chunks. A body held whole or read
/// from a file can be read any number of times (``isReplayable``), so
/// middleware may resend it; a streamed body (a response as the network
/// delivers it) can be read once.
///
/// ```swift
/// let response = try await client.stream(Request<Void>.get("/events"))
/// for try await event in response.body.jsonLines(of: PhotoMetadata.self) { ... }
/// ```
///
/// Read a whole body with ``collect(upTo:)``, which enforces a size limit as
/// the bytes arrive: a response larger than the limit fails as soon as it is
/// known to be (from its declared length, or when the limit is crossed), and
/// stops the transfer, instead of being received whole first. Stopping a
/// loop over a streamed body early (or calling ``discard()``) also stops the
/// transfer.
public struct HTTPBody: Sendable, AsyncSequence {
    /// The type of the values the sequence produces.
    public typealias Element = Data
    /// The error reading the body throws.
    public typealias Failure = any Error

    enum Storage: Sendable {
        case buffered(Data)
        /// Bytes in memory and files, concatenated (a file upload, a multipart form).
        case segments([Segment], length: Int)
        case stream(any ChunkReader, length: Int?)
    }

    enum Segment: Sendable {
        case data(Data)
        case file(URL, length: Int)
    }

    let storage: Storage

    /// A body holding `data`.
    public init(_ data: Data) {
        storage = .buffered(data)
    }

    /// A body holding the UTF-8 bytes of `string`.
    public init(_ string: String) {
        storage = .buffered(Data(string.utf8))
    }

    /// A body read from the file at `fileURL` in chunks, as it is sent, so a
    /// large upload never sits in memory whole.
    ///
    /// - Throws: ``HTTPClientError/invalidRequest(reason:)`` when the file
    ///   cannot be read.
    public init(contentsOf fileURL: URL) throws {
        let size = try Self.fileSize(at: fileURL)
        storage = .segments([.file(fileURL, length: size)], length: size)
    }

    /// Bytes and files sent one after the other.
    ///
    /// - Throws: ``HTTPClientError/invalidRequest(reason:)`` when their
    ///   sizes add up to more than `Int.max` (sparse files can be that large).
    init(segments: [Segment]) throws {
        var length = 0
        for segment in segments {
            let size =
                switch segment {
                case let .data(data): data.count
                case let .file(_, length): length
                }
            let (sum, overflow) = length.addingReportingOverflow(size)
            guard !overflow else {
                throw HTTPClientError.invalidRequest(reason: "The body's parts add up to more than \(Int.max) bytes")
            }
            length = sum
        }
        storage = .segments(segments, length: length)
    }

    static func fileSize(at fileURL: URL) throws -> Int {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: fileURL.path)
        } catch {
            throw HTTPClientError.invalidRequest(reason: "The file \(fileURL.path) cannot be read: \(error)")
        }
        guard (attributes[.type] as? FileAttributeType) == .typeRegular,
            let size = (attributes[.size] as? NSNumber)?.intValue
        else {
            throw HTTPClientError.invalidRequest(reason: "\(fileURL.path) is not a regular file")
        }
        return size
    }

    /// The single file this body is, if it is one (transports can upload it directly).
    var fileURL: URL? {
        if case let .segments(segments, _) = storage, segments.count == 1, case let .file(url, _) = segments[0] {
            url
        } else {
            nil
        }
    }

    /// A body that arrives as `chunks`, of `length` bytes when known. It can
    /// be read once. Ending the read early drops the sequence's iterator:
    /// sequences whose producers watch for that (NIO's, AsyncHTTPClient's)
    /// stop there; an `AsyncThrowingStream`'s producer is not told.
    public init<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks, length: Int?) where Chunks.Element == Data {
        storage = .stream(SequenceReader(chunks), length: length)
    }

    /// A body fed by a ``BodyChannel``.
    init(channel: BodyChannel, length: Int?) {
        storage = .stream(channel, length: length)
    }

    /// A body that `reader` produces (a ``DecompressingReader``, say).
    init(_ reader: any ChunkReader, length: Int?) {
        storage = .stream(reader, length: length)
    }

    /// An empty body.
    public static let empty = HTTPBody(Data())

    /// The body's length in bytes, when it is known before reading it.
    public var knownLength: Int? {
        switch storage {
        case let .buffered(data): data.count
        case let .segments(_, length): length
        case let .stream(_, length): length
        }
    }

    /// Whether the body can be read more than once: true for bodies held in
    /// memory or read from a file, false for streamed ones. Middleware that
    /// resends a request (retry, authentication) checks this first.
    public var isReplayable: Bool {
        if case .stream = storage { false } else { true }
    }

    /// The whole body, or ``HTTPClientError/responseTooLarge(limit:)`` as soon
    /// as it is known to have more than `limit` bytes.
    public func collect(upTo limit: Int) async throws -> Data {
        if case let .buffered(data) = storage {
            guard data.count <= limit else { throw HTTPClientError.responseTooLarge(limit: limit) }
            return data
        }
        if let length = knownLength, length > limit { throw HTTPClientError.responseTooLarge(limit: limit) }
        if case let .stream(reader, length) = storage {
            // The reader directly, without the iterator's `StreamIteration`
            // (an allocation per response): this loop is the only reader, and
            // it cancels the producer itself when it stops early.
            guard reader.claim() else { throw HTTPBodyError.alreadyConsumed }
            var gathered = Gathered(expectedLength: length, limit: limit)
            do {
                while let chunk = try await reader.next() {
                    try gathered.append(chunk)
                }
                // A stream ended by cancelling the reading task is a cancellation, not an end.
                try Task.checkCancellation()
            } catch {
                reader.cancel()
                throw Task.isCancelled ? CancellationError() : error
            }
            return gathered.data
        }
        var gathered = Gathered(expectedLength: knownLength, limit: limit)
        for try await chunk in self {
            try gathered.append(chunk)
        }
        return gathered.data
    }

    /// A body's chunks gathered into one `Data`, up to a limit.
    ///
    /// A small response usually arrives as one chunk: it is returned as it
    /// came, and a buffer is made only when a second chunk follows.
    private struct Gathered {
        let expectedLength: Int?
        let limit: Int
        var first: Data?
        var whole = Data()
        var received = 0

        init(expectedLength: Int?, limit: Int) {
            self.expectedLength = expectedLength
            self.limit = limit
        }

        mutating func append(_ chunk: Data) throws {
            guard !chunk.isEmpty else { return }
            // Compared before adding: a limit of `Int.max` cannot overflow.
            guard chunk.count <= limit - received else { throw HTTPClientError.responseTooLarge(limit: limit) }
            received += chunk.count
            if first == nil, whole.isEmpty {
                first = chunk
                return
            }
            if let head = first {
                whole.reserveCapacity(Swift.max(expectedLength ?? 0, received))
                whole.append(head)
                first = nil
            }
            whole.append(chunk)
        }

        var data: Data {
            if let first { return first.startIndex == 0 ? first : Data(first) }
            return whole
        }
    }

    /// Stops a streamed body that will not be read (a response that is about
    /// to be retried, say), so the transport stops receiving it. Does nothing
    /// to a body held in memory or in a file.
    public func discard() {
        if case let .stream(source, _) = storage { source.cancel() }
    }

    /// Starts reading; iterate the body once.
    public func makeAsyncIterator() -> Iterator {
        switch storage {
        case let .buffered(data): Iterator(.buffered(data.isEmpty ? nil : data))
        case let .segments(segments, _): Iterator(.segments(SegmentReader(segments)))
        case let .stream(reader, _): Iterator(.stream(StreamIteration(reader)))
        }
    }

    /// Reads a body chunk by chunk.
    public struct Iterator: AsyncIteratorProtocol {
        enum Mode {
            case buffered(Data?)
            case segments(SegmentReader)
            case stream(StreamIteration)
        }

        var mode: Mode

        init(_ mode: Mode) {
            self.mode = mode
        }

        /// The next element, or `nil` at the end of the sequence.
        public mutating func next() async throws -> Data? {
            switch mode {
            case let .buffered(data):
                mode = .buffered(nil)
                return data
            case let .segments(reader):
                return try reader.next()
            case let .stream(iteration):
                return try await iteration.next()
            }
        }
    }
}

/// Something that hands out a streamed body's chunks to one reader.
protocol ChunkReader: Sendable {
    /// Claims the single read: true the first time, false for any later
    /// reader (which then gets ``HTTPBodyError/alreadyConsumed``).
    func claim() -> Bool
    /// The next chunk, or nil at the end.
    func next() async throws -> Data?
    /// The reader stopped early: stop producing.
    func cancel()
}

/// One read of a streamed body. Released before the end (the loop broke out,
/// or threw), it cancels the producer so the transfer stops.
// `finished` is written only by `next()`, which the body's iterator calls
// one at a time, and read by `deinit`, which runs once no reference is left.
final class StreamIteration: @unchecked Sendable {  // safety: see above
    private let reader: (any ChunkReader)?
    private var finished = false

    init(_ reader: any ChunkReader) {
        self.reader = reader.claim() ? reader : nil
    }

    func next() async throws -> Data? {
        guard let reader else { throw HTTPBodyError.alreadyConsumed }
        do {
            guard let chunk = try await reader.next() else {
                finished = true
                // A stream ended by cancelling the reading task is a cancellation, not an end.
                try Task.checkCancellation()
                return nil
            }
            return chunk
        } catch {
            finished = true
            throw Task.isCancelled ? CancellationError() : error
        }
    }

    deinit {
        if !finished { reader?.cancel() }
    }
}

/// Reads bytes and files in order, files in chunks (they are local, so a
/// plain read is short).
final class SegmentReader: Sendable {
    static let chunkSize = 64 * 1024

    private struct State {
        var remaining: ArraySlice<HTTPBody.Segment>
        var file: (handle: FileHandle, url: URL)?
    }

    private let state: LockedValue<State>

    init(_ segments: [HTTPBody.Segment]) {
        state = LockedValue(State(remaining: segments[...]))
    }

    func next() throws -> Data? {
        try state.withLock { state -> Data? in
            while true {
                if let (handle, url) = state.file {
                    let chunk: Data
                    do {
                        chunk = try handle.read(upToCount: Self.chunkSize) ?? Data()
                    } catch {
                        throw HTTPClientError.invalidRequest(reason: "The file \(url.path) could not be read: \(error)")
                    }
                    if !chunk.isEmpty { return chunk }
                    try? handle.close()
                    state.file = nil
                }
                guard let segment = state.remaining.popFirst() else { return nil }
                switch segment {
                case let .data(data):
                    if !data.isEmpty { return data }
                case let .file(url, _):
                    do {
                        state.file = (try FileHandle(forReadingFrom: url), url)
                    } catch {
                        throw HTTPClientError.invalidRequest(
                            reason: "The file \(url.path) could not be opened: \(error)"
                        )
                    }
                }
            }
        }
    }

    deinit {
        state.withLock { try? $0.file?.handle.close() }
    }
}

/// Reads any `AsyncSequence` of chunks, once.
///
/// ``HTTPBody/discard()`` may call ``cancel()`` from any task while a read is
/// waiting for a chunk. The iterator therefore lives under a lock, and a
/// read takes it out for the duration of its `next()`: a cancel that comes
/// then marks the reader cancelled, and the read drops the iterator when it
/// returns (for a generic sequence, dropping the iterator is the only way to
/// say "stop").
///
/// A struct around one lock that holds everything, sequence included, so a
/// streamed body costs one allocation here, and the reader fits in an
/// existential's inline buffer without a box of its own.
// The state is read and written only under its lock; an iterator taken out
// by `next()` belongs to that call alone until it is put back under the
// lock, and the body's single reader makes one call at a time.
struct SequenceReader<Chunks: AsyncSequence & Sendable>: ChunkReader, @unchecked Sendable  // safety: see above
where Chunks.Element == Data {
    private struct State {
        let chunks: Chunks
        var iterator: Chunks.AsyncIterator?
        var claimed = false
        var started = false
        var cancelled = false
    }

    private let state: LockStorage<State>

    init(_ chunks: Chunks) {
        state = LockStorage.make(holding: State(chunks: chunks))
    }

    func claim() -> Bool {
        state.withLock { state in
            defer { state.claimed = true }
            return !state.claimed
        }
    }

    func next() async throws -> Data? {
        let taken: Chunks.AsyncIterator? = state.withLock { state in
            guard !state.cancelled else { return nil }
            if !state.started {
                state.started = true
                return state.chunks.makeAsyncIterator()
            }
            return state.iterator.take()
        }
        guard var current = taken else { return nil }
        let chunk = try await current.next()
        state.withLock { state in
            // Cancelled meanwhile: drop the iterator here instead.
            if !state.cancelled { state.iterator = current }
        }
        return chunk
    }

    func cancel() {
        let dropped = state.withLock { state in
            state.cancelled = true
            return state.iterator.take()
        }
        // Released after the lock: an iterator's deinit may do work.
        withExtendedLifetime(dropped) {}
    }
}

/// Misuse of a streamed body.
public enum HTTPBodyError: Error, Sendable, Equatable {
    /// A streamed body was read a second time.
    case alreadyConsumed
}
