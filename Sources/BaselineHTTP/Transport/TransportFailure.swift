/// A transport's failure in words a person can read, for transports whose
/// own errors do not say where or what (a NIO channel error names no host).
///
/// Transports other than URLSession's throw it (the AsyncHTTPClient
/// transport does) so that ``HTTPClientError/transport(underlying:)`` reads
/// "Could not connect to 127.0.0.1:1 (connection refused)" whatever the
/// transport. The transport's own error stays in ``underlying``.
public struct TransportFailure: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Equatable {
        /// No connection could be made; `detail` says why ("connection refused").
        case cannotConnect(detail: String)
        /// The connection closed or was reset before the response was complete.
        case connectionLost
        /// The connection or a read timed out.
        case timedOut
        /// The server's bytes were not valid HTTP; `detail` says how.
        case malformedResponse(detail: String)
        /// Anything else; `detail` says what.
        case other(detail: String)
    }

    /// What went wrong, in the terms a person reads.
    public var reason: Reason
    /// `host:port` of the server, when known.
    public var server: String?
    /// The transport's own error.
    public var underlying: any Error

    /// Creates a failure; transports make these from their own errors.
    public init(_ reason: Reason, server: String?, underlying: any Error) {
        self.reason = reason
        self.server = server
        self.underlying = underlying
    }

    /// One line for a person: "Could not connect to 127.0.0.1:1 (connection refused)".
    public var description: String {
        let target = server ?? "the server"
        return switch reason {
        case let .cannotConnect(detail): "Could not connect to \(target) (\(detail))"
        case .connectionLost: "The connection to \(target) was lost"
        case .timedOut: "The connection to \(target) timed out"
        case let .malformedResponse(detail): "\(target) sent a malformed response (\(detail))"
        case let .other(detail): "The request to \(target) failed (\(detail))"
        }
    }
}
