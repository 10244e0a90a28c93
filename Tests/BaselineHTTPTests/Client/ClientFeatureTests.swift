import BaselineConcurrency
import BaselineHTTP
import BaselineTesting
import Foundation
import HTTPTypes
import Testing

@Suite("HTTPClient: bodies, timeouts, streaming, downloads, metrics", .timeLimit(.minutes(1)))
struct ClientFeatureTests {
    let transport = StubTransport()
    var client: HTTPClient { HTTPClient(baseURL: URL(string: "https://api.test")!, transport: transport) }

    @Test func formBodiesAreURLEncoded() async throws {
        transport.on(.post, "/form", respond: .status(.noContent))
        try await client.send(Request<Void>.post("/form", body: .form([("name", "Astro Naut"), ("note", "a&b=c/é")])))
        let sent = try #require(transport.requests.first)
        #expect(sent.headerFields[.contentType] == "application/x-www-form-urlencoded")
        #expect(String(decoding: sent.body ?? Data(), as: UTF8.self) == "name=Astro+Naut&note=a%26b%3Dc%2F%C3%A9")
    }

    @Test func multipartFormsCarryFieldsAndFiles() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("star.png")
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: file)
        transport.on(.post, "/uploads", respond: .status(.created))
        let form = MultipartForm(boundary: "XyZ")
            .field("title", "Orion \"Nebula\"")
            .file("photo", at: file, contentType: "image/png")
        try await client.send(Request<Void>.post("/uploads", body: .multipart(form)))
        let sent = try #require(transport.requests.first)
        #expect(sent.headerFields[.contentType] == "multipart/form-data; boundary=XyZ")
        var expected = Data("--XyZ\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nOrion \"Nebula\"\r\n".utf8)
        expected.append(
            Data(
                "--XyZ\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"star.png\"\r\nContent-Type: image/png\r\n\r\n"
                    .utf8
            )
        )
        expected.append(Data([0x89, 0x50, 0x4E, 0x47]))
        expected.append(Data("\r\n--XyZ--\r\n".utf8))
        #expect(sent.body == expected)
    }

    @Test func anInterpolatedPathValueStaysInItsSegment() async throws {
        let id = "7/../../admin"
        transport.on(.delete, "/members/7%2F..%2F..%2Fadmin", respond: .status(.noContent))
        try await client.send(Request<Void>.delete("/members/\(id)"))
        #expect(transport.requests.map(\.path) == ["/members/7%2F..%2F..%2Fadmin"])

        // A path held in a string is a whole path, as before.
        let whole = "/members/7/photos"
        transport.on(.get, whole, respond: .status(.noContent))
        try await client.send(Request<Void>.get(whole))
        #expect(transport.requests.last?.path == "/members/7/photos")

        // An interpolated `..` is refused before anything is sent.
        await #expect {
            try await client.send(Request<Void>.delete("/members/\("..")"))
        } throws: { error in
            if case .invalidRequest = error as? HTTPClientError { true } else { false }
        }
        #expect(transport.requests.count == 2)

        // An absolute URL keeps its own slashes; its interpolated values are segments.
        transport.on(.get, "/files/a%2Fb", respond: .status(.noContent))
        try await client.send(Request<Void>.get("https://cdn.test/files/\("a/b")"))
        #expect(transport.requests.last?.head.authority == "cdn.test")
        #expect(transport.requests.last?.path == "/files/a%2Fb")
    }

    @Test func aRequestThatOutlivesItsTimeoutFailsWithTimedOut() async throws {
        // The timeout runs on the configuration's clock: the request is
        // certainly in flight before its time is up.
        let clock = SleepRecordingClock()
        let client = HTTPClient(
            configuration: .init(baseURL: URL(string: "https://api.test")!, clock: clock),
            transport: transport
        )
        let held = transport.hold(.get, "/slow")
        var timers = clock.sleeps.makeAsyncIterator()
        let sending = Task { try await client.send(Request<Void>.get("/slow").timeout(.milliseconds(20))) }
        let call = try await held.nextCall()
        #expect(await timers.next() == .milliseconds(20))
        #expect(!call.isCancelled)

        await clock.advance(past: .milliseconds(20))
        await #expect {
            try await sending.value
        } throws: { error in
            guard case .timedOut(.milliseconds(20)) = error as? HTTPClientError else { return false }
            return true
        }
        // The timeout cancelled the call, and waited for it, before throwing.
        #expect(call.isCancelled)
    }

    @Test func aRequestAnsweredInTimeIsNotTimedOut() async throws {
        let clock = SleepRecordingClock()
        let client = HTTPClient(
            configuration: .init(baseURL: URL(string: "https://api.test")!, timeout: .seconds(5), clock: clock),
            transport: transport
        )
        let held = transport.hold(.get, "/slow")
        var timers = clock.sleeps.makeAsyncIterator()
        let sending = Task { try await client.send(Request<String>.get("/slow")) }
        let call = try await held.nextCall()
        #expect(await timers.next() == .seconds(5))
        #expect(call.resume(returning: .text("in time")))
        #expect(try await sending.value.value == "in time")
    }

    @Test func metricsCountBytesAndOrderTimes() async throws {
        transport.on(.post, "/echo", respond: .text("hello"))
        let response = try await client.send(Request<String>.post("/echo", body: .text("12345678")))
        #expect(response.metrics.bytesSent == 8)
        #expect(response.metrics.bytesReceived == 5)
        #expect(response.metrics.timeToFirstByte <= response.metrics.duration)
        #expect(response.metrics.startDate <= response.metrics.endDate)
    }

    @Test func streamReturnsAtTheHeadAndTheBodyFollows() async throws {
        let (chunks, feed) = AsyncThrowingStream.makeStream(of: Data.self)
        transport.on(.get, "/events", respond: .streaming(chunks))
        let response = try await client.stream(.get("/events") as Request<Void>)
        #expect(response.status == .ok)
        var lines = response.body.lines().makeAsyncIterator()
        feed.yield(Data("one\ntw".utf8))
        #expect(try await lines.next() == "one")
        feed.yield(Data("o\n".utf8))
        #expect(try await lines.next() == "two")
        feed.finish()
        #expect(try await lines.next() == nil)
    }

    @Test func streamReportsAnUnacceptableStatusWithItsBody() async throws {
        transport.on(.get, "/events", respond: .text(#"{"error":"nope"}"#, status: .forbidden))
        await #expect {
            try await client.stream(.get("/events") as Request<Void>)
        } throws: { error in
            (error as? HTTPClientError)?.responseBody == Data(#"{"error":"nope"}"#.utf8)
        }
    }

    @Test func downloadsWriteTheFileAndReportProgress() async throws {
        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("big.bin")
        try Data("old".utf8).write(to: destination)
        let (chunks, feed) = AsyncThrowingStream.makeStream(of: Data.self)
        for index in 0..<10 { feed.yield(Data(repeating: UInt8(index), count: 1000)) }
        feed.finish()
        transport.on(.get, "/downloads/big.bin", respond: .streaming(chunks, length: 10_000))
        let seen = LockedValueRecorder<TransferProgress>()
        let response = try await client.download(.get("/downloads/big.bin") as Request<Void>, to: destination) {
            progress in
            for await update in progress { seen.append(update) }
        }
        #expect(response.value == destination)
        #expect(response.metrics.bytesReceived == 10_000)
        let written = try Data(contentsOf: destination)
        #expect(written.count == 10_000 && written.last == 9)
        #expect(seen.values.last == TransferProgress(completedBytes: 10_000, totalBytes: 10_000))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["big.bin"])
    }

    @Test func aFailedDownloadLeavesNothingBehind() async throws {
        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("broken.bin")
        let (chunks, feed) = AsyncThrowingStream.makeStream(of: Data.self)
        feed.yield(Data(repeating: 1, count: 100))
        feed.finish(throwing: URLError(.networkConnectionLost))
        transport.on(.get, "/broken", respond: .streaming(chunks, length: 1000))
        await #expect(throws: HTTPClientError.self) {
            try await client.download(.get("/broken") as Request<Void>, to: destination)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }

    @Test func aDownloadLargerThanItsLimitIsRefusedBeforeWriting() async throws {
        let directory = try TemporaryDirectory()
        let (chunks, _) = AsyncThrowingStream.makeStream(of: Data.self)
        transport.on(.get, "/huge", respond: .streaming(chunks, length: 1 << 40))
        var request = Request<Void>.get("/huge")
        request.maximumResponseSize = 1 << 20
        await #expect(throws: HTTPClientError.self) {
            try await client.download(request, to: directory.url.appendingPathComponent("huge"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }
}

/// Collects values from a progress loop.
final class LockedValueRecorder<Value: Sendable>: Sendable {
    private let storage = LockedValue<[Value]>([])
    func append(_ value: Value) { storage.withLock { $0.append(value) } }
    var values: [Value] { storage.current }
}
