import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback TCP connection that a test holds open without speaking HTTP,
/// or after half a request head: what a slow or malicious client leaves behind.
///
/// Every call blocks, so tests make them through ``onOwnThread(_:)``. Reads
/// give up after ``receiveTimeout``, so a server that never closes fails
/// the test instead of hanging it.
final class IdleSocket: Sendable {
    enum Failure: Error {
        case connectionFailed
        case sendFailed
    }

    /// How a wait for the server to close the connection ended.
    enum Ending: Equatable {
        /// The server closed it: a read returned 0.
        case closed
        /// Nothing happened within ``receiveTimeout``.
        case stillOpen
    }

    static let receiveTimeout = 20

    private let descriptor: Int32

    init(port: Int) throws {
        guard let fd = try? LoopbackSockets.connection(to: port) else { throw Failure.connectionFailed }
        var timeout = timeval(tv_sec: Self.receiveTimeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        descriptor = fd
    }

    deinit {
        close(descriptor)
    }

    func sendText(_ text: String) throws {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
            guard sent > 0 else { throw Failure.sendFailed }
            offset += sent
        }
    }

    /// Reads until the server closes the connection or the receive timeout passes.
    func waitForClose() -> Ending {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count == 0 { return .closed }
            // A reset is the server closing too.
            if count < 0 { return errno == ECONNRESET ? .closed : .stillOpen }
        }
    }
}
