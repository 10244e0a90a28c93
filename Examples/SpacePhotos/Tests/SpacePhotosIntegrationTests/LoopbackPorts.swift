import Foundation

#if canImport(Glibc)
import Glibc
private let streamSocket = Int32(SOCK_STREAM.rawValue)
#elseif canImport(Darwin)
import Darwin
private let streamSocket = SOCK_STREAM
#endif

/// Ports on 127.0.0.1, for tests that must know a server's port before it
/// starts, or check that nothing listens on it any more. Loopback connects
/// and binds answer at once, so these plain calls do not hold a thread.
enum LoopbackPorts {
    enum Failure: Error {
        case noSocket
    }

    /// A port nothing listened on a moment ago (the system's pick for port 0).
    static func free() throws -> Int {
        let fd = socket(AF_INET, streamSocket, 0)
        guard fd >= 0 else { throw Failure.noSocket }
        defer { close(fd) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw Failure.noSocket }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts connections on `port`.
    static func isListening(_ port: Int) throws -> Bool {
        let fd = socket(AF_INET, streamSocket, 0)
        guard fd >= 0 else { throw Failure.noSocket }
        defer { close(fd) }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return connected == 0
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }
}
