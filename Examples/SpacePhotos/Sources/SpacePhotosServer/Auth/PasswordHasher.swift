import HummingbirdBcrypt
import NIOPosix

/// Hashes and checks passwords with bcrypt, on NIO's blocking thread pool.
///
/// bcrypt is slow on purpose (that is its defence against guessing), so it
/// must not run on an event loop or on Swift's small cooperative pool, where
/// one hash would stall every other request.
public struct PasswordHasher: Sendable {
    /// bcrypt's cost: each step doubles the work. 10 is a common server
    /// default; tests use the minimum, 4, to stay fast.
    public var cost: UInt8

    public init(cost: UInt8 = 10) {
        self.cost = cost
    }

    public func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    public func verify(_ password: String, against hash: String) async throws -> Bool {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }
}
