import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// The example app's HTTP server (Hummingbird 2): the login and member API of
/// seed 000, and later the photo, fact, event and to-do endpoints.
///
/// Embed it with ``start()``, which binds a free loopback port and returns a
/// ``RunningServer`` that you stop when done; or run it in the foreground with
/// ``run()`` (`spacephotos serve`).
///
/// ```swift
/// let server = try await ExampleServer().start()
/// defer { Task { await server.stop() } }
/// let client = HTTPClient(baseURL: server.baseURL)
/// ```
public struct ExampleServer: Sendable {
    public struct Configuration: Sendable {
        /// The address to bind; loopback unless you mean to expose it.
        public var host: String
        /// The port; 0 picks a free one.
        public var port: Int
        /// The members seeded at start.
        public var users: [DemoUser]
        /// How passwords are hashed (bcrypt cost).
        public var passwordHasher: PasswordHasher
        /// Signs and checks ID tokens; its lifetime is the tokens' `expiresIn`.
        public var tokenSigner: TokenSigner
        /// When ids are locked out after failed logins.
        public var rateLimit: LoginRateLimiter.Policy
        /// The server's idea of now (tests move it to expire tokens).
        public var now: @Sendable () -> Date
        /// The server's logger.
        public var logger: Logger

        public init(
            host: String = "127.0.0.1",
            port: Int = 0,
            users: [DemoUser] = DemoUser.all,
            passwordHasher: PasswordHasher = PasswordHasher(),
            tokenSigner: TokenSigner = .random(lifetime: .seconds(3600)),
            rateLimit: LoginRateLimiter.Policy = .init(),
            now: @escaping @Sendable () -> Date = { Date() },
            logger: Logger = ExampleServer.defaultLogger()
        ) {
            self.host = host
            self.port = port
            self.users = users
            self.passwordHasher = passwordHasher
            self.tokenSigner = tokenSigner
            self.rateLimit = rateLimit
            self.now = now
            self.logger = logger
        }
    }

    public var configuration: Configuration

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// A logger that only speaks up for warnings, so an embedded server does
    /// not drown the app's own output.
    public static func defaultLogger() -> Logger {
        var logger = Logger(label: "spacephotos.server")
        logger.logLevel = .warning
        return logger
    }

    /// Starts the server in the background and returns once it accepts connections.
    public func start() async throws -> RunningServer {
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        let application = try await makeApplication { channel in
            if let port = channel.localAddress?.port { portSink.yield(port) }
            portSink.finish()
        }
        let group = ServiceGroup(
            configuration: .init(services: [application], gracefulShutdownSignals: [], logger: configuration.logger)
        )
        let running = Task {
            defer { portSink.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            if Task.isCancelled {
                // The caller gave up while the server was starting: stop it.
                await group.triggerGracefulShutdown()
                _ = await running.result
                throw CancellationError()
            }
            // The server stopped before it was up: report why.
            try await running.value
            throw ServerStartError.notListening
        }
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        guard let baseURL = URL(string: "http://\(host):\(port)") else { throw ServerStartError.notListening }
        return RunningServer(baseURL: baseURL, port: port, group: group, task: running)
    }

    /// Runs the server until SIGINT or SIGTERM.
    public func run(onListening: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        let application = try await makeApplication { channel in
            if let port = channel.localAddress?.port { onListening(port) }
        }
        try await application.runService()
    }

    func makeApplication(
        onServerRunning: @escaping @Sendable (any Channel) async -> Void
    ) async throws -> some ApplicationProtocol {
        let hasher = configuration.passwordHasher
        var accounts: [String: Account] = [:]
        for user in configuration.users {
            accounts[user.id] = Account(
                id: user.id, nickname: user.nickname, birthday: user.birthday,
                passwordHash: try await hasher.hash(user.password)
            )
        }
        let router = Router(context: ServerRequestContext.self)
        router.middlewares.add(JSONErrorMiddleware())
        router.get("health") { _, _ in "ok" }
        AuthRoutes(
            accounts: accounts,
            hasher: hasher,
            signer: configuration.tokenSigner,
            limiter: LoginRateLimiter(policy: configuration.rateLimit),
            now: configuration.now,
            decoyHash: try await hasher.hash(UUID().uuidString)
        ).add(to: router)
        MemberRoutes(accounts: accounts, signer: configuration.tokenSigner, now: configuration.now).add(to: router)
        FactRoutes().add(to: router)

        return Application(
            router: router,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port)),
            onServerRunning: onServerRunning,
            logger: configuration.logger
        )
    }
}

/// The server could not start listening.
public enum ServerStartError: Error {
    case notListening
}

/// A server started by ``ExampleServer/start()``. Call ``stop()`` when done:
/// it shuts down gracefully, finishing requests in flight.
public final class RunningServer: Sendable {
    /// `http://127.0.0.1:<port>`.
    public let baseURL: URL
    /// The port the server listens on.
    public let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    init(baseURL: URL, port: Int, group: ServiceGroup, task: Task<Void, any Error>) {
        self.baseURL = baseURL
        self.port = port
        self.group = group
        self.task = task
    }

    /// Stops the server and waits until it has closed its port.
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = await task.result
    }
}
