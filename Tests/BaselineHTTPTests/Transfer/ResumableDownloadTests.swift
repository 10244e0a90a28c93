import BaselineHTTP
import BaselineTesting
import Foundation
import HTTPTypes
import Testing

@Suite("HTTPClient.download: resuming where a failed transfer stopped", .timeLimit(.minutes(1)))
struct ResumableDownloadTests {
    let transport = StubTransport()
    let file = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
    let tag = "\"v1\""
    var client: HTTPClient { HTTPClient(baseURL: URL(string: "https://api.test")!, transport: transport) }

    /// The first `count` bytes of the file, then a dropped connection.
    func brokenAfter(_ count: Int, fields: HTTPFields) -> StubResponse {
        let (chunks, feed) = AsyncThrowingStream.makeStream(of: Data.self)
        feed.yield(file.prefix(count))
        feed.finish(throwing: URLError(.networkConnectionLost))
        return .streaming(chunks, headerFields: fields, length: file.count)
    }

    func whole(fields: HTTPFields) -> StubResponse {
        StubResponse(headerFields: fields, body: file)
    }

    func rest(from offset: Int, fields: HTTPFields) -> StubResponse {
        var fields = fields
        fields[.contentRange] = "bytes \(offset)-\(file.count - 1)/\(file.count)"
        return StubResponse(status: .partialContent, headerFields: fields, body: file.suffix(from: offset))
    }

    /// An answer whose body waits: `release` sends it. Progress before the
    /// release can only be the download's first report.
    func held(
        _ status: HTTPResponse.Status,
        from offset: Int,
        fields: HTTPFields
    ) -> (StubResponse, release: @Sendable () -> Void) {
        let (chunks, feed) = AsyncThrowingStream.makeStream(of: Data.self)
        let rest = file.suffix(from: offset)
        var fields = fields
        if status == .partialContent { fields[.contentRange] = "bytes \(offset)-\(file.count - 1)/\(file.count)" }
        let response = StubResponse.streaming(chunks, status: status, headerFields: fields, length: rest.count)
        return (
            response,
            {
                feed.yield(rest)
                feed.finish()
            }
        )
    }

    /// Downloads, releasing `release` once the first progress report is in.
    func download(
        to destination: URL,
        releasingAfterFirstReport release: (@Sendable () -> Void)? = nil
    ) async throws -> (Response<URL>, [TransferProgress]) {
        let seen = LockedValueRecorder<TransferProgress>()
        let response = try await client.download(Request<Void>.get("/file.bin"), to: destination) { progress in
            for await update in progress {
                seen.append(update)
                if seen.values.count == 1 { release?() }
            }
        }
        return (response, seen.values)
    }

    func failedDownload(to destination: URL) async {
        await #expect(throws: HTTPClientError.self) {
            try await client.download(Request<Void>.get("/file.bin"), to: destination)
        }
    }

    @Test func aBrokenDownloadResumesWithRangeAndIfRange() async throws {
        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("file.bin")
        let (rest, release) = held(.partialContent, from: 4_000, fields: [.eTag: tag])
        transport.on(.get, "/file.bin", script: [brokenAfter(4_000, fields: [.eTag: tag]), rest])

        await failedDownload(to: destination)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == [
                ".file.bin.download", ".file.bin.download.resume",
            ]
        )

        let (response, progress) = try await download(to: destination, releasingAfterFirstReport: release)
        #expect(response.status == .partialContent)
        #expect(response.metrics.bytesReceived == 6_000)
        #expect(try Data(contentsOf: destination) == file)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["file.bin"])
        let resumed = try #require(transport.requests.last)
        #expect(resumed.headerFields[.range] == "bytes=4000-")
        #expect(resumed.headerFields[.ifRange] == tag)
        #expect(resumed.headerFields[.acceptEncoding] == "identity")
        // Progress picks up at the bytes already there, out of the whole file.
        #expect(progress.first == TransferProgress(completedBytes: 4_000, totalBytes: 10_000))
        #expect(progress.last == TransferProgress(completedBytes: 10_000, totalBytes: 10_000))
    }

    @Test func lastModifiedServesAsTheValidatorWhenThereIsNoETag() async throws {
        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("file.bin")
        let fields: HTTPFields = [.lastModified: "Tue, 01 Sep 2026 10:00:00 GMT"]
        transport.on(.get, "/file.bin", script: [brokenAfter(100, fields: fields), rest(from: 100, fields: fields)])
        await failedDownload(to: destination)
        _ = try await download(to: destination)
        #expect(transport.requests.last?.headerFields[.ifRange] == "Tue, 01 Sep 2026 10:00:00 GMT")
        #expect(try Data(contentsOf: destination) == file)
    }

    /// A weak tag cannot go in If-Range, nor a date beside a tag; a coding
    /// asked for makes the file's bytes differ from what ranges count.
    @Test(arguments: ["weak ETag", "Accept-Encoding: gzip"])
    func withoutAUsableValidatorNothingIsKept(_ case: String) async throws {
        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("file.bin")
        let fields: HTTPFields =
            `case` == "weak ETag"
            ? [.eTag: "W/\"weak\"", .lastModified: "Tue, 01 Sep 2026 10:00:00 GMT"] : [.eTag: tag]
        transport.on(.get, "/file.bin", respond: brokenAfter(100, fields: fields))
        var request = Request<Void>.get("/file.bin")
        if `case`.hasPrefix("Accept-Encoding") { request.headerFields[.acceptEncoding] = "gzip" }
        await #expect(throws: HTTPClientError.self) { try await client.download(request, to: destination) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }

    @Test func aResumeOfAFileLargerThanTheLimitDropsTheBytesKept() async throws {
        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("file.bin")
        transport.on(
            .get,
            "/file.bin",
            script: [brokenAfter(4_000, fields: [.eTag: tag]), rest(from: 4_000, fields: [.eTag: tag])]
        )
        await failedDownload(to: destination)
        var limited = Request<Void>.get("/file.bin")
        limited.maximumResponseSize = 5_000
        await #expect {
            try await client.download(limited, to: destination)
        } throws: { error in
            if case .responseTooLarge(limit: 5_000) = error as? HTTPClientError { true } else { false }
        }
        // The 206 said the whole file has 10,000 bytes: what was kept cannot be finished.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }

    @Test func aResumeUnderAnotherTagOrToAnotherEndStartsOver() async throws {
        for second in [
            rest(from: 4_000, fields: [.eTag: "\"v2\""]),
            StubResponse(
                status: .partialContent,
                headerFields: [.eTag: tag, .contentRange: "bytes 4000-4999/10000"],
                body: file.subdata(in: 4_000..<5_000)
            ),
        ] {
            let directory = try TemporaryDirectory()
            let destination = directory.url.appendingPathComponent("file.bin")
            let transport = StubTransport()
            let client = HTTPClient(baseURL: URL(string: "https://api.test")!, transport: transport)
            transport.on(
                .get,
                "/file.bin",
                script: [brokenAfter(4_000, fields: [.eTag: tag]), second, whole(fields: [.eTag: tag])]
            )
            await #expect(throws: HTTPClientError.self) {
                try await client.download(Request<Void>.get("/file.bin"), to: destination)
            }
            _ = try await client.download(Request<Void>.get("/file.bin"), to: destination)
            #expect(transport.requests.map { $0.headerFields[.range] } == [nil, "bytes=4000-", nil])
            #expect(try Data(contentsOf: destination) == file)
        }
    }

    @Test func aBodyShorterThanItsLengthIsAFailureKeptForLater() async throws {
        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("file.bin")
        // The transport ends the body cleanly, 1,000 bytes short of its length.
        let (chunks, feed) = AsyncThrowingStream.makeStream(of: Data.self)
        feed.yield(file.prefix(9_000))
        feed.finish()
        transport.on(
            .get,
            "/file.bin",
            script: [
                .streaming(chunks, headerFields: [.eTag: tag], length: file.count),
                rest(from: 9_000, fields: [.eTag: tag]),
            ]
        )
        await failedDownload(to: destination)
        _ = try await download(to: destination)
        #expect(transport.requests.last?.headerFields[.range] == "bytes=9000-")
        #expect(try Data(contentsOf: destination) == file)
    }

    @Test func aChangedFileComesWholeAndStartsOver() async throws {
        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("file.bin")
        // The server's answer to If-Range with an old tag: 200 and the new file.
        let (changed, release) = held(.ok, from: 0, fields: [.eTag: "\"v2\""])
        transport.on(.get, "/file.bin", script: [brokenAfter(4_000, fields: [.eTag: tag]), changed])
        await failedDownload(to: destination)
        let (response, progress) = try await download(to: destination, releasingAfterFirstReport: release)
        #expect(response.status == .ok)
        #expect(try Data(contentsOf: destination) == file)
        #expect(progress.first == TransferProgress(completedBytes: 0, totalBytes: 10_000))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["file.bin"])
    }

    /// A 416, or a 206 for a range that does not start at the bytes kept.
    @Test(arguments: ["416 Range Not Satisfiable", "206 for another range"])
    func anAnswerThatDoesNotContinueTheBytesKeptStartsOver(_ answer: String) async throws {
        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("file.bin")
        let second: StubResponse =
            answer.hasPrefix("416")
            ? .status(.rangeNotSatisfiable, headerFields: [.contentRange: "bytes */3000"])
            : rest(from: 3_000, fields: [.eTag: tag])
        transport.on(
            .get,
            "/file.bin",
            script: [brokenAfter(4_000, fields: [.eTag: tag]), second, whole(fields: [.eTag: tag])]
        )
        await failedDownload(to: destination)
        _ = try await download(to: destination)
        #expect(transport.requests.map { $0.headerFields[.range] } == [nil, "bytes=4000-", nil])
        #expect(try Data(contentsOf: destination) == file)
    }

    @Test func keptBytesOfAnotherURLOrAnUnreadableResumeDocumentAreIgnored() async throws {
        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("file.bin")
        transport.on(.get, "/file.bin", respond: whole(fields: [.eTag: tag]))
        let kept = directory.url.appendingPathComponent(".file.bin.download")
        let resume = directory.url.appendingPathComponent(".file.bin.download.resume")
        for document in [#"{"url":"https://elsewhere.test/file.bin","validator":"\"v1\""}"#, "not json"] {
            try Data(repeating: 0xEE, count: 4_000).write(to: kept)
            try Data(document.utf8).write(to: resume)
            _ = try await download(to: destination)
            #expect(transport.requests.last?.headerFields[.range] == nil)
            #expect(try Data(contentsOf: destination) == file)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["file.bin"])
        }
    }

    @Test func aCancelledDownloadKeepsItsBytesForLater() async throws {
        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("file.bin")
        let (chunks, feed) = AsyncThrowingStream.makeStream(of: Data.self)
        transport.on(
            .get,
            "/file.bin",
            script: [
                .streaming(chunks, headerFields: [.eTag: tag], length: file.count),
                rest(from: 2_500, fields: [.eTag: tag]),
            ]
        )
        let firstBytes = AsyncStream.makeStream(of: Void.self)
        let downloading = Task {
            try await client.download(Request<Void>.get("/file.bin"), to: destination) { progress in
                for await update in progress where update.completedBytes == 2_500 { firstBytes.continuation.yield() }
            }
        }
        feed.yield(file.prefix(2_500))
        for await _ in firstBytes.stream { break }
        downloading.cancel()
        await #expect(throws: CancellationError.self) { try await downloading.value }
        feed.finish()

        _ = try await download(to: destination)
        #expect(transport.requests.last?.headerFields[.range] == "bytes=2500-")
        #expect(try Data(contentsOf: destination) == file)
    }

    @Test func aRequestWithItsOwnRangeIsNeitherChangedNorKept() async throws {
        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("file.bin")
        transport.on(.get, "/file.bin", respond: brokenAfter(100, fields: [.eTag: tag]))
        var request = Request<Void>.get("/file.bin")
        request.headerFields[.range] = "bytes=0-499"
        await #expect(throws: HTTPClientError.self) { try await client.download(request, to: destination) }
        #expect(transport.requests.last?.headerFields[.range] == "bytes=0-499")
        #expect(transport.requests.last?.headerFields[.ifRange] == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }

    /// The rest of the file as a 206 with `contentRange`, declaring `length`
    /// bytes (the stub's `Content-Length`).
    func rest(contentRange: String, length: Int) -> StubResponse {
        let (chunks, feed) = AsyncThrowingStream.makeStream(of: Data.self)
        feed.yield(file.suffix(from: 4_000))
        feed.finish()
        return .streaming(
            chunks,
            status: .partialContent,
            headerFields: [.eTag: tag, .contentRange: contentRange],
            length: length
        )
    }

    /// A 206 whose `Content-Length` is not its range's length, the largest
    /// with `*` for the total: before, the client added that length to the
    /// offset unchecked (a trap), or trusted the range over the length.
    @Test(arguments: [
        ("bytes 4000-9999/10000", 7),
        ("bytes 4000-9999/*", Int.max),
        ("bytes 4000-9999/*", 6_001),
    ])
    func aPartialAnswerWhoseLengthsDisagreeFailsAndKeepsTheBytes(_ contentRange: String, _ length: Int) async throws {
        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("file.bin")
        transport.on(
            .get,
            "/file.bin",
            script: [
                brokenAfter(4_000, fields: [.eTag: tag]),
                rest(contentRange: contentRange, length: length),
                rest(from: 4_000, fields: [.eTag: tag]),
            ]
        )
        await failedDownload(to: destination)
        await #expect {
            try await client.download(Request<Void>.get("/file.bin"), to: destination)
        } throws: { error in
            guard case let .transport(underlying) = error as? HTTPClientError,
                case .malformedResponse = (underlying as? TransportFailure)?.reason
            else { return false }
            return true
        }
        // Nothing of the bad answer was written: the next attempt resumes at the same byte.
        _ = try await download(to: destination)
        #expect(transport.requests.map { $0.headerFields[.range] } == [nil, "bytes=4000-", "bytes=4000-"])
        #expect(try Data(contentsOf: destination) == file)
    }

    @Test func aPartialAnswerWithAnUnknownTotalEndsWhereItsRangeDoes() async throws {
        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("file.bin")
        transport.on(
            .get,
            "/file.bin",
            script: [brokenAfter(4_000, fields: [.eTag: tag]), rest(contentRange: "bytes 4000-9999/*", length: 6_000)]
        )
        await failedDownload(to: destination)
        let (_, progress) = try await download(to: destination)
        #expect(progress.last == TransferProgress(completedBytes: 10_000, totalBytes: 10_000))
        #expect(try Data(contentsOf: destination) == file)
    }
}
