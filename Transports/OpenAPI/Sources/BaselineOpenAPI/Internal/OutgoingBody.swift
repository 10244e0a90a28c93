import BaselineHTTP
import Foundation
import OpenAPIRuntime

/// A generated client's request body as a Baseline body.
///
/// Baseline's retry and bearer-refresh middleware send a request again only
/// when its body is replayable (held in memory or in a file), since a stream
/// half drained cannot be resent. An OpenAPI body may be iterable once, and
/// says so, but not whether it is in memory; so a body that fits the limit
/// is read into memory (the generated client's JSON and form bodies always
/// are in memory already: this costs a copy), and a larger one streams.
enum OutgoingBody {
    /// `body` held whole when it has at most `limit` bytes; otherwise a
    /// stream of the bytes read so far followed by the rest.
    ///
    /// A body that declares a length above `limit` is not read here at
    /// all. One of unknown length (a multipart form, a stream the caller
    /// made) is read up to the limit: a small one is then held, and a
    /// large one costs no more than the limit in memory before it streams.
    ///
    /// - Throws: `CancellationError`, or `HTTPClientError.transport(underlying:)`
    ///   with the body's own error when reading it fails (as when the
    ///   transport reads a streamed body).
    static func make(
        from body: OpenAPIRuntime.HTTPBody,
        replayableUpTo limit: Int
    ) async throws -> BaselineHTTP.HTTPBody {
        let declared: Int? =
            switch body.length {
            case let .known(length): length >= 0 ? Int(exactly: length) : nil
            case .unknown: nil
            }
        var iterator = body.makeAsyncIterator()
        if let declared, declared > limit {
            return BaselineHTTP.HTTPBody(Remainder(read: Data(), rest: iterator), length: declared)
        }
        var read = Data()
        if let declared { read.reserveCapacity(declared) }
        while true {
            let next: ArraySlice<UInt8>?
            do {
                next = try await iterator.next()
            } catch {
                if error is CancellationError || Task.isCancelled { throw CancellationError() }
                throw HTTPClientError.transport(underlying: error)
            }
            guard let chunk = next else {
                try Task.checkCancellation()
                return BaselineHTTP.HTTPBody(read)
            }
            // Compared before adding: no overflow, whatever the limit.
            guard chunk.count <= limit - read.count else {
                read.append(contentsOf: chunk)
                // A declared length the body has already run past is no length.
                let length = declared.flatMap { $0 >= read.count ? $0 : nil }
                return BaselineHTTP.HTTPBody(Remainder(read: read, rest: iterator), length: length)
            }
            read.append(contentsOf: chunk)
        }
    }

    /// The bytes already read from a body, then the rest from its iterator.
    struct Remainder: AsyncSequence, Sendable {
        typealias Element = Data

        /// The body's iterator, handed from the task that read the start of
        /// the body to the body's one reader.
        // The iterator is used by one task at a time: the one that made it,
        // until it builds this box, then the single reader Baseline hands a
        // streamed body to, which takes it out once (under the lock) and
        // calls it one call at a time.
        final class Rest: @unchecked Sendable {  // safety: see above
            private let lock = NSLock()
            private var iterator: OpenAPIRuntime.HTTPBody.Iterator?

            init(_ iterator: OpenAPIRuntime.HTTPBody.Iterator) {
                self.iterator = iterator
            }

            func take() -> OpenAPIRuntime.HTTPBody.Iterator? {
                lock.withLock {
                    defer { iterator = nil }
                    return iterator
                }
            }
        }

        let read: Data
        let rest: Rest

        init(read: Data, rest: OpenAPIRuntime.HTTPBody.Iterator) {
            self.read = read
            self.rest = Rest(rest)
        }

        func makeAsyncIterator() -> Iterator {
            // A second reader gets nothing (Baseline reads a streamed body once).
            let taken = rest.take()
            return Iterator(read: taken == nil || read.isEmpty ? nil : read, rest: taken)
        }

        struct Iterator: AsyncIteratorProtocol {
            var read: Data?
            var rest: OpenAPIRuntime.HTTPBody.Iterator?

            mutating func next() async throws -> Data? {
                if let first = read {
                    read = nil
                    return first
                }
                return try await rest?.next().map { Data($0) }
            }
        }
    }
}
