import Foundation

extension AsyncSequence where Self: Sendable, Element == Data {
    /// The chunks' bytes, one by one.
    public var bytes: AsyncByteSequence<Self> { AsyncByteSequence(base: self) }

    /// The chunks split into lines at `\n` (a trailing `\r` is dropped), as
    /// UTF-8 text. A last line without a newline is included.
    ///
    /// - Parameter maximumLength: a line longer than this many bytes (its
    ///   `\n` not counted, a `\r` before it counted) fails with
    ///   ``HTTPClientError/responseTooLarge(limit:)``, however the chunks cut
    ///   it, so a stream without newlines cannot grow the buffer without bound.
    public func lines(maximumLength: Int = 1024 * 1024) -> AsyncLineSequence<Self> {
        AsyncLineSequence(base: self, maximumLength: maximumLength)
    }
}

/// The bytes of a sequence of chunks. See ``HTTPBody/bytes``.
public struct AsyncByteSequence<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == Data {
    /// The type of the values the sequence produces.
    public typealias Element = UInt8
    let base: Base

    /// An iterator over the sequence's elements.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator())
    }

    /// Produces the sequence's elements, reading the underlying chunks as it needs them.
    public struct Iterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        var chunk = Data()
        var index = 0

        /// The next element, or `nil` at the end of the sequence.
        public mutating func next() async throws -> UInt8? {
            while index >= chunk.count {
                guard let next = try await base.next() else { return nil }
                chunk = next
                index = 0
            }
            defer { index += 1 }
            return chunk[chunk.startIndex + index]
        }
    }
}

/// Lines of UTF-8 text from a sequence of chunks. See ``HTTPBody/lines(maximumLength:)``.
public struct AsyncLineSequence<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == Data {
    /// The type of the values the sequence produces.
    public typealias Element = String
    let base: Base
    let maximumLength: Int
    /// Whether a lone `\r` ends a line too, as in Server-Sent Events (a
    /// `\r\n` is still one line end, however the chunks cut it).
    var splitsAtCarriageReturn = false

    /// An iterator over the sequence's elements.
    public func makeAsyncIterator() -> Iterator {
        Iterator(
            base: base.makeAsyncIterator(),
            maximumLength: maximumLength,
            splitsAtCarriageReturn: splitsAtCarriageReturn
        )
    }

    /// Produces the sequence's elements, reading the underlying chunks as it needs them.
    public struct Iterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let maximumLength: Int
        let splitsAtCarriageReturn: Bool
        /// Bytes received and not all handed out yet: the lines start at
        /// `start`. Consumed lines only move `start`; the bytes before it are
        /// dropped once per chunk received, so a chunk of many lines costs
        /// time in proportion to its size, not to its size times its lines.
        var buffer = Data()
        /// Offset (from `buffer.startIndex`) of the first byte not handed out.
        var start = 0
        /// Offset (from `buffer.startIndex`) where to look for the next line
        /// end: everything from `start` to it was searched.
        var searched = 0
        var ended = false
        /// A line ended at a `\r` that was the last byte so far: a `\n` first
        /// in the next chunk belongs to that line end.
        var skipsNewline = false

        init(base: Base.AsyncIterator, maximumLength: Int, splitsAtCarriageReturn: Bool = false) {
            self.base = base
            self.maximumLength = maximumLength
            self.splitsAtCarriageReturn = splitsAtCarriageReturn
        }

        /// The bytes received and not handed out as lines yet.
        var bufferedCount: Int { buffer.count - start }

        /// The next element, or `nil` at the end of the sequence.
        public mutating func next() async throws -> String? {
            let newline = UInt8(ascii: "\n")
            let carriageReturn = UInt8(ascii: "\r")
            while true {
                if skipsNewline, start < buffer.count {
                    skipsNewline = false
                    if buffer[buffer.startIndex + start] == newline {
                        start += 1
                        searched = Swift.max(searched, start)
                    }
                }
                let lineStart = buffer.startIndex + start
                if let offset = Self.lineEnd(in: buffer, from: searched, atCarriageReturn: splitsAtCarriageReturn) {
                    let end = buffer.startIndex + offset
                    // Checked here too: a whole line can arrive in one chunk,
                    // and the limit must not depend on how the bytes were cut.
                    guard end - lineStart <= maximumLength else {
                        throw HTTPClientError.responseTooLarge(limit: maximumLength)
                    }
                    var line = buffer[lineStart..<end]
                    var rest = end + 1
                    if buffer[end] == carriageReturn {
                        // A lone `\r` ends the line; so does `\r\n`, in one or two chunks.
                        if rest < buffer.endIndex {
                            if buffer[rest] == newline { rest += 1 }
                        } else {
                            skipsNewline = true
                        }
                    } else if line.last == carriageReturn {
                        line = line.dropLast()
                    }
                    start = rest - buffer.startIndex
                    searched = start
                    return String(decoding: line, as: UTF8.self)
                }
                searched = buffer.count
                guard buffer.count - start <= maximumLength else {
                    throw HTTPClientError.responseTooLarge(limit: maximumLength)
                }
                if ended {
                    guard start < buffer.count else { return nil }
                    var line = buffer[lineStart...]
                    buffer = Data()
                    start = 0
                    searched = 0
                    if line.last == carriageReturn { line = line.dropLast() }
                    return String(decoding: line, as: UTF8.self)
                }
                if let chunk = try await base.next() {
                    append(chunk)
                } else {
                    ended = true
                }
            }
        }

        /// The offset of the first line end in `buffer` at or after `offset`.
        static func lineEnd(in buffer: Data, from offset: Int, atCarriageReturn: Bool) -> Int? {
            buffer.withUnsafeBytes { bytes in
                if !atCarriageReturn {
                    return bytes[offset...].firstIndex(of: UInt8(ascii: "\n"))
                }
                return bytes[offset...].firstIndex { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }
            }
        }

        /// Adds a chunk after the bytes not handed out yet, dropping those
        /// that were: at most once per chunk, and only the unfinished line is
        /// copied (each byte at most once, since it is then at the start).
        private mutating func append(_ chunk: Data) {
            guard !chunk.isEmpty else { return }
            if start == buffer.count {
                // Everything was handed out: take the chunk as it is, no copy.
                buffer = chunk
                start = 0
                searched = 0
                return
            }
            if start > 0 {
                buffer.removeSubrange(buffer.startIndex..<(buffer.startIndex + start))
                searched -= start
                start = 0
            }
            buffer.append(chunk)
        }
    }
}

extension AsyncSequence where Self: Sendable, Element == Data {
    /// Newline-delimited JSON (NDJSON, JSON Lines): one `Value` per line,
    /// blank lines skipped.
    ///
    /// ```swift
    /// let events = try await client.stream(Request<Void>.get("/events"))
    /// for try await event in events.body.jsonLines(of: PhotoMetadata.self) {
    ///     favourites[event.id] = event.favoriteCount
    /// }
    /// ```
    ///
    /// A line that does not decode fails with
    /// ``HTTPClientError/decodingFailed(underlying:bodyExcerpt:)`` carrying the line.
    public func jsonLines<Value: Decodable>(
        of type: Value.Type,
        decoder: JSONDecoder = JSONDecoder(),
        maximumLineLength: Int = 1024 * 1024
    ) -> AsyncJSONLineSequence<Self, Value> {
        AsyncJSONLineSequence(lines: lines(maximumLength: maximumLineLength), decoder: decoder)
    }
}

/// Values decoded from newline-delimited JSON. See ``HTTPBody/jsonLines(of:decoder:maximumLineLength:)``.
public struct AsyncJSONLineSequence<Base: AsyncSequence & Sendable, Value: Decodable>: AsyncSequence
where Base.Element == Data {
    /// The type of the values the sequence produces.
    public typealias Element = Value
    let lines: AsyncLineSequence<Base>
    let decoder: JSONDecoder

    /// An iterator over the sequence's elements.
    public func makeAsyncIterator() -> Iterator {
        Iterator(lines: lines.makeAsyncIterator(), decoder: decoder)
    }

    /// Produces the sequence's elements, reading the underlying chunks as it needs them.
    public struct Iterator: AsyncIteratorProtocol {
        var lines: AsyncLineSequence<Base>.Iterator
        let decoder: JSONDecoder

        /// The next element, or `nil` at the end of the sequence.
        public mutating func next() async throws -> Value? {
            while let line = try await lines.next() {
                guard !line.allSatisfy(\.isWhitespace) else { continue }
                let data = Data(line.utf8)
                do {
                    return try decoder.decode(Value.self, from: data)
                } catch {
                    throw HTTPClientError.decodingFailed(error, body: data)
                }
            }
            return nil
        }
    }
}

extension AsyncJSONLineSequence: Sendable where Value: Sendable {}
