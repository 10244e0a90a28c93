import BaselineHTTP
import BaselineTesting
import Foundation
import HTTPTypes
import Testing

@Suite("ResponseCache", .timeLimit(.minutes(1)))
struct ResponseCacheTests {
    let transport = StubTransport()
    let store = MemoryCacheStore(byteLimit: 1024 * 1024)
    let clock = TestDate()
    var cache: ResponseCache { ResponseCache(store: store, maximumEntrySize: 1024, now: { [clock] in clock.now }) }

    func get(_ path: String = "/photos", headerFields: HTTPFields = [:]) async throws -> (HTTPResponse, Data) {
        try await send(apiRequest(.get, path, headerFields: headerFields), through: [cache], to: transport)
    }

    func response(_ body: String, _ fields: HTTPFields) -> StubResponse {
        StubResponse(headerFields: fields, body: Data(body.utf8))
    }

    @Test func aFreshEntryAnswersWithoutTheNetwork() async throws {
        transport.on(.get, "/photos", script: [response("v1", [.cacheControl: "max-age=60"])])
        _ = try await get()
        clock.advance(by: 30)

        let (head, body) = try await get()
        #expect(head.status == .ok)
        #expect(body == Data("v1".utf8))
        #expect(head.headerFields[.age] == "30")
        #expect(transport.requests.count == 1)
    }

    @Test func aStaleEntryIsRevalidatedAndA304IsAnsweredFromTheCache() async throws {
        transport.on(
            .get,
            "/photos",
            script: [
                response("v1", [.cacheControl: "max-age=60", .eTag: #""v1""#]),
                StubResponse(status: .notModified, headerFields: [.cacheControl: "max-age=120", .eTag: #""v1""#]),
            ]
        )
        _ = try await get()
        clock.advance(by: 61)

        let (head, body) = try await get()
        #expect(head.status == .ok)
        #expect(body == Data("v1".utf8))
        #expect(transport.requests.last?.headerFields[.ifNoneMatch] == #""v1""#)

        // The 304 renewed the entry: fresh for 120 seconds from now.
        clock.advance(by: 100)
        #expect(try await get().1 == Data("v1".utf8))
        #expect(transport.requests.count == 2)
    }

    @Test func lastModifiedIsRevalidatedWithIfModifiedSince() async throws {
        let lastModified = "Sun, 06 Nov 1994 08:49:37 GMT"
        transport.on(
            .get,
            "/photos",
            script: [
                response("v1", [.lastModified: lastModified]),
                StubResponse(status: .notModified),
            ]
        )
        _ = try await get()
        #expect(try await get().1 == Data("v1".utf8))
        #expect(transport.requests.last?.headerFields[.ifModifiedSince] == lastModified)
    }

    @Test func aChangedResponseReplacesTheEntry() async throws {
        transport.on(
            .get,
            "/photos",
            script: [
                response("v1", [.cacheControl: "max-age=60", .eTag: #""v1""#]),
                response("v2", [.cacheControl: "max-age=60", .eTag: #""v2""#]),
            ]
        )
        _ = try await get()
        clock.advance(by: 61)
        #expect(try await get().1 == Data("v2".utf8))
        #expect(try await get().1 == Data("v2".utf8))
        #expect(transport.requests.count == 2)
    }

    @Test(arguments: [
        [HTTPField(name: .cacheControl, value: "no-store, max-age=60")],
        [HTTPField(name: .cacheControl, value: "max-age=60"), HTTPField(name: .vary, value: "Accept-Language")],
        [HTTPField(name: .contentType, value: "text/plain")],  // neither freshness nor validator
    ])
    func unstorableResponsesAreNeverStored(_ fields: [HTTPField]) async throws {
        transport.on(.get, "/photos", respond: response("v1", HTTPFields(fields)))
        _ = try await get()
        _ = try await get()
        #expect(transport.requests.count == 2)
        #expect(store.count == 0)
    }

    @Test func aBodyOverTheEntryLimitIsNotStored() async throws {
        transport.on(
            .get,
            "/photos",
            respond: response(String(repeating: "x", count: 2_000), [.cacheControl: "max-age=60"])
        )
        #expect(try await get().1.count == 2_000)
        #expect(store.count == 0)
    }

    @Test(arguments: ["no-cache", "no-store"])
    func aRequestCanBypassTheCache(_ directive: String) async throws {
        transport.on(.get, "/photos", respond: response("v1", [.cacheControl: "max-age=60"]))
        _ = try await get()
        _ = try await get(headerFields: [.cacheControl: directive])
        #expect(transport.requests.count == 2)
        #expect(transport.requests.last?.headerFields[.ifNoneMatch] == nil)
    }

    @Test func aNoCacheResponseIsRevalidatedEveryTime() async throws {
        transport.on(
            .get,
            "/photos",
            script: [
                response("v1", [.cacheControl: "no-cache", .eTag: #""v1""#]),
                StubResponse(status: .notModified),
            ]
        )
        _ = try await get()
        #expect(try await get().1 == Data("v1".utf8))
        #expect(transport.requests.count == 2)
    }

    @Test func expiresCountsFromTheDateField() async throws {
        transport.on(
            .get,
            "/photos",
            script: [
                response("v1", [.date: "Sun, 06 Nov 1994 08:49:37 GMT", .expires: "Sun, 06 Nov 1994 08:50:37 GMT"])
            ]
        )
        _ = try await get()
        clock.advance(by: 59)
        #expect(try await get().1 == Data("v1".utf8))
        #expect(transport.requests.count == 1)
    }

    @Test func aSuccessfulPostInvalidatesTheEntry() async throws {
        transport.on(.get, "/photos", respond: response("v1", [.cacheControl: "max-age=60"]))
        transport.on(.post, "/photos", respond: .status(.created))
        _ = try await get()
        _ = try await send(apiRequest(.post, "/photos"), body: HTTPBody("{}"), through: [cache], to: transport)
        _ = try await get()
        #expect(transport.requests.map(\.method) == [.get, .post, .get])
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
