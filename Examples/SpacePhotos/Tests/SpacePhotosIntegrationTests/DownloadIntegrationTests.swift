import BaselineHTTP
import Foundation
import HTTPTypes
import SpacePhotosServer
import Testing

@Suite("GET /downloads/{name}: large generated files", .timeLimit(.minutes(2)))
struct DownloadIntegrationTests {
    @Test func aMebibyteArrivesWholeAndMatchesTheGenerator() async throws {
        try await withServer { server in
            let response = try await server.client.send(Request<Data>.get("/downloads/1MiB.bin"))
            #expect(response.status == .ok)
            #expect(response.headerFields[.contentType] == "application/octet-stream")
            #expect(response.headerFields[.contentLength] == "1048576")
            #expect(response.headerFields[.eTag] == "\"download-v1-1048576\"")
            #expect(response.body.count == 1_048_576)
            let expected = DownloadPattern.bytes(in: 0..<1_048_576)
            #expect(PNGInspector.crc32([UInt8](response.body)) == PNGInspector.crc32(expected))
            #expect(response.body == Data(expected))
        }
    }

    @Test func theContentDependsOnlyOnTheOffset() async throws {
        try await withServer { server in
            let small = try await server.client.send(
                Request<Data>.get("/downloads/sample.bin", query: [URLQueryItem(name: "bytes", value: "100000")])
            )
            let kib = try await server.client.send(Request<Data>.get("/downloads/256KiB.bin"))
            #expect(small.body.count == 100_000)
            #expect(kib.body.count == 256 * 1024)
            #expect(small.body == kib.body.prefix(100_000))
            // Past the pattern's period it repeats, without restarting at a chunk boundary.
            let period = DownloadPattern.period
            #expect(DownloadPattern.bytes(in: period..<(period + 1_000)) == DownloadPattern.bytes(in: 0..<1_000))
            #expect(DownloadPattern.bytes(in: 65_536..<65_600) != DownloadPattern.bytes(in: 0..<64))
            let empty = try await server.client.send(
                Request<Data>.get("/downloads/empty.bin", query: [URLQueryItem(name: "bytes", value: "0")])
            )
            #expect(empty.body.isEmpty)
        }
    }

    @Test func aMatchingETagGets304() async throws {
        try await withServer { server in
            let response = try await server.client.answer(
                .get("/downloads/1MiB.bin", headerFields: [.ifNoneMatch: "\"download-v1-1048576\""])
            )
            #expect(response.status == .notModified)
            #expect(response.body.isEmpty)
        }
    }

    @Test func oneByteRangeIsServedAsPartialContent() async throws {
        try await withServer { server in
            let size = 1_048_576
            func answer(_ fields: HTTPFields) async throws -> Response<Data> {
                try await server.client.answer(.get("/downloads/1MiB.bin", headerFields: fields))
            }
            let middle = try await answer([.range: "bytes=10-19"])
            #expect(middle.status == .partialContent)
            #expect(middle.headerFields[.contentRange] == "bytes 10-19/\(size)")
            #expect(middle.body == Data(DownloadPattern.bytes(in: 10..<20)))

            let tail = try await answer([.range: "bytes=-5"])
            #expect(tail.headerFields[.contentRange] == "bytes \(size - 5)-\(size - 1)/\(size)")
            #expect(tail.body == Data(DownloadPattern.bytes(in: (size - 5)..<size)))

            let rest = try await answer([.range: "bytes=1048000-", .ifRange: "\"download-v1-1048576\""])
            #expect(rest.status == .partialContent)
            #expect(rest.body.count == size - 1_048_000)

            let beyond = try await answer([.range: "bytes=2000000-"])
            #expect(beyond.status == .rangeNotSatisfiable)
            #expect(beyond.headerFields[.contentRange] == "bytes */\(size)")

            // Another tag in If-Range, several ranges, another unit: the whole file.
            for fields: HTTPFields in [
                [.range: "bytes=10-19", .ifRange: "\"download-v0-1048576\""],
                [.range: "bytes=0-1,5-6"],
                [.range: "items=0-1"],
            ] {
                let whole = try await answer(fields)
                #expect(whole.status == .ok)
                #expect(whole.body.count == size)
            }
        }
    }

    /// A last byte past `Int.max` once ended the server's process; RFC 9110
    /// clamps a last-pos past the end to the last byte.
    @Test func hugeRangeNumbersAreClampedAndTheServerCarriesOn() async throws {
        try await withServer { server in
            let size = 1_048_576
            func answer(_ range: String) async throws -> Response<Data> {
                try await server.client.answer(.get("/downloads/1MiB.bin", headerFields: [.range: range]))
            }
            let all = try await answer("bytes=0-9223372036854775807")
            #expect(all.status == .partialContent)
            #expect(all.headerFields[.contentRange] == "bytes 0-\(size - 1)/\(size)")
            #expect(all.body == Data(DownloadPattern.bytes(in: 0..<size)))

            let tail = try await answer("bytes=1048570-99999999999999999999999999")
            #expect(tail.status == .partialContent)
            #expect(tail.headerFields[.contentRange] == "bytes 1048570-\(size - 1)/\(size)")
            #expect(tail.body == Data(DownloadPattern.bytes(in: 1_048_570..<size)))

            let suffix = try await answer("bytes=-9223372036854775808")
            #expect(suffix.status == .partialContent)
            #expect(suffix.body.count == size)

            // Overlapping ranges are joined into one part (RFC 9110's own example).
            let joined = try await answer("bytes=500-700,601-999")
            #expect(joined.status == .partialContent)
            #expect(joined.headerFields[.contentRange] == "bytes 500-999/\(size)")
            #expect(joined.body == Data(DownloadPattern.bytes(in: 500..<1_000)))

            for unsatisfiable in ["bytes=9223372036854775807-", "bytes=99999999999999999999-", "bytes=-0"] {
                let answer = try await answer(unsatisfiable)
                #expect(answer.status == .rangeNotSatisfiable, "\(unsatisfiable)")
                #expect(answer.headerFields[.contentRange] == "bytes */\(size)")
            }
            let many = (0..<500).map { "\($0 * 10)-\($0 * 10 + 1)" }.joined(separator: ",")
            for ignored in ["bytes=" + many, "bytes=+0-5", "bytes=5-4"] {
                let whole = try await answer(ignored)
                #expect(whole.status == .ok)
                #expect(whole.body.count == size)
            }
            _ = try await server.client.send(Request<String>.get("/health"))
        }
    }

    @Test(arguments: ["photo.png", "1MB.bin", "5GiB.bin", "MiB.bin", "12345678901GiB.bin", "1MiB.bin.bak"])
    func anUnknownNameIs404(name: String) async throws {
        try await withServer { server in
            let response = try await server.client.answer(.get("/downloads/\(name)"))
            #expect(response.status == .notFound)
            #expect(response.serverError?.code == "not_found")
        }
    }

    @Test(arguments: ["-1", "4294967297", "lots"])
    func anOutOfRangeSizeIsABadRequest(bytes: String) async throws {
        try await withServer { server in
            let response = try await server.client.answer(
                .get("/downloads/x.bin", query: [URLQueryItem(name: "bytes", value: bytes)])
            )
            #expect(response.status == .badRequest)
            #expect(response.serverError?.code == "bad_request")
        }
    }
}
