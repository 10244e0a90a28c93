import BaselineConcurrency
import Foundation

#if canImport(Glibc)
import Glibc
private let streamSocket = Int32(SOCK_STREAM.rawValue)
#elseif canImport(Darwin)
import Darwin
private let streamSocket = SOCK_STREAM
#endif

/// A tiny one-connection TCP server on 127.0.0.1 for transport tests: it
/// accepts one connection on its own thread, reports that it did, reads the
/// request head, then answers with a canned response or stays silent.
///
/// A thread (not the cooperative pool) does the blocking socket calls, so the
/// code under test runs on the pool undisturbed.
final class LoopbackSocketServer: Sendable {
    let port: Int
    /// Yields once a client has connected and sent its request head.
    let requestReceived: AsyncStream<Void>
    private let listener: Int32
    /// Closing twice would close whatever socket reused the number meanwhile
    /// (another test's, running in parallel): close exactly once.
    private let isClosed = LockedValue(false)

    init(answer: String?) throws {
        let fd = socket(AF_INET, streamSocket, 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 4) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))

        let (stream, sink) = AsyncStream.makeStream(of: Void.self)
        requestReceived = stream
        listener = fd
        Thread.detachNewThread {
            let connection = accept(fd, nil, nil)
            guard connection >= 0 else { sink.finish(); return }
            var received = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 4096)
            // Read until the end of the head; the body, if any, may come in the same read.
            while !Self.containsEndOfHead(received) {
                let count = read(connection, &buffer, buffer.count)
                if count <= 0 { break }
                received += buffer[0..<count]
            }
            sink.yield()
            if let answer {
                _ = answer.utf8CString.withUnsafeBytes { write(connection, $0.baseAddress, $0.count - 1) }
                close(connection)
            } else {
                // Stay silent until the client gives up and closes its end.
                while read(connection, &buffer, buffer.count) > 0 {}
                close(connection)
            }
            sink.finish()
        }
    }

    private static func containsEndOfHead(_ bytes: [UInt8]) -> Bool {
        let marker = Array("\r\n\r\n".utf8)
        guard bytes.count >= marker.count else { return false }
        return (0...(bytes.count - marker.count)).contains { bytes[$0..<($0 + marker.count)].elementsEqual(marker) }
    }

    /// A port on which nothing listens (bound, then released).
    static func closedPort() throws -> Int {
        let server = try LoopbackSocketServer(answer: nil)
        let port = server.port
        server.shutdownListener()
        return port
    }

    func shutdownListener() {
        let alreadyClosed = isClosed.withLock { closed in
            defer { closed = true }
            return closed
        }
        guard !alreadyClosed else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    deinit {
        shutdownListener()
    }
}
