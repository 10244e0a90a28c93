import Foundation

#if canImport(Glibc)
import Glibc
private let streamSocket = Int32(SOCK_STREAM.rawValue)
#elseif canImport(Darwin)
import Darwin
private let streamSocket = SOCK_STREAM
#endif

/// TCP sockets on 127.0.0.1 for the tests that speak below HTTP: raw
/// clients, idle connections, the fault-injecting server, and checks that a
/// port is free. Loopback connects and binds answer at once, so these plain
/// calls do not hold a thread.
enum LoopbackSockets {
    enum Failure: Error {
        case noSocket
        case connectionRefused
        case cannotListen
    }

    /// A listening socket on `port`, or on a port the system picks when it
    /// is 0.
    static func makeListener(port: Int = 0, backlog: Int32 = 128) throws -> (descriptor: Int32, port: Int) {
        let fd = socket(AF_INET, streamSocket, 0)
        guard fd >= 0 else { throw Failure.noSocket }
        var address = loopback(port: port)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, backlog) == 0 else {
            close(fd)
            throw Failure.cannotListen
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A port nothing listened on a moment ago.
    ///
    /// It is drawn from below the system's ephemeral range (32768–60999 on
    /// Linux, 49152–65535 on macOS), not picked by the system: the outgoing
    /// connections of tests running in parallel take their local ports from
    /// that range and could take this one before the server under test binds
    /// it (CI saw `Address already in use` that way).
    static func freePort() throws -> Int {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<100 {
            let candidate = Int.random(in: 20_000..<32_768, using: &generator)
            guard let (fd, port) = try? makeListener(port: candidate) else { continue }
            close(fd)
            return port
        }
        throw Failure.cannotListen
    }

    /// A socket connected to `port`; the caller closes it.
    static func connection(to port: Int) throws -> Int32 {
        let fd = socket(AF_INET, streamSocket, 0)
        guard fd >= 0 else { throw Failure.noSocket }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw Failure.connectionRefused
        }
        return fd
    }

    /// Whether something accepts connections on `port`.
    static func isListening(_ port: Int) throws -> Bool {
        do {
            close(try connection(to: port))
            return true
        } catch Failure.connectionRefused {
            return false
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }
}
