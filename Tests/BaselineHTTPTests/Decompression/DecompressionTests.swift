import BaselineHTTP
import BaselineTesting
import Foundation
import HTTPTypes
import Testing

@Suite("HTTPClient: gzip and deflate responses, inflated as they arrive", .timeLimit(.minutes(1)))
struct DecompressionTests {
    let transport = StubTransport()
    let text = Data((1...4000).map { "Line \($0) of a body that compresses well.\n" }.joined().utf8)

    func client(maximumResponseSize: Int = 16 * 1024 * 1024, decompresses: Bool = true) -> HTTPClient {
        HTTPClient(
            configuration: .init(
                baseURL: URL(string: "https://api.test")!,
                maximumResponseSize: maximumResponseSize,
                decompressesResponses: decompresses
            ),
            transport: transport
        )
    }

    func respond(with body: Data, coding: String, length: Bool = true) {
        var fields: HTTPFields = [.contentEncoding: coding, .contentType: "text/plain"]
        if length { fields[.contentLength] = String(body.count) }
        transport.on(.get, "/text", respond: StubResponse(headerFields: fields, body: body))
    }

    /// The body fed `size` bytes at a time, so the inflater sees every way
    /// a header or trailer can be split.
    func respond(with body: Data, coding: String, inChunksOf size: Int) {
        let (chunks, feed) = AsyncThrowingStream.makeStream(of: Data.self)
        var offset = 0
        while offset < body.count {
            feed.yield(body.subdata(in: offset..<min(offset + size, body.count)))
            offset += size
        }
        feed.finish()
        transport.on(.get, "/text", respond: .streaming(chunks, headerFields: [.contentEncoding: coding]))
    }

    @Test func theClientAsksForGzipAndDeflate() async throws {
        transport.on(.get, "/text", respond: .text("plain"))
        _ = try await client().send(Request<String>.get("/text"))
        #expect(transport.requests.first?.headerFields[.acceptEncoding] == "gzip, deflate")
    }

    @Test func aRequestsOwnAcceptEncodingWins() async throws {
        transport.on(.get, "/text", respond: .text("plain"))
        var request = Request<String>.get("/text")
        request.headerFields[.acceptEncoding] = "identity"
        _ = try await client().send(request)
        #expect(transport.requests.first?.headerFields[.acceptEncoding] == "identity")
    }

    @Test(arguments: [("gzip", Compressed.Format.gzip), ("x-gzip", .gzip), ("deflate", .zlib), ("deflate", .raw)])
    func aCompressedBodyArrivesInflatedWithoutItsEncodingFields(coding: String, format: Compressed.Format) async throws
    {
        let compressed = try Compressed.bytes(text, as: format)
        respond(with: compressed, coding: coding)
        let response = try await client().send(Request<Data>.get("/text"))
        #expect(response.body == text)
        #expect(response.head.headerFields[.contentEncoding] == nil)
        #expect(response.head.headerFields[.contentLength] == nil)
        #expect(response.head.headerFields[.contentType] == "text/plain")
        #expect(response.metrics.bytesReceived == text.count)
    }

    @Test(arguments: [1, 2, 3, 7, 1000])
    func chunksSplitAnywhereInflateTheSame(size: Int) async throws {
        for (coding, format) in [("gzip", Compressed.Format.gzip), ("deflate", .zlib), ("deflate", .raw)] {
            respond(with: try Compressed.bytes(text, as: format), coding: coding, inChunksOf: size)
            #expect(try await client().send(Request<Data>.get("/text")).body == text, "\(coding) \(format)")
        }
    }

    @Test func aTruncatedGzipBodyIsAnErrorNotAShortBody() async throws {
        let compressed = try Compressed.bytes(text, as: .gzip)
        for cut in [1, 4, 8, compressed.count / 2, compressed.count - 11] {
            respond(with: compressed.dropLast(cut), coding: "gzip")
            await #expect {
                try await client().send(Request<Data>.get("/text"))
            } throws: { error in
                guard case let .decompressionFailed(coding, reason) = error as? HTTPClientError else { return false }
                return coding == "gzip" && reason.contains("ended before")
            }
        }
    }

    @Test func corruptDataIsATypedError() async throws {
        var compressed = try Compressed.bytes(text, as: .gzip)
        compressed[20] ^= 0xFF
        compressed[21] ^= 0xFF
        respond(with: compressed, coding: "gzip")
        let error = await #expect(throws: HTTPClientError.self) {
            try await client().send(Request<Data>.get("/text"))
        }
        guard case let .decompressionFailed(coding, _) = error else {
            Issue.record("Expected decompressionFailed, got \(String(describing: error))")
            return
        }
        #expect(coding == "gzip")
        #expect(error?.description.hasPrefix("Could not decode the gzip response body") == true)
    }

    @Test func theSizeLimitCountsInflatedBytes() async throws {
        // 100 MiB of zeros is about 100 KiB gzipped: far under the limit as sent.
        let bomb = try Compressed.bytes(Data(count: 100 * 1024 * 1024), as: .gzip)
        #expect(bomb.count < 200 * 1024)
        respond(with: bomb, coding: "gzip")
        await #expect {
            try await client(maximumResponseSize: 1024 * 1024).send(Request<Data>.get("/text"))
        } throws: { error in
            if case .responseTooLarge(limit: 1024 * 1024) = error as? HTTPClientError { true } else { false }
        }
    }

    @Test func aStreamedBodyInflatesInBoundedChunks() async throws {
        let zeros = Data(count: 8 * 1024 * 1024)
        respond(with: try Compressed.bytes(zeros, as: .gzip), coding: "gzip")
        let response = try await client().stream(Request<Void>.get("/text"))
        var total = 0
        var largest = 0
        for try await chunk in response.body {
            total += chunk.count
            largest = max(largest, chunk.count)
        }
        #expect(total == zeros.count)
        // One compressed chunk of 8 KiB held at most, and 64 KiB handed out at a time.
        #expect(largest <= 64 * 1024)
    }

    /// Output zlib still holds after taking the last input byte (a match
    /// cut at the end of a full 64 KiB chunk) comes out before the body ends.
    /// Zeros compress about 1000:1, so chunks of some 64 bytes each inflate
    /// to about one full 64 KiB output: chunk ends and output ends fall
    /// everywhere relative to each other. (zlib may then hold output after
    /// taking its last input byte; the reader asks for it before waiting for
    /// more input. This test did not catch the reader without that, though.)
    @Test(arguments: Array(56...72))
    func chunksThatEachFillAnOutputInflateWhole(chunkSize: Int) async throws {
        let zeros = Data(count: 1_000_000)
        for (coding, format) in [("deflate", Compressed.Format.raw), ("deflate", .zlib), ("gzip", .gzip)] {
            respond(with: try Compressed.bytes(zeros, as: format), coding: coding, inChunksOf: chunkSize)
            let body = try await client().send(Request<Data>.get("/text")).body
            #expect(body == zeros, "\(format)")
        }
    }

    @Test func gzipMembersOneAfterAnotherMakeOneBody() async throws {
        let first = Data("first member, ".utf8)
        let second = Data("second member".utf8)
        respond(with: try Compressed.bytes(first, as: .gzip) + Compressed.bytes(second, as: .gzip), coding: "gzip")
        #expect(try await client().send(Request<String>.get("/text")).value == "first member, second member")
    }

    @Test func bytesAfterTheCompressedDataAreIgnored() async throws {
        let compressed = try Compressed.bytes(text, as: .gzip)
        respond(with: compressed + Data([0, 0, 0, 0]), coding: "gzip")
        #expect(try await client().send(Request<Data>.get("/text")).body == text)
        respond(with: try Compressed.bytes(text, as: .zlib) + Data("junk".utf8), coding: "deflate")
        #expect(try await client().send(Request<Data>.get("/text")).body == text)
    }

    /// Trailing bytes inflate to nothing, so the size limit never sees
    /// them: an endless run of them after a small compressed body must end
    /// the body, not keep the transfer going forever.
    @Test(arguments: [("gzip", Compressed.Format.gzip), ("deflate", .zlib), ("deflate", .raw)])
    func endlessBytesAfterTheCompressedDataEndTheBody(coding: String, format: Compressed.Format) async throws {
        let endless = EndlessBody(
            opening: try Compressed.bytes(Data("short".utf8), as: format),
            repeating: Data(repeating: 0x2A, count: 1024),
            safetyStop: 1000
        )
        transport.on(.get, "/text", respond: .streaming(endless.chunks, headerFields: [.contentEncoding: coding]))
        let response = try await client(maximumResponseSize: 64 * 1024).send(Request<String>.get("/text"))
        #expect(response.value == "short")
        // The first chunk of trailing bytes ends it.
        #expect(endless.chunksRead == 2)
    }

    /// Empty gzip members (20 bytes each, inflating to nothing) could also
    /// run forever under the size limit: past 1 MiB in a row they fail.
    @Test func endlessCompressedBytesThatInflateToNothingFail() async throws {
        let empty = try Compressed.bytes(Data(), as: .gzip)
        let endless = EndlessBody(
            opening: try Compressed.bytes(Data("short".utf8), as: .gzip),
            repeating: Data((0..<50).map { _ in empty }.joined()),
            safetyStop: 2000
        )
        transport.on(.get, "/text", respond: .streaming(endless.chunks, headerFields: [.contentEncoding: "gzip"]))
        await #expect {
            try await client(maximumResponseSize: 64 * 1024).send(Request<Data>.get("/text"))
        } throws: { error in
            guard case let .decompressionFailed("gzip", reason) = error as? HTTPClientError else { return false }
            return reason.contains("inflated to nothing")
        }
        // 1 MiB of 20-byte members, 1,000 bytes a chunk: some 1,050 chunks, not the safety stop's 2,000.
        #expect(endless.chunksRead < 1100)
    }

    @Test func anEmptyCompressedBodyStaysEmpty() async throws {
        // The answer to a HEAD, or a 204: the field names a coding, no bytes follow.
        respond(with: Data(), coding: "gzip", length: false)
        let response = try await client().send(Request<Data>.get("/text"))
        #expect(response.body.isEmpty)
    }

    @Test func codingsTheClientDoesNotKnowPassThrough() async throws {
        respond(with: Data([1, 2, 3]), coding: "br")
        let response = try await client().send(Request<Data>.get("/text"))
        #expect(response.body == Data([1, 2, 3]))
        #expect(response.head.headerFields[.contentEncoding] == "br")
    }

    @Test func turnedOffTheClientNeitherAsksNorInflates() async throws {
        let compressed = try Compressed.bytes(text, as: .gzip)
        respond(with: compressed, coding: "gzip")
        let response = try await client(decompresses: false).send(Request<Data>.get("/text"))
        #expect(transport.requests.first?.headerFields[.acceptEncoding] == nil)
        #expect(response.body == compressed)
        #expect(response.head.headerFields[.contentEncoding] == "gzip")
    }
}
