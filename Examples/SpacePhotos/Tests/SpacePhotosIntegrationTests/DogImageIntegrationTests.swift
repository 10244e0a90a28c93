import BaselineHTTP
import BaselineImages
import Foundation
import HTTPTypes
import Testing

@Suite("GET /dogs/random: a PNG drawn by the server", .timeLimit(.minutes(2)))
struct DogImageIntegrationTests {
    @Test func theInspectorsChecksumMatchesItsSpec() {
        // The check value of the spec's own test vector, so the checks below
        // rest on known-good arithmetic.
        #expect(PNGInspector.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test func aRandomDogIsAWellFormedPNG() async throws {
        try await withServer { server in
            let response = try await server.client.send(Request<Data>.get("/dogs/random"))
            #expect(response.status == .ok)
            #expect(response.headerFields[.contentType] == "image/png")
            #expect(response.headerFields[.cacheControl] == "public, max-age=60")
            #expect(response.headerFields[.eTag]?.hasPrefix("\"dog") == true)

            let file = [UInt8](response.body)
            #expect(file.starts(with: PNGInspector.signature))
            let png = try PNGInspector(file)
            // libpng writes the image data in IDAT chunks of 8 KiB.
            #expect(png.chunks.first?.type == "IHDR" && png.chunks.last?.type == "IEND")
            #expect(png.chunks.dropFirst().dropLast().allSatisfy { $0.type == "IDAT" })
            for chunk in png.chunks {
                #expect(chunk.storedCRC == chunk.computedCRC, "CRC of \(chunk.type)")
            }
            let header = try #require(png.header)
            #expect(header.width == 256)
            #expect(header.height == 256)
            #expect(header.bitDepth == 8)
            #expect(header.colorType == 2)  // RGB

            // Compressed (well under its 197 KB of pixels), and libpng reads
            // it back to a picture, not a blank: many different colours.
            #expect(file.count < 256 * 256 * 3 / 2)
            let pixels = try PNGDecoder().decode(response.body, limits: ImageDecodingLimits()).pixels
            let colours = Set(
                stride(from: 0, to: pixels.count, by: 4).map { Int(pixels[$0]) << 8 | Int(pixels[$0 + 1]) }
            )
            #expect(colours.count > 100)
        }
    }

    @Test func everyVariantIsStableAndTaggedByItsContent() async throws {
        try await withServer { server in
            var tags: Set<String> = []
            for variant in 0..<4 {
                let request = Request<Data>.get(
                    "/dogs/random",
                    query: [URLQueryItem(name: "variant", value: "\(variant)")]
                )
                let first = try await server.client.send(request)
                let second = try await server.client.send(request)
                #expect(first.body == second.body)
                let tag = try #require(first.headerFields[.eTag])
                #expect(second.headerFields[.eTag] == tag)
                tags.insert(tag)
                _ = try PNGDecoder().decode(first.body, limits: ImageDecodingLimits())
            }
            #expect(tags.count == 4)
            // Without a variant, the pick is one of them.
            let random = try await server.client.send(Request<Data>.get("/dogs/random"))
            #expect(tags.contains(random.headerFields[.eTag] ?? ""))
        }
    }

    @Test func aMatchingIfNoneMatchGets304WithoutABody() async throws {
        try await withServer { server in
            let query = [URLQueryItem(name: "variant", value: "1")]
            let tag = try #require(
                try await server.client.send(Request<Data>.get("/dogs/random", query: query)).headerFields[.eTag]
            )

            let notModified = try await server.client.answer(
                .get("/dogs/random", query: query, headerFields: [.ifNoneMatch: tag])
            )
            #expect(notModified.status == .notModified)
            #expect(notModified.body.isEmpty)
            #expect(notModified.headerFields[.eTag] == tag)

            // Weak tags and lists match too; another tag does not.
            let listed = try await server.client.answer(
                .get("/dogs/random", query: query, headerFields: [.ifNoneMatch: "\"other\", W/\(tag)"])
            )
            #expect(listed.status == .notModified)
            let other = try await server.client.answer(
                .get("/dogs/random", query: query, headerFields: [.ifNoneMatch: "\"other\""])
            )
            #expect(other.status == .ok)
            // A malformed header is ignored: the full answer.
            let malformed = try await server.client.answer(
                .get("/dogs/random", query: query, headerFields: [.ifNoneMatch: "no-quotes"])
            )
            #expect(malformed.status == .ok)
        }
    }

    @Test(arguments: ["4", "-1", "one", ""])
    func anUnknownVariantIsABadRequest(variant: String) async throws {
        try await withServer { server in
            let response = try await server.client.answer(
                .get("/dogs/random", query: [URLQueryItem(name: "variant", value: variant)])
            )
            #expect(response.status == .badRequest)
            #expect(response.serverError?.code == "bad_request")
        }
    }
}
