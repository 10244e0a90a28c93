import BaselineHTTP
import BaselineOpenAPI
import BaselineTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

@Suite("OpenAPITransport: retry and token refresh for a generated client", .timeLimit(.minutes(1)))
struct MiddlewareTests {
    /// Retries at once: a jitter of zero makes each backoff zero.
    static func retry(_ policy: RetryPolicy = RetryPolicy()) -> RetryMiddleware {
        RetryMiddleware(policy: policy, random: { 0 })
    }

    @Test func aGetIsRetriedAfterA503() async throws {
        let transport = StubTransport()
        transport.on(.get, "/v1/items/42", script: [.status(.serviceUnavailable), try .json(lamp)])
        let api = makeAPI(on: transport, middleware: [Self.retry()])

        let output = try await api.getItem(path: .init(id: "42"))

        #expect(try output.ok.body.json == lamp)
        #expect(transport.requests.count == 2)
    }

    @Test func aPostIsNotRetriedUnderTheDefaultPolicy() async throws {
        let transport = StubTransport()
        transport.on(.post, "/v1/items", script: [.status(.serviceUnavailable), try .json(lamp, status: .created)])
        let api = makeAPI(on: transport, middleware: [Self.retry()])

        let output = try await api.createItem(body: .json(.init(name: "Lamp")))

        guard case .undocumented(statusCode: 503, _) = output else {
            Issue.record("Expected the 503 itself, got \(output)")
            return
        }
        #expect(transport.requests.count == 1)
    }

    @Test func aPostTheMethodsAllowIsRetriedWithItsBodyIntact() async throws {
        let transport = StubTransport()
        transport.on(.post, "/v1/items", script: [.status(.serviceUnavailable), try .json(lamp, status: .created)])
        var policy = RetryPolicy()
        policy.retryableMethods.insert(.post)
        let api = makeAPI(on: transport, middleware: [Self.retry(policy)])
        let item = Components.Schemas.NewItem(name: "Lamp", tags: ["light", "desk"])

        let output = try await api.createItem(body: .json(item))

        #expect(try output.created.body.json == lamp)
        let bodies = transport.requests.map(\.body)
        #expect(bodies.count == 2)
        #expect(bodies[0] == bodies[1])
        #expect(try transport.requests[1].decodeBody(Components.Schemas.NewItem.self) == item)
    }

    @Test func aStreamedUploadWithinTheLimitIsRetriedWhole() async throws {
        let transport = StubTransport()
        transport.on(.put, "/v1/items/42/photo", script: [.status(.serviceUnavailable), .status(.noContent)])
        let api = makeAPI(on: transport, middleware: [Self.retry()])

        let output = try await api.uploadPhoto(
            path: .init(id: "42"),
            body: .binary(singlePassBody(["ab", "cd", "ef"]))
        )

        guard case .noContent = output else {
            Issue.record("Expected .noContent, got \(output)")
            return
        }
        #expect(transport.requests.map(\.body) == [Data("abcdef".utf8), Data("abcdef".utf8)])
    }

    @Test func aStreamedUploadOverTheLimitIsSentOnceAndItsFailureReturned() async throws {
        let transport = StubTransport()
        transport.on(.put, "/v1/items/42/photo", script: [.status(.serviceUnavailable), .status(.noContent)])
        let api = makeAPI(on: transport, middleware: [Self.retry()], replayableBodyLimit: 4)

        let output = try await api.uploadPhoto(
            path: .init(id: "42"),
            body: .binary(singlePassBody(["ab", "cd", "ef"]))
        )

        guard case .undocumented(statusCode: 503, _) = output else {
            Issue.record("Expected the 503 itself, got \(output)")
            return
        }
        // Every byte, in order, though it was not held.
        #expect(transport.requests.map(\.body) == [Data("abcdef".utf8)])
    }

    @Test func a401RefreshesTheTokenOnceAndResendsTheRequestWithIt() async throws {
        let transport = StubTransport()
        transport.on(.post, "/v1/items") { request in
            guard request.headerFields[.authorization] == "Bearer fresh" else { return .status(.unauthorized) }
            return try .json(lamp, status: .created)
        }
        let tokens = TestTokens("stale")
        let api = makeAPI(on: transport, middleware: [Self.retry(), BearerAuthentication(provider: tokens)])
        let item = Components.Schemas.NewItem(name: "Lamp")

        let calling = Task { try await api.createItem(body: .json(item)) }
        let refresh = try await tokens.refresh.nextCall()
        #expect(refresh.arguments == "stale")
        refresh.resume(returning: "fresh")
        let output = try await calling.value

        #expect(try output.created.body.json == lamp)
        #expect(transport.requests.map { $0.headerFields[.authorization] } == ["Bearer stale", "Bearer fresh"])
        #expect(try transport.requests.map { try $0.decodeBody(Components.Schemas.NewItem.self) } == [item, item])
        #expect(tokens.refresh.callCount == 1)
    }

    @Test func concurrentCallsRejectedTogetherShareOneRefresh() async throws {
        let transport = StubTransport()
        let (rejections, rejected) = AsyncStream<Void>.makeStream()
        transport.on(.get, "/v1/items/42") { request in
            guard request.headerFields[.authorization] == "Bearer fresh" else {
                rejected.yield()
                return .status(.unauthorized)
            }
            return try .json(lamp)
        }
        let tokens = TestTokens("stale")
        let api = makeAPI(on: transport, middleware: [Self.retry(), BearerAuthentication(provider: tokens)])

        try await withThrowingTaskGroup(of: Components.Schemas.Item.self) { group in
            for _ in 0..<3 {
                group.addTask { try await api.getItem(path: .init(id: "42")).ok.body.json }
            }
            // All three have their 401 before the refresh may end.
            var rejectionsSeen = rejections.makeAsyncIterator()
            for _ in 0..<3 { await rejectionsSeen.next() }
            let refresh = try await tokens.refresh.nextCall()
            refresh.resume(returning: "fresh")
            for try await item in group {
                #expect(item == lamp)
            }
        }

        #expect(tokens.refresh.callCount == 1)
        let authorizations = transport.requests.map { $0.headerFields[.authorization] ?? "" }
        #expect(
            authorizations.sorted() == Array(repeating: "Bearer fresh", count: 3)
                + Array(repeating: "Bearer stale", count: 3)
        )
    }
}
