import Foundation

/// The bytes of a request or response body: held whole, or arriving in chunks.
///
/// A value type so that middleware can read, replace or replay a body. A
/// body held whole can be read any number of times; a streamed body (a
/// response as the network delivers it) can be read once.
///
/// Read it with ``collect(upTo:)``, which enforces a size limit as the bytes
/// arrive: a response larger than the limit fails as soon as it is known to
/// be (from its declared length, or when the limit is crossed), and stops
/// the transfer, instead of being received whole first.
public struct HTTPBody: Sendable {
    enum Storage: Sendable {
        case buffered(Data)
        case chunks(AsyncThrowingStream<Data, any Error>, length: Int?)
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

    /// A body that arrives as `chunks`, of `length` bytes when known. It can
    /// be read once; ending the read early ends the stream, which a transport
    /// takes as the signal to stop receiving.
    public init(chunks: AsyncThrowingStream<Data, any Error>, length: Int?) {
        storage = .chunks(chunks, length: length)
    }

    /// An empty body.
    public static let empty = HTTPBody(Data())

    /// The body's length in bytes, when it is known before reading it.
    public var knownLength: Int? {
        switch storage {
        case let .buffered(data): data.count
        case let .chunks(_, length): length
        }
    }

    /// The whole body, or ``HTTPClientError/responseTooLarge(limit:)`` as soon
    /// as it is known to have more than `limit` bytes.
    public func collect(upTo limit: Int) async throws -> Data {
        switch storage {
        case let .buffered(data):
            guard data.count <= limit else { throw HTTPClientError.responseTooLarge(limit: limit) }
            return data
        case let .chunks(chunks, length):
            if let length, length > limit { throw HTTPClientError.responseTooLarge(limit: limit) }
            var data = Data()
            if let length { data.reserveCapacity(length) }
            for try await chunk in chunks {
                guard data.count + chunk.count <= limit else { throw HTTPClientError.responseTooLarge(limit: limit) }
                data.append(chunk)
            }
            return data
        }
    }
}
