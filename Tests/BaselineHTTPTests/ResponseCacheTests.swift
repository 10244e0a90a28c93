import BaselineHTTP
import BaselineTesting
import Foundation
import HTTPTypes
import Testing

@Suite("ResponseCache", .timeLimit(.minutes(1)))
struct ResponseCacheTests {
    let transport = StubTransport()
    let clock = TestDate()
    let memory = MemoryCacheStore(byteLimit: 1024 * 1024)
    let disk: DiskCacheStore
    let folder: TemporaryDirectory

    init() throws {
        folder = try TemporaryDirectory(prefix: "response-cache")
        disk = DiskCacheStore(directory: folder.url, byteLimit: 1024 * 1024)
    }

    /// Every test runs on each store: the cache's rules are the same whatever keeps the entries.
    enum Store: String, CaseIterable, CustomTestStringConvertible {
        case memory, disk
        var testDescription: String { rawValue }
    }

    func store(_ kind: Store) -> any HTTPCacheStore {
        kind == .memory ? memory : disk
    }

    func storedCount(_ kind: Store) async -> Int {
        switch kind {
        case .memory: memory.count
        case .disk: DiskCacheStoreTests.entryFiles(in: folder.url).count
        }
    }

    func cache(_ kind: Store) -> ResponseCache {
        ResponseCache(store: store(kind), maximumEntrySize: 1024, now: { [clock] in clock.now })
    }

    func get(
        _ kind: Store,
        _ path: String = "/photos",
        headerFields: HTTPFields = [:]
    ) async throws -> (HTTPResponse, Data) {
        try await send(apiRequest(.get, path, headerFields: headerFields), through: [cache(kind)], to: transport)
    }

    func response(_ body: String, _ fields: HTTPFields) -> StubResponse {
        StubResponse(headerFields: fields, body: Data(body.utf8))
    }

    @Test(arguments: Store.allCases) func aFreshEntryAnswersWithoutTheNetwork(_ kind: Store) async throws {
        transport.on(.get, "/photos", script: [response("v1", [.cacheControl: "max-age=60"])])
        _ = try await get(kind)
        clock.advance(by: 30)

        let (head, body) = try await get(kind)
        #expect(head.status == .ok)
        #expect(body == Data("v1".utf8))
        #expect(head.headerFields[.age] == "30")
        #expect(transport.requests.count == 1)
    }

    @Test(arguments: Store.allCases) func aStaleEntryIsRevalidatedAndA304IsAnsweredFromTheCache(
        _ kind: Store
    ) async throws {
        transport.on(
            .get,
            "/photos",
            script: [
                response("v1", [.cacheControl: "max-age=60", .eTag: #""v1""#]),
                StubResponse(status: .notModified, headerFields: [.cacheControl: "max-age=120", .eTag: #""v1""#]),
            ]
        )
        _ = try await get(kind)
        clock.advance(by: 61)

        let (head, body) = try await get(kind)
        #expect(head.status == .ok)
        #expect(body == Data("v1".utf8))
        #expect(transport.requests.last?.headerFields[.ifNoneMatch] == #""v1""#)

        // The 304 renewed the entry: fresh for 120 seconds from now.
        clock.advance(by: 100)
        #expect(try await get(kind).1 == Data("v1".utf8))
        #expect(transport.requests.count == 2)
    }

    @Test(arguments: Store.allCases) func lastModifiedIsRevalidatedWithIfModifiedSince(_ kind: Store) async throws {
        let lastModified = "Sun, 06 Nov 1994 08:49:37 GMT"
        transport.on(
            .get,
            "/photos",
            script: [
                response("v1", [.lastModified: lastModified]),
                StubResponse(status: .notModified),
            ]
        )
        _ = try await get(kind)
        #expect(try await get(kind).1 == Data("v1".utf8))
        #expect(transport.requests.last?.headerFields[.ifModifiedSince] == lastModified)
    }

    @Test(arguments: Store.allCases) func aChangedResponseReplacesTheEntry(_ kind: Store) async throws {
        transport.on(
            .get,
            "/photos",
            script: [
                response("v1", [.cacheControl: "max-age=60", .eTag: #""v1""#]),
                response("v2", [.cacheControl: "max-age=60", .eTag: #""v2""#]),
            ]
        )
        _ = try await get(kind)
        clock.advance(by: 61)
        #expect(try await get(kind).1 == Data("v2".utf8))
        #expect(try await get(kind).1 == Data("v2".utf8))
        #expect(transport.requests.count == 2)
    }

    @Test(
        arguments: Store.allCases,
        [
            [HTTPField(name: .cacheControl, value: "no-store, max-age=60")],
            [HTTPField(name: .cacheControl, value: "max-age=60"), HTTPField(name: .vary, value: "Accept-Language")],
            [HTTPField(name: .contentType, value: "text/plain")],  // neither freshness nor validator
        ]
    )
    func unstorableResponsesAreNeverStored(_ kind: Store, _ fields: [HTTPField]) async throws {
        transport.on(.get, "/photos", respond: response("v1", HTTPFields(fields)))
        _ = try await get(kind)
        _ = try await get(kind)
        #expect(transport.requests.count == 2)
        #expect(await storedCount(kind) == 0)
    }

    @Test(arguments: Store.allCases) func aBodyOverTheEntryLimitIsNotStored(_ kind: Store) async throws {
        transport.on(
            .get,
            "/photos",
            respond: response(String(repeating: "x", count: 2_000), [.cacheControl: "max-age=60"])
        )
        #expect(try await get(kind).1.count == 2_000)
        #expect(await storedCount(kind) == 0)
    }

    @Test(arguments: Store.allCases, ["no-cache", "no-store"])
    func aRequestCanBypassTheCache(_ kind: Store, _ directive: String) async throws {
        transport.on(.get, "/photos", respond: response("v1", [.cacheControl: "max-age=60"]))
        _ = try await get(kind)
        _ = try await get(kind, headerFields: [.cacheControl: directive])
        #expect(transport.requests.count == 2)
        #expect(transport.requests.last?.headerFields[.ifNoneMatch] == nil)
    }

    @Test(arguments: Store.allCases) func aNoCacheResponseIsRevalidatedEveryTime(_ kind: Store) async throws {
        transport.on(
            .get,
            "/photos",
            script: [
                response("v1", [.cacheControl: "no-cache", .eTag: #""v1""#]),
                StubResponse(status: .notModified),
            ]
        )
        _ = try await get(kind)
        #expect(try await get(kind).1 == Data("v1".utf8))
        #expect(transport.requests.count == 2)
    }

    @Test(arguments: Store.allCases) func expiresCountsFromTheDateField(_ kind: Store) async throws {
        transport.on(
            .get,
            "/photos",
            script: [
                response("v1", [.date: "Sun, 06 Nov 1994 08:49:37 GMT", .expires: "Sun, 06 Nov 1994 08:50:37 GMT"])
            ]
        )
        _ = try await get(kind)
        clock.advance(by: 59)
        #expect(try await get(kind).1 == Data("v1".utf8))
        #expect(transport.requests.count == 1)
    }

    /// A 304 whose `Age` is no delta-seconds, or one too large: RFC 9111
    /// §1.2.2 and §5.1. Two revalidations, as the entry the first stores
    /// is the one the second reads.
    @Test(
        arguments: Store.allCases,
        [
            ("99999999999999999999", 2_147_483_648),
            ("2147483649", 2_147_483_648),
            ("1e19", 0),
            ("inf", 0),
            ("0x10", 0),
            ("-1", 0),
            ("+5", 0),
            ("5, 6", 0),
            ("17", 17),
        ]
    )
    func aRevalidationReadsAgeAsDeltaSeconds(_ kind: Store, _ ageAndExpected: (String, Int)) async throws {
        let (age, expected) = ageAndExpected
        let notModified = StubResponse(
            status: .notModified,
            headerFields: [.cacheControl: "max-age=60", .eTag: #""v1""#, .age: age]
        )
        transport.on(
            .get,
            "/photos",
            script: [response("v1", [.cacheControl: "max-age=60", .eTag: #""v1""#]), notModified, notModified]
        )
        _ = try await get(kind)
        clock.advance(by: 61)

        let (revalidated, body) = try await get(kind)
        #expect(revalidated.headerFields[.age] == String(expected))
        #expect(body == Data("v1".utf8))
        clock.advance(by: 1)
        let (again, _) = try await get(kind)
        // 2^31 seconds old is stale, and revalidated again; a small age is still fresh.
        #expect(again.headerFields[.age] == String(min(expected + 1, 2_147_483_648)))
        #expect(transport.requests.count == (expected > 60 ? 3 : 2))
    }

    @Test(arguments: Store.allCases, ["99999999999999999999", "1e19", "-1", "0x10"])
    func aMaxAgeThatIsNoDeltaSecondsOrTooLargeIsReadAsRFC9111Says(_ kind: Store, _ maxAge: String) async throws {
        transport.on(.get, "/photos", respond: response("v1", [.cacheControl: "max-age=\(maxAge)"]))
        _ = try await get(kind)
        clock.advance(by: 365 * 24 * 3600)
        _ = try await get(kind)
        // Too large is 2^31 seconds (68 years): still fresh. Not digits: stale.
        #expect(transport.requests.count == (maxAge.hasPrefix("9") ? 1 : 2))
    }

    @Test(arguments: Store.allCases) func aNotModifiedLeavesTheFieldsThatFrameOrEncodeTheBodyAlone(
        _ kind: Store
    ) async throws {
        transport.on(
            .get,
            "/photos",
            script: [
                response("v1", [.cacheControl: "max-age=60", .eTag: #""v1""#, .contentType: "text/plain"]),
                StubResponse(
                    status: .notModified,
                    headerFields: [
                        .cacheControl: "max-age=120", .eTag: #""v1""#, .contentLength: "999",
                        .contentEncoding: "gzip", .transferEncoding: "chunked", .contentType: "text/csv",
                        .connection: "x-hop", HTTPField.Name("X-Hop")!: "1",
                    ]
                ),
            ]
        )
        _ = try await get(kind)
        clock.advance(by: 61)
        for _ in 0..<2 {
            let (head, body) = try await get(kind)
            #expect(body == Data("v1".utf8))
            #expect(head.headerFields[.contentLength] == nil)
            #expect(head.headerFields[.contentEncoding] == nil)
            #expect(head.headerFields[.transferEncoding] == nil)
            #expect(head.headerFields[HTTPField.Name("X-Hop")!] == nil)
            #expect(head.headerFields[.contentType] == "text/csv")
            #expect(head.headerFields[.cacheControl] == "max-age=120")
        }
        #expect(transport.requests.count == 2)
    }

    @Test(arguments: Store.allCases) func aNotModifiedForAnotherEntityTagDropsTheEntryAndAsksAgain(
        _ kind: Store
    ) async throws {
        transport.on(
            .get,
            "/photos",
            script: [
                response("v1", [.cacheControl: "max-age=60", .eTag: #""v1""#]),
                StubResponse(status: .notModified, headerFields: [.cacheControl: "max-age=60", .eTag: #""v2""#]),
                response("v2", [.cacheControl: "max-age=60", .eTag: #""v2""#]),
            ]
        )
        _ = try await get(kind)
        clock.advance(by: 61)
        #expect(try await get(kind).1 == Data("v2".utf8))
        #expect(transport.requests.map { $0.headerFields[.ifNoneMatch] } == [nil, #""v1""#, nil])
        // The new representation is the entry now.
        #expect(try await get(kind).1 == Data("v2".utf8))
        #expect(transport.requests.count == 3)
    }

    @Test(arguments: Store.allCases) func aNotModifiedWithTheWeakFormOfTheTagUpdatesTheEntry(_ kind: Store) async throws
    {
        transport.on(
            .get,
            "/photos",
            script: [
                response("v1", [.cacheControl: "max-age=60", .eTag: #""v1""#]),
                StubResponse(status: .notModified, headerFields: [.cacheControl: "max-age=60", .eTag: #"W/"v1""#]),
            ]
        )
        _ = try await get(kind)
        clock.advance(by: 61)
        #expect(try await get(kind).1 == Data("v1".utf8))
        #expect(transport.requests.count == 2)
    }

    @Test(arguments: Store.allCases, ["Cache-Control: no-store", "Vary: Accept-Language"])
    func aNotModifiedThatForbidsStorageAnswersOnceAndRemovesTheEntry(_ kind: Store, _ field: String) async throws {
        let parts = field.split(separator: ":", maxSplits: 1)
        var fields: HTTPFields = [.eTag: #""v1""#]
        fields[HTTPField.Name(String(parts[0]))!] = String(parts[1].dropFirst())
        transport.on(
            .get,
            "/photos",
            script: [
                response("v1", [.cacheControl: "max-age=60", .eTag: #""v1""#]),
                StubResponse(status: .notModified, headerFields: fields),
            ]
        )
        _ = try await get(kind)
        clock.advance(by: 61)
        #expect(try await get(kind).1 == Data("v1".utf8))
        #expect(await storedCount(kind) == 0)
    }

    @Test(arguments: Store.allCases) func aSuccessfulPostInvalidatesTheEntry(_ kind: Store) async throws {
        transport.on(.get, "/photos", respond: response("v1", [.cacheControl: "max-age=60"]))
        transport.on(.post, "/photos", respond: .status(.created))
        _ = try await get(kind)
        _ = try await send(apiRequest(.post, "/photos"), body: HTTPBody("{}"), through: [cache(kind)], to: transport)
        _ = try await get(kind)
        #expect(transport.requests.map(\.method) == [.get, .post, .get])
    }

    // MARK: Offline

    func offlineCache(_ kind: Store) -> ResponseCache {
        ResponseCache(
            store: store(kind),
            maximumEntrySize: 1024,
            servesStaleWhenOffline: true,
            now: { [clock] in
                clock.now
            }
        )
    }

    func getOffline(_ kind: Store) async throws -> (HTTPResponse, Data) {
        try await send(apiRequest(.get, "/photos"), through: [offlineCache(kind)], to: transport)
    }

    /// The server is gone: the transport cannot connect.
    func serverStops() {
        transport.on(.get, "/photos") { _ in
            throw TransportFailure(
                .cannotConnect(detail: "connection refused"),
                server: "127.0.0.1:1",
                underlying: CancellationError()
            )
        }
    }

    @Test(arguments: Store.allCases)
    func offlineAnEntryOfAnyAgeAnswersAndSaysSo(_ kind: Store) async throws {
        // Neither freshness nor a validator: stored all the same, for offline use.
        transport.on(.get, "/photos", respond: response("v1", [.contentType: "application/json"]))
        let (online, _) = try await getOffline(kind)
        #expect(!online.isServedWhileOffline)
        #expect(await storedCount(kind) == 1)
        // It is never served fresh while the server answers.
        transport.on(.get, "/photos", respond: response("v2", [.contentType: "application/json"]))
        #expect(try await getOffline(kind).1 == Data("v2".utf8))

        serverStops()
        clock.advance(by: 30 * 24 * 3600)
        let (head, body) = try await getOffline(kind)
        #expect(body == Data("v2".utf8))
        #expect(head.isServedWhileOffline)
        #expect(head.headerFields[.age] == String(30 * 24 * 3600))
    }

    @Test(arguments: Store.allCases)
    func withoutTheOptionOfflineIsAnError(_ kind: Store) async throws {
        transport.on(.get, "/photos", respond: response("v1", [.cacheControl: "max-age=60"]))
        _ = try await get(kind)
        clock.advance(by: 61)
        serverStops()
        await #expect(throws: TransportFailure.self) { try await get(kind) }
    }

    @Test(arguments: Store.allCases, ["no-cache", "must-revalidate, max-age=60"])
    func offlineAnEntryThatMustBeRevalidatedIsNotServed(_ kind: Store, _ directive: String) async throws {
        transport.on(.get, "/photos", respond: response("v1", [.cacheControl: directive, .eTag: #""v1""#]))
        _ = try await getOffline(kind)
        clock.advance(by: 61)
        serverStops()
        await #expect(throws: TransportFailure.self) { try await getOffline(kind) }
    }

    @Test(arguments: Store.allCases)
    func aServerThatAnswersBadlyIsNotOffline(_ kind: Store) async throws {
        transport.on(.get, "/photos", respond: response("v1", [:]))
        _ = try await getOffline(kind)
        transport.on(.get, "/photos") { _ in
            throw TransportFailure(
                .malformedResponse(detail: "bad chunk"),
                server: nil,
                underlying: CancellationError()
            )
        }
        await #expect(throws: TransportFailure.self) { try await getOffline(kind) }
        // A server's own field cannot make an answer look offline, with the option or without.
        transport.on(.get, "/photos", respond: response("v2", [HTTPField.Name("Baseline-Served-Offline")!: "?1"]))
        #expect(try await getOffline(kind).0.isServedWhileOffline == false)
        #expect(try await get(kind).0.isServedWhileOffline == false)
    }

    @Test(arguments: Store.allCases, [HTTPResponse.Status.notFound, .forbidden])
    func aNewerAnswerThatIsNotKeptDropsTheKeptOne(_ kind: Store, _ status: HTTPResponse.Status) async throws {
        transport.on(.get, "/photos", respond: response("secret", [:]))
        _ = try await getOffline(kind)
        transport.on(.get, "/photos", respond: .status(status))
        _ = try? await getOffline(kind)
        #expect(await storedCount(kind) == 0)
        serverStops()
        await #expect(throws: TransportFailure.self) { try await getOffline(kind) }
    }

    @Test(arguments: Store.allCases)
    func aRelaunchedAppShowsTheLastAnswerOffline(_ kind: Store) async throws {
        transport.on(.get, "/photos", respond: response("catalog", [.contentType: "application/json"]))
        _ = try await getOffline(kind)
        serverStops()
        // A new store on the same folder is what the next launch has; memory has nothing.
        let relaunched: any HTTPCacheStore =
            kind == .disk
            ? DiskCacheStore(directory: folder.url, byteLimit: 1 << 20) : MemoryCacheStore(byteLimit: 1 << 20)
        let cache = ResponseCache(store: relaunched, servesStaleWhenOffline: true, now: { [clock] in clock.now })
        let request = apiRequest(.get, "/photos")
        switch kind {
        case .disk:
            let (head, body) = try await send(request, through: [cache], to: transport)
            #expect(body == Data("catalog".utf8))
            #expect(head.isServedWhileOffline)
        case .memory:
            await #expect(throws: TransportFailure.self) { try await send(request, through: [cache], to: transport) }
        }
    }
}

@Suite("MemoryCacheStore")
struct MemoryCacheStoreTests {
    func entry(bytes: Int) -> CachedResponse {
        CachedResponse(response: HTTPResponse(status: .ok), body: Data(count: bytes), receivedAt: Date())
    }

    @Test func evictsTheLeastRecentlyUsedEntriesToStayWithinItsBytes() async {
        let store = MemoryCacheStore(byteLimit: 250)
        await store.store(entry(bytes: 100), for: "a")
        await store.store(entry(bytes: 100), for: "b")
        _ = await store.cachedResponse(for: "a")  // "b" is now the least recently used
        await store.store(entry(bytes: 100), for: "c")

        #expect(await store.cachedResponse(for: "b") == nil)
        #expect(await store.cachedResponse(for: "a") != nil)
        #expect(await store.cachedResponse(for: "c") != nil)
        #expect(store.totalCost == 200)
    }

    @Test func replacingAnEntryCountsItsNewSize() async {
        let store = MemoryCacheStore(byteLimit: 250)
        await store.store(entry(bytes: 100), for: "a")
        await store.store(entry(bytes: 200), for: "a")
        #expect(store.totalCost == 200)
        #expect(store.count == 1)
    }

    @Test func anEntryLargerThanTheLimitIsNotStored() async {
        let store = MemoryCacheStore(byteLimit: 50)
        await store.store(entry(bytes: 100), for: "a")
        #expect(store.count == 0)
        #expect(store.totalCost == 0)
    }

    @Test func removeAllEmptiesTheStore() async {
        let store = MemoryCacheStore(byteLimit: 250)
        await store.store(entry(bytes: 100), for: "a")
        await store.removeAll()
        #expect(await store.cachedResponse(for: "a") == nil)
        #expect(store.totalCost == 0)
    }
}
