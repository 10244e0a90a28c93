import BaselineConcurrency
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The ways a ``FaultInjectingServer`` answers a request.
enum Fault: String, CaseIterable, Sendable {
    /// A complete, correct response.
    case good
    /// Half the body, then a reset (SO_LINGER 0 and close: an RST, not a FIN).
    case reset
    /// A `Content-Length` larger than what is sent, then a close.
    case truncated
    /// The head and part of the body, then nothing until the client gives up.
    case stall
    /// A `Content-Length` shorter than what is sent, then a close.
    case shortLength
    /// A chunk size line that is not hexadecimal.
    case badChunkSize
    /// Chunks without the final zero-length chunk, then a close.
    case missingLastChunk
}

/// A raw-socket HTTP/1.1 server on 127.0.0.1 that answers each request with
/// the fault its path names: `GET /<fault>/<n>[/close]` answers `body(n)`
/// the way ``Fault`` says, with `Connection: close` when the path ends in
/// `/close`.
///
/// The test picks each request's fault from a seeded generator and puts it
/// in the path, so it knows what every call should end with, and a seed
/// replays a run. Raw sockets, not Hummingbird: a server framework will not
/// send a wrong `Content-Length` or a broken chunk.
///
/// One thread accepts; each connection gets a thread of its own, doing the
/// blocking calls off Swift's cooperative pool. A stalled connection's thread
/// waits in `read` for the client to close its end, so the stall ends when
/// the client times out or is cancelled.
final class FaultInjectingServer: Sendable {
    let port: Int
    private let listener: Int32
    private let isClosed = LockedValue(false)
    private let connections = LockedValue(Connections())
    /// Yields each time a connection closes.
    private let closed: AsyncStream<Void>
    private let closedSink: AsyncStream<Void>.Continuation

    private struct Connections {
        var open = 0
        var accepted = 0
    }

    init() throws {
        (closed, closedSink) = AsyncStream.makeStream(of: Void.self)
        let closings = closedSink
        let (fd, port) = try LoopbackSockets.makeListener()
        self.port = port
        listener = fd
        let closed = isClosed
        let connections = self.connections
        Thread.detachNewThread {
            while true {
                var connection: Int32
                repeat { connection = accept(fd, nil, nil) } while connection < 0 && errno == EINTR
                guard connection >= 0 else { break }
                let accepted = connection
                connections.withLock {
                    $0.open += 1
                    $0.accepted += 1
                }
                Thread.detachNewThread {
                    Self.serve(accepted)
                    close(accepted)
                    connections.withLock { $0.open -= 1 }
                    closings.yield()
                }
            }
            // Closed here, after `accept` returned, so that no other test's
            // socket can reuse the number while this thread still uses it.
            closed.withLock { isClosed in
                isClosed = true
                close(fd)
            }
        }
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// How many connections clients opened so far.
    var acceptedConnections: Int { connections.withLock { $0.accepted } }

    /// Returns once every connection accepted so far is closed: clients have
    /// hung up (or been hung up on) and no stall is left waiting.
    /// For one waiter at a time; cancelling it ends the wait with
    /// `CancellationError`, so a connection left open fails the test at its
    /// time limit instead of hanging the run.
    func waitUntilAllConnectionsClosed() async throws {
        if connections.withLock({ $0.open == 0 }) { return }
        for await _ in closed where connections.withLock({ $0.open == 0 }) { return }
        throw CancellationError()
    }

    func shutdownListener() {
        isClosed.withLock { closed in
            if !closed { shutdown(listener, Int32(SHUT_RDWR)) }
        }
    }

    deinit {
        shutdownListener()
    }

    /// The body of request `n`: a few kilobytes that say which request they answer.
    static func body(_ n: Int) -> Data {
        let line = "response \(n) of the fault-injection run\n"
        return Data(String(repeating: line, count: 40 + n % 80).utf8)
    }

    /// Lines for the streaming tests: `count` NDJSON-ish lines.
    static func lines(_ count: Int) -> Data {
        Data((0..<count).map { "line \($0)\n" }.joined().utf8)
    }

    /// Answers requests on one connection until the client closes it or a
    /// fault ends it.
    private static func serve(_ connection: Int32) {
        var pending = [UInt8]()
        while let head = readHead(connection, &pending) {
            guard let path = head.split(separator: " ").dropFirst().first.map(String.init) else { return }
            let parts = path.split(separator: "/").map(String.init)
            let closeAfter = parts.last == "close"
            guard parts.count >= 2 else { return }
            let keepAlive = answer(parts[0], argument: Int(parts[1]) ?? 0, close: closeAfter, on: connection)
            if !keepAlive { return }
        }
    }

    /// Writes the answer; returns whether the connection stays usable.
    private static func answer(_ route: String, argument n: Int, close: Bool, on connection: Int32) -> Bool {
        let connectionField = close ? "Connection: close\r\n" : ""
        // Streaming routes: lines and server-sent events cut off mid-stream.
        switch route {
        case "lines-chunked", "events-chunked":
            let payload = route == "lines-chunked" ? lines(n) : events(n)
            let type = route == "lines-chunked" ? "text/plain" : "text/event-stream"
            let chunk = Array(String(payload.count, radix: 16).utf8) + crlf + Array(payload) + crlf
            _ = writeAll(
                Array("HTTP/1.1 200 OK\r\nContent-Type: \(type)\r\nTransfer-Encoding: chunked\r\n\r\n".utf8) + chunk,
                to: connection
            )
            return false
        case "lines-length", "events-length":
            let payload = route == "lines-length" ? lines(n) : events(n)
            let type = route == "lines-length" ? "text/plain" : "text/event-stream"
            _ = writeAll(
                Array("HTTP/1.1 200 OK\r\nContent-Type: \(type)\r\nContent-Length: \(payload.count + 100)\r\n\r\n".utf8)
                    + Array(payload),
                to: connection
            )
            return false
        default:
            break
        }
        guard let fault = Fault(rawValue: route) else { return false }
        let body = Array(body(n))
        let half = body.count / 2
        func head(length: Int) -> [UInt8] {
            Array(
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: \(length)\r\n\(connectionField)\r\n"
                    .utf8
            )
        }
        let chunkedHead = Array(
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\(connectionField)\r\n".utf8
        )
        switch fault {
        case .good:
            return writeAll(head(length: body.count) + body, to: connection) && !close
        case .reset:
            _ = writeAll(head(length: body.count) + body[..<half], to: connection)
            var linger = linger(l_onoff: 1, l_linger: 0)
            setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
            return false
        case .truncated:
            _ = writeAll(head(length: body.count) + body[..<half], to: connection)
            return false
        case .stall:
            _ = writeAll(head(length: body.count) + body[..<half], to: connection)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while readRetrying(connection, &buffer) > 0 {}
            return false
        case .shortLength:
            _ = writeAll(head(length: half) + body, to: connection)
            return false
        case .badChunkSize:
            let chunk = Array("zz\r\n".utf8) + body + crlf + Array("0\r\n\r\n".utf8)
            _ = writeAll(chunkedHead + chunk, to: connection)
            return false
        case .missingLastChunk:
            let chunk = Array(String(half, radix: 16).utf8) + crlf + body[..<half] + crlf
            _ = writeAll(chunkedHead + chunk, to: connection)
            return false
        }
    }

    /// `count` server-sent events.
    static func events(_ count: Int) -> Data {
        Data((0..<count).map { "event: tick\ndata: \($0)\n\n" }.joined().utf8)
    }

    private static let crlf = Array("\r\n".utf8)

    /// Reads up to the end of the next request head (requests here have no
    /// body); `nil` when the client closed the connection.
    private static func readHead(_ connection: Int32, _ pending: inout [UInt8]) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if let end = endOfHead(pending) {
                let head = String(decoding: pending[..<end], as: UTF8.self)
                pending.removeFirst(end + 4)
                return head
            }
            let count = readRetrying(connection, &buffer)
            if count <= 0 { return nil }
            pending += buffer[0..<count]
        }
    }

    private static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        return (0...(bytes.count - 4)).first {
            bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10
        }
    }

    private static func readRetrying(_ connection: Int32, _ buffer: inout [UInt8]) -> Int {
        var count: Int
        repeat { count = read(connection, &buffer, buffer.count) } while count < 0 && errno == EINTR
        return count
    }

    /// Writes until done or until the client goes away (no SIGPIPE then);
    /// returns whether everything was written.
    private static func writeAll(_ bytes: [UInt8], to connection: Int32) -> Bool {
        #if canImport(Glibc)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        var on: Int32 = 1
        setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        let flags: Int32 = 0
        #endif
        var offset = 0
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            while offset < buffer.count {
                let sent = send(connection, base + offset, buffer.count - offset, flags)
                if sent < 0, errno == EINTR { continue }
                if sent <= 0 { return }
                offset += sent
            }
        }
        return offset == bytes.count
    }
}
