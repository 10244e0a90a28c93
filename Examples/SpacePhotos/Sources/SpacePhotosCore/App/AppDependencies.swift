import BaselineConcurrency
import BaselineHTTP
import BaselineImages
import BaselinePersistence
import Foundation
import GRDB
import Logging

/// What the app's features are built on: the session, the server's
/// catalog, the stores on disk and the image pipeline, as closures and
/// values so tests put doubles in.
public struct AppDependencies: Sendable {
    /// The session: check, log in, log out, the member.
    public var session: SessionClient
    /// The catalog's photos.
    public var photoSource: PhotoSource
    /// Images, cached.
    public var pipeline: ImagePipeline
    /// The saved photos' storage.
    public var savedPhotos: SavedPhotoRepository
    /// The to-do list's storage.
    public var todos: TodoRepository
    /// Opens the member's own to-do list, for ``todos`` and ``todoSync``
    /// from then on (at login).
    public var openTodos: @Sendable (User.ID) async throws -> Void
    /// The to-do list's sync with the member's other devices.
    public var todoSync: TodoSyncClient
    /// Number facts, for the counter and the profile.
    public var facts: FactClient
    /// The live favourite counts.
    public var favourites: FavouritesClient
    /// Where the main screen's tab is kept between launches.
    public var selectedTab: SharedKey<AppTab>
    /// Where the counter's count is kept between launches.
    public var count: SharedKey<Int>

    /// Dependencies from the given services and stores, as tests assemble them;
    /// ``live(serverURL:dataDirectory:imageCache:logger:)`` builds the real ones.
    public init(
        session: SessionClient,
        photoSource: PhotoSource,
        pipeline: ImagePipeline,
        savedPhotos: SavedPhotoRepository,
        todos: TodoRepository,
        openTodos: @escaping @Sendable (User.ID) async throws -> Void = { _ in },
        todoSync: TodoSyncClient = .unavailable,
        facts: FactClient,
        favourites: FavouritesClient = .unavailable,
        selectedTab: SharedKey<AppTab> = .inMemory("tab"),
        count: SharedKey<Int> = .inMemory("count")
    ) {
        self.session = session
        self.photoSource = photoSource
        self.pipeline = pipeline
        self.savedPhotos = savedPhotos
        self.todos = todos
        self.openTodos = openTodos
        self.todoSync = todoSync
        self.facts = facts
        self.favourites = favourites
        self.selectedTab = selectedTab
        self.count = count
    }
}

extension AppDependencies {
    /// The app on a real server, its files under `dataDirectory`:
    /// `id-token.json` and `refresh-token.json` (mode 0600), a to-do list
    /// per member (`todos-<member>.sqlite`, see ``TodoDatabases``),
    /// `saved.sqlite` (with the counter's count in a shared row), and
    /// `tab.json` (the last tab).
    ///
    /// Member requests carry the ID token through ``BearerAuthentication``,
    /// so an expired token is refreshed once with the refresh token, then
    /// the request is sent again.
    ///
    /// - Parameters:
    ///   - imageCache: A directory for downloaded images that outlive the
    ///     run, or `nil` for memory only.
    ///   - responseCache: A directory for the catalog's and the member's
    ///     answers, kept so that a launch without the server shows the last
    ///     ones (marked offline); `nil` for none. Emptied at log out.
    ///   - webSocketTransport: The transport of the live favourites'
    ///     WebSocket: URLSession's on Apple platforms; on Linux, whose
    ///     URLSession has no WebSockets, the AsyncHTTPClient transport.
    public static func live(
        serverURL: URL,
        dataDirectory: URL,
        imageCache: URL? = nil,
        responseCache: URL? = nil,
        webSocketTransport: any HTTPTransport = URLSessionTransport.shared,
        logger: Logger = Logger(label: "spacephotos.app")
    ) async throws -> AppDependencies {
        try FileManager.default.createDirectory(
            at: dataDirectory,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        let client = HTTPClient(baseURL: serverURL)
        let authAPI = AuthAPI(client: client)
        let tokens = SessionTokens(directory: dataDirectory, authAPI: authAPI)
        // Answers kept on disk and shown when the server cannot be reached;
        // images have their own disk cache, so their client has none.
        let responses = responseCache.map { DiskCacheStore(directory: $0, byteLimit: 32 * 1_048_576) }
        let caching: [any HTTPMiddleware] =
            responses.map {
                [ResponseCache(store: $0, servesStaleWhenOffline: true)]
            } ?? []
        let catalogClient = HTTPClient(baseURL: serverURL, middleware: caching)
        let memberClient = HTTPClient(
            baseURL: serverURL,
            middleware: [BearerAuthentication(provider: tokens)] + caching
        )
        var session = SessionClient.live(tokens: tokens, authAPI: authAPI, memberAPI: MemberAPI(client: memberClient))
        if let responses {
            // What one member saw is not the next one's to see.
            let logOut = session.logOut
            session.logOut = {
                try await logOut()
                await responses.removeAll()
            }
        }

        var configuration = ImagePipeline.Configuration()
        if let imageCache {
            configuration.diskCache = try? DiskImageCache(directory: imageCache, limit: 256 * 1_048_576)
        }
        // Two copies of the app (two terminals) may share the directory, and
        // one may still be closing its files as the next opens them: wait
        // for the other's lock a little rather than fail with "locked".
        var database = GRDB.Configuration()
        database.busyMode = .timeout(5)
        let todos = TodoDatabases.files(in: dataDirectory, configuration: database)
        let saved = try await SavedPhotoRepository.open(
            at: dataDirectory.appendingPathComponent("saved.sqlite"),
            configuration: database
        )
        // The member's requests that may open a WebSocket: the live
        // favourites and the to-do sync's change channel.
        let socketClient = HTTPClient(
            baseURL: serverURL,
            transport: webSocketTransport,
            middleware: [BearerAuthentication(provider: tokens)]
        )
        return AppDependencies(
            session: session,
            photoSource: .live(client: catalogClient),
            pipeline: ImagePipeline(client: client, configuration: configuration),
            savedPhotos: saved,
            todos: TodoRepository(databases: todos),
            openTodos: { try await todos.open(for: $0) },
            todoSync: .live(databases: todos, client: socketClient),
            facts: .live(client: client),
            favourites: .live(client: socketClient),
            // Two ways a value outlives the app: a JSON file of its own, and
            // a row of the database it already has.
            selectedTab: .file(dataDirectory.appendingPathComponent("tab.json")),
            count: .row("counter", in: saved.database)
        )
    }
}
