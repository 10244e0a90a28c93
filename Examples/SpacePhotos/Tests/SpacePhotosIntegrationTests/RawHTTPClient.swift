import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A bare HTTP/1.1 client on a socket: one request per connection
/// (`Connection: close`), the answer read to the end.
///
/// For answers URLSession will not hand over: on Linux, FoundationNetworking
/// treats a 401 with `WWW-Authenticate: Basic` as a challenge, and without
/// credentials to offer never completes the task (swift-corelibs-foundation
/// issue #5456), so tests of the Basic challenge itself read it here.
///
/// The blocking socket calls run on a thread of their own, never on the
/// cooperative pool the server's handlers need.
enum RawHTTPClient {
    struct Answer {
        var status: Int
        /// Field names lowercased.
        var headers: [String: String]
        var body: Data
    }

    enum Failure: Error {
        case connectionFailed
        case malformedAnswer
    }

    /// Sends `GET path` with `headers` to 127.0.0.1:`port`.
    static func get(_ path: String, port: Int, headers: [String: String] = [:]) async throws -> Answer {
        var head = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        let request = Array(head.utf8)
        let bytes: [UInt8] = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try exchange(request, port: port) })
            }
        }
        return try parse(bytes)
    }

    private static func exchange(_ request: [UInt8], port: Int) throws -> [UInt8] {
        guard let fd = try? LoopbackSockets.connection(to: port) else { throw Failure.connectionFailed }
        defer { close(fd) }
        var offset = 0
        while offset < request.count {
            let sent = request[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            guard sent > 0 else { throw Failure.connectionFailed }
            offset += sent
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { break }
            received += buffer[0..<count]
        }
        return received
    }

    private static func parse(_ bytes: [UInt8]) throws -> Answer {
        let marker = Array("\r\n\r\n".utf8)
        guard bytes.count >= 4,
            let end = (0...(bytes.count - 4)).first(where: { bytes[$0..<($0 + 4)].elementsEqual(marker) }),
            let head = String(bytes: bytes[..<end], encoding: .utf8)
        else { throw Failure.malformedAnswer }
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw Failure.malformedAnswer }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw Failure.malformedAnswer }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces
            )
        }
        var body = Data(bytes[(end + 4)...])
        if let length = headers["content-length"].flatMap({ Int($0) }), length <= body.count {
            body = body.prefix(length)
        }
        return Answer(status: status, headers: headers, body: body)
    }
}
