import AsyncHTTPClient
import BaselineHTTP
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// AsyncHTTPClient's and SwiftNIO's errors as ``TransportFailure``s, which
/// name the server and say what happened in words ("Could not connect to
/// 127.0.0.1:1 (connection refused)"), the same as URLSession's errors read.
/// Cancellation stays `CancellationError`; the original error stays in
/// ``TransportFailure/underlying``. A read timeout is
/// `HTTPClientError.timedOut(after:)`, as URLSession's is.
struct TransportErrorMapping: Sendable {
    /// `host:port` of the server the request went to.
    let server: String
    /// The client's read timeout, which a `readTimeout` error ran out.
    let readTimeout: TimeAmount?

    func map(_ error: any Error) -> any Error {
        if error is CancellationError || error is BaselineHTTP.HTTPClientError || error is TransportFailure {
            return error
        }
        if let error = error as? AsyncHTTPClient.HTTPClientError, error == .readTimeout, let readTimeout {
            return BaselineHTTP.HTTPClientError.timedOut(after: .nanoseconds(readTimeout.nanoseconds))
        }
        return TransportFailure(Self.reason(for: error), server: server, underlying: error)
    }

    static func reason(for error: any Error) -> TransportFailure.Reason {
        switch error {
        case let error as NIOConnectionError:
            // Happy Eyeballs tried each address: the first failure says why.
            if let first = error.connectionErrors.first { return .cannotConnect(detail: detail(of: first.error)) }
            if let dns = error.dnsAError ?? error.dnsAAAAError {
                return .cannotConnect(detail: "host not found: \(dns)")
            }
            return .cannotConnect(detail: "no address to connect to")
        case let error as IOError where isConnectFailure(error.errnoCode):
            return .cannotConnect(detail: detail(of: error))
        case let error as IOError:
            return error.errnoCode == ECONNRESET || error.errnoCode == EPIPE
                ? .connectionLost : .other(detail: detail(of: error))
        case let error as ChannelError:
            switch error {
            case .connectTimeout: return .timedOut
            case .ioOnClosedChannel, .alreadyClosed, .eof, .inputClosed, .outputClosed: return .connectionLost
            default: return .other(detail: "\(error)")
            }
        case let error as HTTPParserError:
            return .malformedResponse(detail: "\(error)")
        case let error as AsyncHTTPClient.HTTPClientError:
            switch error {
            case .remoteConnectionClosed: return .connectionLost
            case .readTimeout, .writeTimeout, .connectTimeout, .deadlineExceeded, .tlsHandshakeTimeout: return .timedOut
            case .bodyLengthMismatch, .contentLengthMissing:
                return .malformedResponse(detail: "\(error)")
            default: return .other(detail: "\(error)")
            }
        default:
            return .other(detail: "\(error)")
        }
    }

    private static func isConnectFailure(_ code: CInt) -> Bool {
        [ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, ETIMEDOUT].contains(code)
    }

    /// "connection refused": the errno in words, for errors that carry one.
    static func detail(of error: any Error) -> String {
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)).lowercased() }
        return "\(error)"
    }
}

/// A response body whose read errors are mapped as ``TransportErrorMapping``
/// does, wrapped in ``BaselineHTTP/HTTPClientError/transport(underlying:)``:
/// a body read through `HTTPClient.stream` (lines, server-sent events)
/// reaches its reader without the client's error mapping, so a connection
/// lost mid-stream must arrive typed from here, not as a NIO error.
struct ErrorMappingBody<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == Data {
    typealias Element = Data
    let base: Base
    let mapping: TransportErrorMapping

    func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), mapping: mapping)
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let mapping: TransportErrorMapping

        mutating func next() async throws -> Data? {
            do {
                return try await base.next()
            } catch {
                throw mapping.bodyError(error)
            }
        }
    }
}

extension TransportErrorMapping {
    /// The error a body read reports for `error`: cancellation as
    /// `CancellationError`, everything else as an `HTTPClientError`.
    func bodyError(_ error: any Error) -> any Error {
        let mapped = map(error)
        if mapped is CancellationError || mapped is BaselineHTTP.HTTPClientError { return mapped }
        return BaselineHTTP.HTTPClientError.transport(underlying: mapped)
    }
}
