import BaselineSync
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle

/// The example app's HTTP server (Hummingbird 2): the endpoints the example
/// app and Baseline's HTTP tests talk to.
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
///
/// Endpoints (errors are always `{"error": {"code", "message"}}`):
///
/// - `GET /health` → `ok`.
/// - `POST /auth/login` `{id, password}` → `{idToken, expiresIn, refreshToken}`;
///   `POST /auth/refresh` `{refreshToken}` → the same, rotating the refresh token.
/// - `GET /members/me` with `Authorization: Bearer <idToken>` → the member.
/// - `GET /favourites/live` with `Authorization: Bearer <idToken>` → a WebSocket of the
///   members' favourite photos: the client sends `{photo, favourite}` (a set, not a toggle);
///   the server sends `{photo, count, favourite}`, one per photo on connecting, then every
///   change (the details are in `openapi.json`); 401 without a valid token, 426 without
///   the upgrade; `?dropAfter=N` drops the connection, with no close frame, after N messages.
/// - `POST /sync/push` (``SyncPush`` → ``SyncPushResult``), `GET /sync/pull?after=&limit=`
///   (→ ``SyncPage``) and `GET /sync/live` (a WebSocket of `{"cursor": n}`), with
///   `Authorization: Bearer <idToken>`: Baseline's sync protocol, each member's rows apart,
///   for the tables in ``Configuration/syncTables``; refusals are ``SyncRefusal`` documents.
/// - `GET /basic/profile` with `Authorization: Basic` → `{id, nickname}`;
///   401 with a `WWW-Authenticate: Basic realm="spacephotos"` challenge otherwise.
/// - `GET /facts/{n}` (`?delay=ms`, `?fail=true`) → a line of trivia.
/// - `GET /dogs/random` (`?variant=0…3`) → a PNG, with `ETag` and `Cache-Control`.
/// - `POST /uploads` (any body, or `multipart/form-data`) → 201 `{id, bytes, sha256, parts?}`
///   and `Location`; 413 past ``Configuration/maxUploadBytes``. `GET /uploads/{id}` reads it back.
/// - `GET /downloads/{name}` (`1MiB.bin`, `64MiB.bin`, `1GiB.bin`, or `x.bin?bytes=N`) →
///   ``DownloadPattern`` bytes, streamed, with `Content-Length` and `ETag`; one byte range
///   (`Range`, `If-Range`); `?cutAt=` breaks the transfer.
/// - `GET /compressible/{text|zeros}` (`?bytes`, `?deflate=raw`, `?truncate=n`) → the content,
///   gzip or deflate as `Accept-Encoding` allows.
/// - `GET /events` (`?count`, `?interval` ms, `?from`, `?format=sse`), `GET /events/sse` →
///   favourite-count events as NDJSON or Server-Sent Events.
/// - `GET /redirect/{n}`, `GET /redirect-to?url=` (`?status=301…308`) → redirects;
///   `GET /echo/headers` → the request's header fields; `GET /echo/socket` → a WebSocket
///   that sends each message back (for benchmarks; no token).
/// - `GET /flaky/{key}` (`?failures=N`, `?retryAfter=S`) → 503 with `Retry-After` N times, then 200.
/// - `GET /slow?ms=N` → answers after N ms (at most 10 s).
/// - `GET /json/items?count=N` → a fixed array of N small objects, for benchmarks.
/// - `GET /photos?date=yyyy-MM-dd` → `{title, explanation, date, url}` (1995-06-16 to today);
///   `GET /photos/dates?count=N&seed=S` → N distinct dates.
/// - `GET /images` → `[{name, width, height, mediaType}]`; `GET /images/{name}` → a
///   generated JPEG or PNG with `ETag` and `Cache-Control`; also `corrupt.png`,
///   `garbage.jpg`, `huge.png`. Both photos and images take `?delay=ms` and `?fail=status`.
public struct ExampleServer: Sendable {
    /// What the server serves and how: its address, members, token and
    /// rate-limit policies, limits, and the hooks tests use. Every field has
    /// a default fit for running the server next to an app.
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
        /// How long a refresh token stays usable (it is also spent by its first use).
        public var refreshTokenLifetime: Duration
        /// Where refresh tokens are kept across restarts (their digests, mode
        /// 0600); `nil` keeps them in memory only.
        public var refreshTokenFile: URL?
        /// The largest `POST /uploads` body, in bytes; larger ones get 413.
        public var maxUploadBytes: Int
        /// The pause between `GET /events` events when the request does not
        /// say (`?interval=`): none by default, so tests run at full speed;
        /// `spacephotos serve` paces them for people to watch.
        public var eventInterval: Duration
        /// How many keys `GET /flaky/{key}` counts attempts for before it
        /// forgets the least recently used ones.
        public var flakyKeyLimit: Int
        /// How many distinct photos `GET /favourites/live` keeps counts for;
        /// making one more a favourite is refused (`too_many_photos`).
        public var favouritePhotoLimit: Int
        /// Dates (`yyyy-MM-dd`) whose `GET /photos` answers 500, for testing
        /// how a client shows one failure among many successes.
        public var failingPhotoDates: Set<String>
        /// The seed `GET /photos/dates` uses when a request names none; nil
        /// draws a new one for each request. With a seed, every client that
        /// asks for the same count gets the same days: two copies of the app
        /// show the same catalog (`spacephotos serve --photo-seed`).
        public var photoDateSeed: UInt64?
        /// Called with an image's name each time the server draws and encodes
        /// one, so tests can check that concurrent requests share one render.
        ///
        /// Without it, the server takes its images from a store shared by
        /// every server in the process (a name always makes the same bytes,
        /// and tests and benchmarks start many servers); with it, the server
        /// makes its own, so that each render is seen.
        public var onImageRender: (@Sendable (String) -> Void)?
        /// How long a connection may sit idle (nothing read, no request in
        /// progress) before the server closes it. Idle and half-sent
        /// connections never stop others from being served, but each holds a
        /// socket: without a limit, enough of them would use up the process's
        /// file descriptors.
        public var idleTimeout: Duration
        /// The tables `POST /sync/push` takes changes for: by default the
        /// example app's to-do list, `todo` (`text`, at most 2,000 bytes, and
        /// `date`, a real).
        public var syncTables: [SyncedTable]
        /// Where the synced rows are kept: in memory by default, in an
        /// SQLite file that outlives the server, or in PostgreSQL, which
        /// several servers can share. The server opens the store when it
        /// starts and closes it when it stops.
        public var syncStorage: SyncStorage
        /// Where tests step into a PostgreSQL store's listener.
        var syncListenerHooks = PostgresSyncStore.ListenerHooks()
        /// How far ahead of the server's clock (``now``) a pushed change may
        /// be stamped; later ones are refused (`clock_ahead`), since a device
        /// whose clock runs ahead would otherwise win every conflict.
        public var syncClockTolerance: Duration
        /// The server's idea of now (tests move it to expire tokens).
        public var now: @Sendable () -> Date
        /// The server's logger.
        public var logger: Logger

        /// A configuration; each parameter sets the property of the same name.
        public init(
            host: String = "127.0.0.1",
            port: Int = 0,
            users: [DemoUser] = DemoUser.all,
            passwordHasher: PasswordHasher = PasswordHasher(),
            tokenSigner: TokenSigner = .random(lifetime: .seconds(3600)),
            rateLimit: LoginRateLimiter.Policy = .init(),
            refreshTokenLifetime: Duration = .seconds(30 * 24 * 3600),
            refreshTokenFile: URL? = nil,
            maxUploadBytes: Int = 64 * 1024 * 1024,
            eventInterval: Duration = .zero,
            flakyKeyLimit: Int = 10_000,
            favouritePhotoLimit: Int = 10_000,
            failingPhotoDates: Set<String> = [],
            photoDateSeed: UInt64? = nil,
            onImageRender: (@Sendable (String) -> Void)? = nil,
            idleTimeout: Duration = .seconds(60),
            syncTables: [SyncedTable] = [
                SyncedTable("todo", columns: [.text("text", maximumBytes: 2000), .real("date")])
            ],
            syncStorage: SyncStorage = .memory,
            syncClockTolerance: Duration = .seconds(600),
            now: @escaping @Sendable () -> Date = { Date() },
            logger: Logger = ExampleServer.defaultLogger()
        ) {
            self.host = host
            self.port = port
            self.users = users
            self.passwordHasher = passwordHasher
            self.tokenSigner = tokenSigner
            self.rateLimit = rateLimit
            self.refreshTokenLifetime = refreshTokenLifetime
            self.refreshTokenFile = refreshTokenFile
            self.maxUploadBytes = maxUploadBytes
            self.eventInterval = eventInterval
            self.flakyKeyLimit = flakyKeyLimit
            self.favouritePhotoLimit = favouritePhotoLimit
            self.failingPhotoDates = failingPhotoDates
            self.photoDateSeed = photoDateSeed
            self.onImageRender = onImageRender
            self.idleTimeout = idleTimeout
            self.syncTables = syncTables
            self.syncStorage = syncStorage
            self.syncClockTolerance = syncClockTolerance
            self.now = now
            self.logger = logger
        }
    }

    /// What this server serves and how.
    public var configuration: Configuration

    /// A server that will run with `configuration` once started.
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
        let (application, syncStore) = try await makeApplication { channel in
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
        // Other servers' pushes wake this one's sockets only once its store
        // listens; the wait ends early if the first attempt fails (the store
        // keeps trying), the server stops or the caller gives up.
        if let postgres = syncStore as? PostgresSyncStore { await postgres.listening() }
        if Task.isCancelled {
            // The caller gave up: nobody would stop a server returned now.
            await group.triggerGracefulShutdown()
            _ = await running.result
            throw CancellationError()
        }
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        guard let baseURL = URL(string: "http://\(host):\(port)") else { throw ServerStartError.notListening }
        return RunningServer(baseURL: baseURL, port: port, syncEpoch: syncStore.epoch, group: group, task: running)
    }

    /// Runs the server until SIGINT or SIGTERM.
    public func run(onListening: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        let (application, _) = try await makeApplication { channel in
            if let port = channel.localAddress?.port { onListening(port) }
        }
        try await application.runService()
    }

    /// The routes the server registers, `{name}` marking a path parameter:
    /// what the API document (`openapi.json`) must describe, no more, no less.
    public func registeredRoutes() async throws -> [RegisteredRoute] {
        try await makeRouter().routes.map { RegisteredRoute(method: $0.method.rawValue, path: $0.path.description) }
    }

    func makeApplication(
        onServerRunning: @escaping @Sendable (any Channel) async -> Void
    ) async throws -> (some ApplicationProtocol, any SyncStore) {
        let idle = configuration.idleTimeout.components
        let idleTimeout = TimeAmount.nanoseconds(idle.seconds * 1_000_000_000 + idle.attoseconds / 1_000_000_000)
        // Opened first and closed last (see SyncStoreService), or here if
        // the server cannot be set up.
        let syncStore = try await configuration.syncStorage.open(
            logger: configuration.logger,
            hooks: configuration.syncListenerHooks
        )
        let state = makeState(syncStore: syncStore)
        let accounts: [String: Account]
        let router: Router<ServerRequestContext>
        do {
            accounts = try await makeAccounts()
            router = try await makeRouter(state: state, accounts: accounts)
        } catch {
            SyncStoreService.close(syncStore)
            throw error
        }
        let favourites = favouriteRoutes(state: state, accounts: accounts)
        let sync = syncSocketRoutes(store: syncStore, state: state, accounts: accounts)
        let channelConfiguration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(idleTimeout: idleTimeout),
            ws: .init(maxFrameSize: FavouriteSocketRoutes.maximumMessageBytes)
        )
        let application = Application(
            router: router,
            // HTTP/1, and the upgrade to WebSocket for GET /favourites/live, GET /sync/live and GET /echo/socket.
            server: HTTPServerBuilder { responder in
                UpgradableHTTP1Channel(
                    base: HTTP1WebSocketUpgradeChannel(
                        responder: responder,
                        configuration: channelConfiguration,
                        shouldUpgrade: { head, channel, logger in
                            if EchoSocketRoutes.matches(head) {
                                EchoSocketRoutes.shouldUpgrade(head, channel: channel)
                            } else if SyncSocketRoutes.matches(head) {
                                sync.shouldUpgrade(head, channel: channel, logger: logger)
                            } else {
                                favourites.shouldUpgrade(head, channel: channel, logger: logger)
                            }
                        }
                    ),
                    firstRequestTimeout: idleTimeout
                )
            },
            configuration: .init(address: .hostname(configuration.host, port: configuration.port)),
            // Services stop in the reverse order of their start, after the
            // HTTP server: the sync store closes once no request can use it.
            services: [SyncStoreService(store: syncStore, feed: state.syncFeed, logger: configuration.logger)],
            onServerRunning: onServerRunning,
            logger: configuration.logger
        )
        return (application, syncStore)
    }

    /// The tables a server keeps between requests, each bounded: made by
    /// ``makeState()``, or handed to ``makeRouter(state:)`` by a test that
    /// watches their sizes.
    struct State: Sendable {
        /// Failed logins, shared by the login and Basic auth routes.
        var limiter: LoginRateLimiter
        var refreshTokens: RefreshTokenStore
        var uploads: UploadLedger
        /// `GET /flaky/{key}`'s attempts.
        var attempts: AttemptCounter
        /// `GET /favourites/live`'s members and counts, shared by its connections.
        var favourites = FavouriteTable()
        /// The synced rows, or nil for a store in memory made with the
        /// router (for tests of the router alone). Whoever opened the store
        /// closes it.
        var syncStore: (any SyncStore)? = nil
        /// `GET /sync/live`'s connections, told of each push.
        var syncFeed = SyncCursorFeed()
    }

    /// Fresh tables, sized by the configuration, with `syncStore` if given.
    func makeState(syncStore: (any SyncStore)? = nil) -> State {
        State(
            limiter: LoginRateLimiter(policy: configuration.rateLimit),
            refreshTokens: RefreshTokenStore(
                lifetime: configuration.refreshTokenLifetime,
                file: configuration.refreshTokenFile
            ),
            uploads: UploadLedger(),
            attempts: AttemptCounter(capacity: configuration.flakyKeyLimit),
            favourites: FavouriteTable(capacity: configuration.favouritePhotoLimit),
            syncStore: syncStore
        )
    }

    /// The configured members, their passwords hashed.
    func makeAccounts() async throws -> [String: Account] {
        var accounts: [String: Account] = [:]
        for user in configuration.users {
            accounts[user.id] = Account(
                id: user.id,
                nickname: user.nickname,
                birthday: user.birthday,
                passwordHash: try await configuration.passwordHasher.hash(user.password)
            )
        }
        return accounts
    }

    /// `GET /favourites/live`, whose upgrade requests the server's channel
    /// decides before the router sees them.
    func favouriteRoutes(state: State, accounts: [String: Account]) -> FavouriteSocketRoutes {
        FavouriteSocketRoutes(
            members: MemberRoutes(accounts: accounts, signer: configuration.tokenSigner, now: configuration.now),
            table: state.favourites
        )
    }

    /// `GET /sync/live`, whose upgrade requests the server's channel
    /// decides before the router sees them.
    func syncSocketRoutes(store: any SyncStore, state: State, accounts: [String: Account]) -> SyncSocketRoutes {
        SyncSocketRoutes(
            members: MemberRoutes(accounts: accounts, signer: configuration.tokenSigner, now: configuration.now),
            store: store,
            feed: state.syncFeed
        )
    }

    func makeRouter(state: State? = nil) async throws -> Router<ServerRequestContext> {
        try await makeRouter(state: state ?? makeState(), accounts: makeAccounts())
    }

    func makeRouter(state: State, accounts: [String: Account]) async throws -> Router<ServerRequestContext> {
        let hasher = configuration.passwordHasher
        let router = Router(context: ServerRequestContext.self)
        router.middlewares.add(JSONErrorMiddleware())
        router.get("health") { _, _ in "ok" }
        // Shared by the login and Basic auth routes: both check passwords,
        // so failures through either count towards one lockout.
        let limiter = state.limiter
        let decoyHash = try await hasher.hash(UUID().uuidString)
        AuthRoutes(
            accounts: accounts,
            hasher: hasher,
            signer: configuration.tokenSigner,
            limiter: limiter,
            refreshTokens: state.refreshTokens,
            now: configuration.now,
            decoyHash: decoyHash
        ).add(to: router)
        MemberRoutes(accounts: accounts, signer: configuration.tokenSigner, now: configuration.now).add(to: router)
        favouriteRoutes(state: state, accounts: accounts).add(to: router)
        let syncStore = try state.syncStore ?? SQLiteSyncStore()
        SyncRoutes(
            members: MemberRoutes(accounts: accounts, signer: configuration.tokenSigner, now: configuration.now),
            store: syncStore,
            feed: state.syncFeed,
            validator: SyncPushValidator(
                tables: configuration.syncTables,
                clockTolerance: configuration.syncClockTolerance,
                now: configuration.now
            )
        ).add(to: router)
        syncSocketRoutes(store: syncStore, state: state, accounts: accounts).add(to: router)
        BasicAuthRoutes(
            accounts: accounts,
            hasher: hasher,
            limiter: limiter,
            now: configuration.now,
            decoyHash: decoyHash
        )
        .add(to: router)
        FactRoutes().add(to: router)
        DogRoutes().add(to: router)
        UploadRoutes(limit: configuration.maxUploadBytes, ledger: state.uploads).add(to: router)
        DownloadRoutes().add(to: router)
        CompressibleRoutes().add(to: router)
        EventRoutes(defaultInterval: configuration.eventInterval).add(to: router)
        RedirectRoutes().add(to: router)
        EchoRoutes().add(to: router)
        EchoSocketRoutes.add(to: router)
        FlakyRoutes(counter: state.attempts).add(to: router)
        SlowRoutes().add(to: router)
        ItemRoutes().add(to: router)
        PhotoRoutes(
            failingDates: configuration.failingPhotoDates,
            defaultSeed: configuration.photoDateSeed,
            now: configuration.now
        ).add(to: router)
        let images = configuration.onImageRender.map { ImageStore(onRender: $0) } ?? .shared
        ImageRoutes(store: images).add(to: router)
        return router
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
    /// The epoch of the synced rows' data, which marks the server's sync
    /// cursors (``SyncCursor``).
    public let syncEpoch: Int64
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    init(baseURL: URL, port: Int, syncEpoch: Int64, group: ServiceGroup, task: Task<Void, any Error>) {
        self.baseURL = baseURL
        self.port = port
        self.syncEpoch = syncEpoch
        self.group = group
        self.task = task
    }

    /// Stops the server and waits until it has closed its port.
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = await task.result
    }
}
