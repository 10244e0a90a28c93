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

    /// A hasher at bcrypt `cost` (4…31).
    public init(cost: UInt8 = 10) {
        self.cost = cost
    }

    /// The bcrypt hash of `password`, with a fresh salt: what an account keeps.
    public func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    /// Whether `password` is the one `hash` was made from.
    public func verify(_ password: String, against hash: String) async throws -> Bool {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }
}
