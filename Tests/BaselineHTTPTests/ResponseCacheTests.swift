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

    /// A 304 whose `Age` is no delta-seconds, or one too large: RFC 9111
    /// §1.2.2 and §5.1. Two revalidations, as the entry the first stores
    /// is the one the second reads.
    @Test(arguments: [
        ("99999999999999999999", 2_147_483_648),
        ("2147483649", 2_147_483_648),
        ("1e19", 0),
        ("inf", 0),
        ("0x10", 0),
        ("-1", 0),
        ("+5", 0),
        ("5, 6", 0),
        ("17", 17),
    ])
    func aRevalidationReadsAgeAsDeltaSeconds(_ age: String, _ expected: Int) async throws {
        let notModified = StubResponse(
            status: .notModified,
            headerFields: [.cacheControl: "max-age=60", .eTag: #""v1""#, .age: age]
        )
        transport.on(
            .get,
            "/photos",
            script: [response("v1", [.cacheControl: "max-age=60", .eTag: #""v1""#]), notModified, notModified]
        )
        _ = try await get()
        clock.advance(by: 61)

        let (revalidated, body) = try await get()
        #expect(revalidated.headerFields[.age] == String(expected))
        #expect(body == Data("v1".utf8))
        clock.advance(by: 1)
        let (again, _) = try await get()
        // 2^31 seconds old is stale, and revalidated again; a small age is still fresh.
        #expect(again.headerFields[.age] == String(min(expected + 1, 2_147_483_648)))
        #expect(transport.requests.count == (expected > 60 ? 3 : 2))
    }

    @Test(arguments: ["99999999999999999999", "1e19", "-1", "0x10"])
    func aMaxAgeThatIsNoDeltaSecondsOrTooLargeIsReadAsRFC9111Says(_ maxAge: String) async throws {
        transport.on(.get, "/photos", respond: response("v1", [.cacheControl: "max-age=\(maxAge)"]))
        _ = try await get()
        clock.advance(by: 365 * 24 * 3600)
        _ = try await get()
        // Too large is 2^31 seconds (68 years): still fresh. Not digits: stale.
        #expect(transport.requests.count == (maxAge.hasPrefix("9") ? 1 : 2))
    }

    @Test func aNotModifiedLeavesTheFieldsThatFrameOrEncodeTheBodyAlone() async throws {
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
        _ = try await get()
        clock.advance(by: 61)
        for _ in 0..<2 {
            let (head, body) = try await get()
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

    @Test func aNotModifiedForAnotherEntityTagDropsTheEntryAndAsksAgain() async throws {
        transport.on(
            .get,
            "/photos",
            script: [
                response("v1", [.cacheControl: "max-age=60", .eTag: #""v1""#]),
                StubResponse(status: .notModified, headerFields: [.cacheControl: "max-age=60", .eTag: #""v2""#]),
                response("v2", [.cacheControl: "max-age=60", .eTag: #""v2""#]),
            ]
        )
        _ = try await get()
        clock.advance(by: 61)
        #expect(try await get().1 == Data("v2".utf8))
        #expect(transport.requests.map { $0.headerFields[.ifNoneMatch] } == [nil, #""v1""#, nil])
        // The new representation is the entry now.
        #expect(try await get().1 == Data("v2".utf8))
        #expect(transport.requests.count == 3)
    }

    @Test func aNotModifiedWithTheWeakFormOfTheTagUpdatesTheEntry() async throws {
        transport.on(
            .get,
            "/photos",
            script: [
                response("v1", [.cacheControl: "max-age=60", .eTag: #""v1""#]),
                StubResponse(status: .notModified, headerFields: [.cacheControl: "max-age=60", .eTag: #"W/"v1""#]),
            ]
        )
        _ = try await get()
        clock.advance(by: 61)
        #expect(try await get().1 == Data("v1".utf8))
        #expect(transport.requests.count == 2)
    }

    @Test(arguments: ["Cache-Control: no-store", "Vary: Accept-Language"])
    func aNotModifiedThatForbidsStorageAnswersOnceAndRemovesTheEntry(_ field: String) async throws {
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
        _ = try await get()
        clock.advance(by: 61)
        #expect(try await get().1 == Data("v1".utf8))
        #expect(store.count == 0)
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
