import Foundation

/// Bytes delivered as the given chunks: how a body arrives from the network.
public struct Chunks: AsyncSequence, Sendable {
    /// One chunk of the body.
    public typealias Element = Data
    /// The chunks, in order.
    public let chunks: [Data]

    /// The chunks, delivered in order.
    public init(_ chunks: [Data]) {
        self.chunks = chunks
    }

    /// `bytes` cut at `cuts` (offsets, clamped and sorted).
    public init(_ bytes: [UInt8], cutAt cuts: [Int]) {
        var pieces: [Data] = []
        var start = 0
        for cut in cuts.map({ Swift.min(Swift.max($0, 0), bytes.count) }).sorted() {
            pieces.append(Data(bytes[start..<Swift.max(start, cut)]))
            start = Swift.max(start, cut)
        }
        pieces.append(Data(bytes[start...]))
        chunks = pieces
    }

    /// An iterator over the chunks.
    public func makeAsyncIterator() -> Iterator {
        Iterator(chunks: chunks)
    }

    /// Delivers the chunks one by one.
    public struct Iterator: AsyncIteratorProtocol {
        var chunks: [Data]
        var index = 0

        /// The next chunk, or `nil` after the last.
        public mutating func next() async -> Data? {
            guard index < chunks.count else { return nil }
            defer { index += 1 }
            return chunks[index]
        }
    }
}
