import BaselineHTTP
import BaselineOpenAPI
import BaselineTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

@Suite("OpenAPITransport: streaming and cancellation", .timeLimit(.minutes(1)))
struct StreamingTests {
    static let octetStream: HTTPFields = [.contentType: "application/octet-stream"]

    @Test func aDownloadArrivesAsItIsSent() async throws {
        let transport = StubTransport()
        let (chunks, feed) = AsyncThrowingStream<Data, any Error>.makeStream()
        transport.on(.get, "/v1/items/42/photo", respond: .streaming(chunks, headerFields: Self.octetStream, length: 6))
        let api = makeAPI(on: transport)
        feed.yield(Data("abc".utf8))

        // The call returns while the server is still sending.
        let body = try await api.downloadPhoto(path: .init(id: "42")).ok.body.binary
        #expect(body.length == .known(6))
        #expect(body.iterationBehavior == .single)
        var reading = body.makeAsyncIterator()
        #expect(try await reading.next() == ArraySlice("abc".utf8))

        feed.yield(Data("def".utf8))
        feed.finish()
        #expect(try await reading.next() == ArraySlice("def".utf8))
        #expect(try await reading.next() == nil)
    }

    @Test func cancellingTheReaderStopsTheTransfer() async throws {
        let transport = StubTransport()
        let (chunks, feed) = AsyncThrowingStream<Data, any Error>.makeStream()
        let (stopped, stop) = AsyncStream<Void>.makeStream()
        feed.onTermination = { _ in stop.finish() }
        transport.on(.get, "/v1/items/42/photo", respond: .streaming(chunks, headerFields: Self.octetStream))
        let api = makeAPI(on: transport)
        feed.yield(Data("abc".utf8))
        let body = try await api.downloadPhoto(path: .init(id: "42")).ok.body.binary

        let (firstChunk, readFirstChunk) = AsyncStream<Void>.makeStream()
        let reader = Task {
            for try await _ in body { readFirstChunk.yield() }
        }
        var chunksRead = firstChunk.makeAsyncIterator()
        await chunksRead.next()
        reader.cancel()

        await #expect(throws: CancellationError.self) { try await reader.value }
        // The server's stream was told to stop.
        for await _ in stopped {}
    }

    @Test func cancellingTheCallBeforeTheResponseIsACancellationError() async throws {
        let transport = StubTransport()
        let held = transport.hold(.get, "/v1/items/42")
        let api = makeAPI(on: transport)

        let calling = Task { try await api.getItem(path: .init(id: "42")) }
        let call = try await held.nextCall()
        calling.cancel()

        let error = await #expect(throws: ClientError.self) { try await calling.value }
        // The runtime wraps whatever a transport throws; cancellation is under it, as itself.
        #expect(underlying(error!) is CancellationError)
        #expect(call.isCancelled)
    }

    @Test func aBodyThatBreaksFailsWithAnHTTPClientError() async throws {
        let transport = StubTransport()
        let (chunks, feed) = AsyncThrowingStream<Data, any Error>.makeStream()
        transport.on(.get, "/v1/items/42/photo", respond: .streaming(chunks, headerFields: Self.octetStream))
        let api = makeAPI(on: transport)
        feed.yield(Data("abc".utf8))
        feed.finish(throwing: URLError(.networkConnectionLost))

        let body = try await api.downloadPhoto(path: .init(id: "42")).ok.body.binary

        let error = await #expect(throws: HTTPClientError.self) { _ = try await Data(collecting: body, upTo: 1024) }
        guard case let .transport(cause) = error else {
            Issue.record("Expected HTTPClientError.transport, got \(String(describing: error))")
            return
        }
        #expect((cause as? URLError)?.code == .networkConnectionLost)
    }

    @Test func aBufferedResponseCanBeReadMoreThanOnce() async throws {
        let transport = StubTransport()
        transport.on(
            .get,
            "/v1/items/42/photo",
            respond: StubResponse(headerFields: Self.octetStream, body: Data("abc".utf8))
        )
        let api = makeAPI(on: transport)

        let body = try await api.downloadPhoto(path: .init(id: "42")).ok.body.binary

        #expect(body.iterationBehavior == .multiple)
        #expect(try await Data(collecting: body, upTo: 16) == Data("abc".utf8))
        #expect(try await Data(collecting: body, upTo: 16) == Data("abc".utf8))
    }
}
