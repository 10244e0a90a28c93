import Foundation

/// The bytes of a request or response body.
///
/// A value type so that middleware can read, replace or replay a body (a retry
/// sends the same body again). Read it with ``collect(upTo:)``, which enforces
/// the caller's size limit.
///
/// Today a body is held in memory whole: ``URLSessionTransport`` receives it
/// before the client's limit is checked. A streaming body, checked as it
/// arrives, is the next step for this type.
public struct HTTPBody: Sendable, Hashable {
    private let data: Data

    /// A body holding `data`.
    public init(_ data: Data) {
        self.data = data
    }

    /// A body holding the UTF-8 bytes of `string`.
    public init(_ string: String) {
        self.data = Data(string.utf8)
    }

    /// An empty body.
    public static let empty = HTTPBody(Data())

    /// The body's length in bytes, when it is known before reading it.
    public var knownLength: Int? { data.count }

    /// The whole body, or ``HTTPClientError/responseTooLarge(limit:)`` when it
    /// has more than `limit` bytes.
    public func collect(upTo limit: Int) async throws -> Data {
        guard data.count <= limit else { throw HTTPClientError.responseTooLarge(limit: limit) }
        return data
    }
}
