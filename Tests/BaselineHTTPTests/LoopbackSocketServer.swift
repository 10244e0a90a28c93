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
    /// Yields, when the connection is done, how many bytes of the answer were
    /// written before the client went away (all of them if it read to the end).
    let answerWritten: AsyncStream<Int>
    private let listener: Int32
    /// Whether the listener is open. Touching the descriptor after it was
    /// closed would hit whatever socket reused the number meanwhile (another
    /// test's, running in parallel), so `shutdown` and `close` both happen
    /// under this lock, after checking it.
    private let isClosed: LockedValue<Bool>

    convenience init(answer: String?) throws {
        try self.init(answerBytes: answer.map { Array($0.utf8) })
    }

    /// - Parameters:
    ///   - answer: What to write back; `nil` stays silent.
    ///   - holdOpen: After writing, keep the connection open until the client
    ///     closes it (an answer that stalls mid-way).
    init(answerBytes answer: [UInt8]?, holdOpen: Bool = false) throws {
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
        let (written, writtenSink) = AsyncStream.makeStream(of: Int.self)
        answerWritten = written
        listener = fd
        let closed = LockedValue(false)
        isClosed = closed
        Thread.detachNewThread {
            // This thread closes the listener, after `accept` returns (which
            // `shutdownListener` forces): closing it anywhere else could let
            // another test's socket reuse the number before this `accept` runs.
            // Signals (SIGCHLD from another test's child process) interrupt
            // blocking calls: retry them rather than take EINTR for an end.
            var connection: Int32
            repeat { connection = accept(fd, nil, nil) } while connection < 0 && errno == EINTR
            closed.withLock { isClosed in
                isClosed = true
                close(fd)
            }
            guard connection >= 0 else {
                sink.finish()
                writtenSink.finish()
                return
            }
            var received = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 4096)
            // Read until the end of the head; the body, if any, may come in the same read.
            while !Self.containsEndOfHead(received) {
                let count = Self.readRetrying(connection, &buffer)
                if count <= 0 { break }
                received += buffer[0..<count]
            }
            sink.yield()
            if let answer {
                writtenSink.yield(Self.writeAll(answer, to: connection))
                writtenSink.finish()
                if holdOpen { while Self.readRetrying(connection, &buffer) > 0 {} }
                close(connection)
            } else {
                // Stay silent until the client gives up and closes its end.
                while Self.readRetrying(connection, &buffer) > 0 {}
                close(connection)
                writtenSink.finish()
            }
            sink.finish()
        }
    }

    /// `read`, retried when a signal interrupts it.
    private static func readRetrying(_ connection: Int32, _ buffer: inout [UInt8]) -> Int {
        var count: Int
        repeat { count = read(connection, &buffer, buffer.count) } while count < 0 && errno == EINTR
        return count
    }

    /// Writes until done or until the client goes away (no SIGPIPE then);
    /// returns how many bytes were written.
    private static func writeAll(_ bytes: [UInt8], to connection: Int32) -> Int {
        #if canImport(Glibc)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        var on: Int32 = 1
        setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        let flags: Int32 = 0
        #endif
        var offset = 0
        bytes.withUnsafeBytes { buffer in
            while offset < buffer.count {
                let sent = send(connection, buffer.baseAddress! + offset, buffer.count - offset, flags)
                if sent < 0, errno == EINTR { continue }
                if sent <= 0 { return }
                offset += sent
            }
        }
        return offset
    }

    private static func containsEndOfHead(_ bytes: [UInt8]) -> Bool {
        let marker = Array("\r\n\r\n".utf8)
        guard bytes.count >= marker.count else { return false }
        return (0...(bytes.count - marker.count)).contains { bytes[$0..<($0 + marker.count)].elementsEqual(marker) }
    }

    /// A port on which nothing listens. Every test server binds port 0 and so
    /// gets one from the ephemeral range (32768 and up on Linux); port 1 is
    /// never handed out that way. (A port bound and released instead could be
    /// handed to a server another test starts in parallel.)
    static let closedPort = 1

    /// Wakes the accepting thread, which then closes the listener.
    func shutdownListener() {
        isClosed.withLock { closed in
            // Under the lock: the accepting thread cannot close (and the
            // number be reused) between this check and the shutdown.
            if !closed { shutdown(listener, Int32(SHUT_RDWR)) }
        }
    }

    deinit {
        shutdownListener()
    }
}
