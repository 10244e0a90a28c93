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
        case stream(ChunkSource, length: Int?)
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
    init(segments: [Segment]) {
        let length = segments.reduce(0) { total, segment in
            switch segment {
            case let .data(data): total + data.count
            case let .file(_, length): total + length
            }
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
        storage = .stream(ChunkSource(SequenceReader(chunks)), length: length)
    }

    /// A body fed by a ``BodyChannel``.
    init(channel: BodyChannel, length: Int?) {
        storage = .stream(ChunkSource(channel), length: length)
    }

    /// A body that `reader` produces (a ``DecompressingReader``, say).
    init(_ reader: any ChunkReader, length: Int?) {
        storage = .stream(ChunkSource(reader), length: length)
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
        // A small response usually arrives as one chunk: it is returned as it
        // came, and a buffer is made only when a second chunk follows.
        var first: Data?
        var whole = Data()
        var received = 0
        for try await chunk in self where !chunk.isEmpty {
            received += chunk.count
            guard received <= limit else { throw HTTPClientError.responseTooLarge(limit: limit) }
            if first == nil, whole.isEmpty {
                first = chunk
                continue
            }
            if let head = first {
                whole.reserveCapacity(Swift.max(knownLength ?? 0, received))
                whole.append(head)
                first = nil
            }
            whole.append(chunk)
        }
        if let first { return first.startIndex == 0 ? first : Data(first) }
        return whole
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
        case let .stream(source, _): Iterator(.stream(StreamIteration(source)))
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

/// The producer side of a streamed body, read once.
final class ChunkSource: Sendable {
    private let reader: any ChunkReader
    private let claimed = OnceFlag()

    init(_ reader: any ChunkReader) {
        self.reader = reader
    }

    /// Claims the single read; a second reader gets an error.
    func claim() -> (any ChunkReader)? {
        claimed.set() ? reader : nil
    }

    func cancel() {
        reader.cancel()
    }
}

/// Something that hands out a streamed body's chunks to one reader.
protocol ChunkReader: Sendable {
    /// The next chunk, or nil at the end.
    func next() async throws -> Data?
    /// The reader stopped early: stop producing.
    func cancel()
}

/// One read of a streamed body. Released before the end (the loop broke out,
/// or threw), it cancels the producer so the transfer stops.
final class StreamIteration: Sendable {
    private let reader: (any ChunkReader)?
    private let finished = OnceFlag()

    init(_ source: ChunkSource) {
        reader = source.claim()
    }

    func next() async throws -> Data? {
        guard let reader else { throw HTTPBodyError.alreadyConsumed }
        do {
            guard let chunk = try await reader.next() else {
                _ = finished.set()
                // A stream ended by cancelling the reading task is a cancellation, not an end.
                try Task.checkCancellation()
                return nil
            }
            return chunk
        } catch {
            _ = finished.set()
            throw Task.isCancelled ? CancellationError() : error
        }
    }

    deinit {
        if !finished.isSet { reader?.cancel() }
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
/// waiting for a chunk. The iterator therefore lives under `lock`, and a read
/// takes it out for the duration of its `next()`: a cancel that comes then
/// marks the reader cancelled, and the read drops the iterator when it
/// returns (for a generic sequence, dropping the iterator is the only way to
/// say "stop").
// `iterator` and `cancelled` are read and written only under `lock`; an
// iterator taken out by `next()` belongs to that call alone until it is put
// back under the lock, and the body's single reader (`StreamIteration`) makes
// one call at a time.
final class SequenceReader<Chunks: AsyncSequence & Sendable>: ChunkReader, @unchecked Sendable  // safety: see above
where Chunks.Element == Data {
    private let chunks: Chunks
    private let lock = NSLock()
    private var iterator: Chunks.AsyncIterator?
    private var started = false
    private var cancelled = false

    init(_ chunks: Chunks) {
        self.chunks = chunks
    }

    func next() async throws -> Data? {
        let taken: Chunks.AsyncIterator? = lock.withLock {
            guard !cancelled else { return nil }
            if !started {
                started = true
                return chunks.makeAsyncIterator()
            }
            return iterator.take()
        }
        guard var current = taken else { return nil }
        let chunk = try await current.next()
        lock.withLock {
            // Cancelled meanwhile: drop the iterator here instead.
            if !cancelled { iterator = current }
        }
        return chunk
    }

    func cancel() {
        let dropped = lock.withLock {
            cancelled = true
            return iterator.take()
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

/// A flag that is set once.
final class OnceFlag: Sendable {
    private let value = LockedValue(false)

    /// Sets the flag; true when this call set it.
    func set() -> Bool {
        value.withLock { isSet in
            defer { isSet = true }
            return !isSet
        }
    }

    var isSet: Bool { value.current }
}
