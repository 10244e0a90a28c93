import BaselineAsyncHTTPClient
import BaselineConcurrency
import BaselineHTTP
import BaselinePersistence
import BaselineSync
import BaselineTesting
import Foundation
import HTTPTypes
import SpacePhotosCore
import SpacePhotosServer
import Testing

/// One device of a member: the app's own to-do database (a real file, the
/// app's schema) and a sync engine on the real server.
struct TodoDevice {
    let directory: TemporaryDirectory
    let repository: TodoRepository
    let engine: SyncEngine

    init(server: RunningServer, token: String, transport: AsyncHTTPClientTransport) async throws {
        let directory = try TemporaryDirectory()
        let database = try await SQLiteDatabase.open(
            at: directory.url.appendingPathComponent("todos.sqlite"),
            migrator: TodoSchema.migrator
        )
        self.init(directory: directory, database: database, server: server, token: token, transport: transport)
    }

    private init(
        directory: TemporaryDirectory,
        database: SQLiteDatabase,
        server: RunningServer,
        token: String,
        transport: AsyncHTTPClientTransport
    ) {
        self.directory = directory
        repository = TodoRepository(database: database)
        let client = HTTPClient(
            baseURL: server.baseURL,
            transport: transport,
            middleware: [BearerAuthentication(token: token)]
        )
        engine = SyncEngine(database: database, schema: TodoSchema.sync, server: HTTPSyncServer(client: client))
    }

    /// This device, its database as it is, syncing with `server` from now
    /// on (as an app does when its server comes back at a new address).
    func syncing(
        with server: RunningServer,
        token: String,
        transport: AsyncHTTPClientTransport
    ) async throws
        -> TodoDevice
    {
        TodoDevice(
            directory: directory,
            database: try await repository.database(),
            server: server,
            token: token,
            transport: transport
        )
    }

    /// The texts listed, in list order.
    func texts() async throws -> [String] { try await repository.all().map(\.text) }

    /// An item's id on this device, by text.
    func id(of text: String) async throws -> Int64 {
        try #require(try await repository.all().first { $0.text == text }?.id)
    }
}

@Suite("To-do sync through the real example server", .timeLimit(.minutes(2)))
struct TodoSyncIntegrationTests {
    func withMemberDevices(
        _ count: Int,
        on backend: SyncBackend,
        _ body: (RunningServer, [TodoDevice]) async throws -> Void
    ) async throws {
        try await backend.withStorage { storage in
            try await withMemberDevices(count, storage: storage, body)
        }
    }

    func withMemberDevices(
        _ count: Int,
        storage: SyncStorage,
        _ body: (RunningServer, [TodoDevice]) async throws -> Void
    ) async throws {
        let transport = AsyncHTTPClientTransport()
        do {
            try await withServer({ $0.syncStorage = storage }) { server in
                let token = try await AuthAPI(client: server.client)
                    .logIn(for: User.ID(rawValue: "astro"), with: "stardust-42").rawValue
                var devices: [TodoDevice] = []
                for _ in 0..<count {
                    devices.append(try await TodoDevice(server: server, token: token, transport: transport))
                }
                try await body(server, devices)
            }
            try await transport.shutdown()
        } catch {
            try? await transport.shutdown()
            throw error
        }
    }

    @Test(arguments: SyncBackend.allCases)
    func anItemAddedOnOneDeviceShowsInAnotherDevicesLiveQuery(on backend: SyncBackend) async throws {
        try await withMemberDevices(2, on: backend) { _, devices in
            let (a, b) = (devices[0], devices[1])
            let running = Task { try await b.engine.run() }
            defer { running.cancel() }
            for await status in b.engine.statuses where status.isLive && status.activity == .idle { break }

            var lists = b.repository.live().makeAsyncIterator()
            #expect(try await lists.next()?.map(\.text) == [])
            try await a.repository.add("Buy milk")
            try await a.engine.syncOnce()
            #expect(try await lists.next()?.map(\.text) == ["Buy milk"])
        }
    }

    @Test(arguments: SyncBackend.allCases)
    func threeDevicesWithOfflineEditsConverge(on backend: SyncBackend) async throws {
        try await withMemberDevices(3, on: backend) { _, devices in
            let (a, b, c) = (devices[0], devices[1], devices[2])
            try await a.repository.add("Buy milk")
            try await a.repository.add("Call mum")
            try await a.engine.syncOnce()
            try await b.engine.syncOnce()
            try await c.engine.syncOnce()

            // Each edits while offline (no sync): B edits one, C deletes the
            // other, A adds a third.
            try await b.repository.edit(id: b.id(of: "Buy milk"), text: "Buy oat milk")
            try await c.repository.delete(id: c.id(of: "Call mum"))
            try await a.repository.add("Water the plants")

            for device in devices { try await device.engine.syncOnce() }
            for device in devices { try await device.engine.syncOnce() }
            for device in devices {
                #expect(Set(try await device.texts()) == ["Buy oat milk", "Water the plants"])
            }
        }
    }

    /// A server in memory that restarts has lost its rows and counts
    /// cursors from the start again: once it passes a device's old cursor,
    /// that device must not take it for a position in the new data.
    @Test func aDeviceOfARestartedServerPullsTheNewDataWhole() async throws {
        let transport = AsyncHTTPClientTransport()
        do {
            func astro(_ server: RunningServer) async throws -> String {
                try await AuthAPI(client: server.client).logIn(for: User.ID(rawValue: "astro"), with: "stardust-42")
                    .rawValue
            }
            let (a, b) = try await withServer { server in
                let token = try await astro(server)
                let a = try await TodoDevice(server: server, token: token, transport: transport)
                let b = try await TodoDevice(server: server, token: token, transport: transport)
                try await a.repository.add(contentsOf: ["Old 1", "Old 2", "Old 3"])
                try await a.engine.syncOnce()
                try await b.engine.syncOnce()
                #expect(try await b.texts().count == 3)
                return (a, b)
            }
            try await withServer { server in
                let token = try await astro(server)
                let (a, b) = (
                    try await a.syncing(with: server, token: token, transport: transport),
                    try await b.syncing(with: server, token: token, transport: transport)
                )
                // Five changes: the new server's count passes B's old cursor (3).
                let new = (1...5).map { "New \($0)" }
                try await a.repository.add(contentsOf: new)
                try await a.engine.syncOnce()
                try await b.engine.syncOnce()
                #expect(
                    Set(try await b.texts()).isSuperset(of: new),
                    "B got every new to-do, not those after its old cursor"
                )
            }
            try await transport.shutdown()
        } catch {
            try? await transport.shutdown()
            throw error
        }
    }

    @Test func aDeviceLoggedInAsAnotherMemberSendsNothingOfTheFirstOnes() async throws {
        let transport = AsyncHTTPClientTransport()
        do {
            try await withServer { server in
                let auth = AuthAPI(client: server.client)
                let astro = try await auth.logIn(for: User.ID(rawValue: "astro"), with: "stardust-42").rawValue
                let luna = try await auth.logIn(for: User.ID(rawValue: "luna"), with: "moonwalk-1969").rawValue
                // One device, its database, and the app's sync client for
                // each member in turn, as after a log out and a log in.
                let directory = try TemporaryDirectory()
                let database = try await SQLiteDatabase.open(
                    at: directory.url.appendingPathComponent("todos.sqlite"),
                    migrator: TodoSchema.migrator
                )
                let repository = TodoRepository(database: database)
                func client(_ token: String) -> TodoSyncClient {
                    .live(
                        database: database,
                        client: HTTPClient(
                            baseURL: server.baseURL,
                            transport: transport,
                            middleware: [BearerAuthentication(token: token)]
                        )
                    )
                }
                let asAstro = client(astro)
                try await repository.add("Buy milk")
                let (statuses, status) = AsyncStream.makeStream(of: SyncStatus.self)
                let running = Task {
                    try await asAstro.run(User.ID(rawValue: "astro")) { status.yield($0) }
                }
                for await status in statuses where status.activity == .idle && status.pendingChanges == 0 { break }
                running.cancel()
                _ = await running.result
                try await repository.add("Astro's own, not sent yet")

                let asLuna = client(luna)
                let last = LockedValue<SyncStatus?>(nil)
                await #expect(throws: SyncError.otherAccount(bound: "astro", asked: "luna")) {
                    try await asLuna.run(User.ID(rawValue: "luna")) { status in last.withLock { $0 = status } }
                }
                #expect(
                    last.current?.activity
                        == .stopped(SyncError.otherAccount(bound: "astro", asked: "luna").description)
                )
                let lunasOtherDevice = try await TodoDevice(server: server, token: luna, transport: transport)
                try await lunasOtherDevice.engine.syncOnce()
                #expect(try await lunasOtherDevice.texts().isEmpty)
                let astrosOtherDevice = try await TodoDevice(server: server, token: astro, transport: transport)
                try await astrosOtherDevice.engine.syncOnce()
                #expect(try await astrosOtherDevice.texts() == ["Buy milk"])
            }
            try await transport.shutdown()
        } catch {
            try? await transport.shutdown()
            throw error
        }
    }

    @Test(arguments: SyncBackend.allCases)
    func anotherMembersDeviceSeesNothingOfThem(on backend: SyncBackend) async throws {
        try await backend.withStorage { storage in try await anotherMembersDeviceSeesNothingOfThem(storage: storage) }
    }

    func anotherMembersDeviceSeesNothingOfThem(storage: SyncStorage) async throws {
        let transport = AsyncHTTPClientTransport()
        do {
            try await withServer({ $0.syncStorage = storage }) { server in
                let auth = AuthAPI(client: server.client)
                let astro = try await auth.logIn(for: User.ID(rawValue: "astro"), with: "stardust-42").rawValue
                let luna = try await auth.logIn(for: User.ID(rawValue: "luna"), with: "moonwalk-1969").rawValue
                let mine = try await TodoDevice(server: server, token: astro, transport: transport)
                let theirs = try await TodoDevice(server: server, token: luna, transport: transport)
                try await mine.repository.add("Buy milk")
                try await mine.engine.syncOnce()
                try await theirs.engine.syncOnce()
                #expect(try await theirs.texts().isEmpty)
            }
            try await transport.shutdown()
        } catch {
            try? await transport.shutdown()
            throw error
        }
    }
}
