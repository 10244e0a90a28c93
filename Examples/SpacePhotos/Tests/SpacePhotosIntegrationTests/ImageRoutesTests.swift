import BaselineConcurrency
import BaselineHTTP
import BaselineImages
import Foundation
import HTTPTypes
import SpacePhotosServer
import Testing

// Three minutes: the server draws pictures, seconds each in a debug build
// and ten times that under ThreadSanitizer (CI's second run).
/// The generated space pictures: the catalogue, the files and their caching
/// headers, the broken test images and one render per image.
@Suite("GET /images: generated JPEG and PNG pictures", .timeLimit(.minutes(3)))
struct ImageRoutesTests {
    typealias Listing = PhotoRoutesTests.Listing

    static func listing(_ server: RunningServer) async throws -> [Listing] {
        try await server.client.send(Request<Data>.get("/images")).decoded()
    }

    static func image(
        _ name: String,
        on server: RunningServer,
        query: [URLQueryItem] = [],
        headers: HTTPFields = [:]
    ) async throws -> Response<Data> {
        try await server.client.answer(.get("/images/\(name)", query: query, headerFields: headers))
    }

    /// The width and height the file states: SOF0 for JPEG, IHDR for PNG.
    static func dimensions(of file: [UInt8], mediaType: String) throws -> (width: Int, height: Int)? {
        if mediaType == "image/jpeg" {
            return try JPEGInspector(file).frame.map { ($0.width, $0.height) }
        }
        return try PNGInspector(file).header.map { ($0.width, $0.height) }
    }

    @Test func theCatalogueHas36PicturesInBothFormats() async throws {
        try await withServer { server in
            let images = try await Self.listing(server)
            #expect(images.count == 36)
            #expect(Set(images.map(\.name)).count == 36)
            #expect(images.filter { $0.mediaType == "image/jpeg" }.count == 24)
            #expect(images.filter { $0.mediaType == "image/png" }.count == 12)
            #expect(images.filter { $0.mediaType == "image/jpeg" && $0.width == 2400 && $0.height == 1600 }.count == 4)
            // Three large PNGs, compressed.
            let largePNGs = images.filter { $0.mediaType == "image/png" && $0.width * $0.height > 800 * 600 }
            #expect(largePNGs.map(\.name).sorted() == ["cluster-20.png", "galaxy-15.png", "stars-17.png"])
            #expect(largePNGs.map { "\($0.width)×\($0.height)" }.sorted() == ["2000×1500", "2400×1600", "2400×1600"])
            #expect(images.allSatisfy { $0.width >= 320 && $0.height >= 240 })
            #expect(images.allSatisfy { $0.name.hasSuffix($0.mediaType == "image/png" ? ".png" : ".jpg") })
            #expect(images.allSatisfy { !["corrupt.png", "garbage.jpg", "huge.png"].contains($0.name) })
        }
    }

    @Test func aJPEGComesWithTypeLengthTagAndCaching() async throws {
        try await withServer { server in
            let response = try await Self.image("stars-01.jpg", on: server)
            #expect(response.status == .ok)
            #expect(response.headerFields[.contentType] == "image/jpeg")
            #expect(response.headerFields[.contentLength] == String(response.body.count))
            #expect(response.headerFields[.cacheControl] == "public, max-age=86400")
            let tag = try #require(response.headerFields[.eTag])
            #expect(tag.hasPrefix("\"stars-01-") && tag.hasSuffix("\""))  // strong: no W/

            let file = [UInt8](response.body)
            #expect(file.starts(with: [0xFF, 0xD8]))
            #expect(file.suffix(2) == [0xFF, 0xD9])
            let jpeg = try JPEGInspector(file)
            // SOI, APP0 (JFIF), quantisation and Huffman tables around a
            // baseline frame header, then the scan and EOI.
            #expect(Array(jpeg.markers.prefix(2)) == [0xD8, 0xE0] && jpeg.markers.suffix(2) == [0xDA, 0xD9])
            #expect(Set(jpeg.markers.dropFirst(2).dropLast(2)) == [0xDB, 0xC0, 0xC4])
            #expect(jpeg.isByteStuffed)
            let frame = try #require(jpeg.frame)
            #expect(frame.width == 320 && frame.height == 240)

            // The same bytes and tag again.
            let again = try await Self.image("stars-01.jpg", on: server)
            #expect(again.body == response.body)
            #expect(again.headerFields[.eTag] == tag)
        }
    }

    @Test func aPNGIsWellFormedCompressedAndDecodes() async throws {
        try await withServer { server in
            let response = try await Self.image("nebula-02.png", on: server)
            #expect(response.status == .ok)
            #expect(response.headerFields[.contentType] == "image/png")
            #expect(response.headerFields[.contentLength] == String(response.body.count))
            #expect(response.headerFields[.cacheControl] == "public, max-age=86400")
            let png = try PNGInspector([UInt8](response.body))
            #expect(png.chunks.allSatisfy { $0.storedCRC == $0.computedCRC })
            let header = try #require(png.header)
            #expect(header.width == 320 && header.height == 240 && header.colorType == 2)
            // Deflate-compressed: a zlib stream (CM 8, check bits right) well
            // under the 230 KB of its raw pixels.
            let stream = try #require(png.chunks.first { $0.type == "IDAT" }).data
            #expect(stream.count > 2 && stream[0] & 0x0F == 8 && (Int(stream[0]) << 8 | Int(stream[1])) % 31 == 0)
            let rawSize = 240 * (1 + 320 * 3)
            #expect(response.body.count < rawSize / 2)
            let image = try PNGDecoder().decode(response.body, limits: ImageDecodingLimits())
            #expect(image.width == 320 && image.height == 240)
            // A picture, not a blank.
            #expect(Set(image.pixels).count > 64)
        }
    }

    @Test func aMatchingIfNoneMatchGets304WithoutABody() async throws {
        try await withServer { server in
            let tag = try #require(try await Self.image("galaxy-07.png", on: server).headerFields[.eTag])
            let notModified = try await Self.image("galaxy-07.png", on: server, headers: [.ifNoneMatch: tag])
            #expect(notModified.status == .notModified)
            #expect(notModified.body.isEmpty)
            #expect(notModified.headerFields[.eTag] == tag)
            #expect(notModified.headerFields[.cacheControl] == "public, max-age=86400")
            // Another image's tag does not match.
            let otherTag = try #require(try await Self.image("cluster-04.jpg", on: server).headerFields[.eTag])
            #expect(otherTag != tag)
            let other = try await Self.image("galaxy-07.png", on: server, headers: [.ifNoneMatch: otherTag])
            #expect(other.status == .ok)
        }
    }

    @Test(arguments: ["nope.jpg", "stars-99.jpg", "stars-01.png", "STARS-01.JPG", "corrupt.jpg"])
    func anUnknownImageIsNotFound(name: String) async throws {
        try await withServer { server in
            let response = try await Self.image(name, on: server)
            #expect(response.status == .notFound)
            #expect(response.serverError?.code == "not_found")
        }
    }

    @Test func theCorruptPNGIsARealPNGCutInHalf() async throws {
        try await withServer { server in
            let response = try await Self.image("corrupt.png", on: server)
            #expect(response.status == .ok)
            #expect(response.headerFields[.contentType] == "image/png")
            #expect(response.headerFields[.eTag] != nil)
            let file = [UInt8](response.body)
            #expect(file.starts(with: PNGInspector.signature))
            // A compressed 320×240 star field takes about 22 KB; half of it is left.
            #expect((5_000..<40_000).contains(file.count))
            #expect(throws: PNGInspector.Failure.truncated) { try PNGInspector(file) }
        }
    }

    @Test func theGarbageJPEGIsRandomBytes() async throws {
        try await withServer { server in
            let response = try await Self.image("garbage.jpg", on: server)
            #expect(response.status == .ok)
            #expect(response.headerFields[.contentType] == "image/jpeg")
            let file = [UInt8](response.body)
            #expect(file.count == 4_096)
            #expect(!file.starts(with: [0xFF, 0xD8]))
            #expect(Set(file).count > 200)
            #expect(try await Self.image("garbage.jpg", on: server).body == response.body)
        }
    }

    @Test func theHugePNGDeclares30000PixelsASideInAFewBytes() async throws {
        try await withServer { server in
            let response = try await Self.image("huge.png", on: server)
            #expect(response.status == .ok)
            #expect(response.headerFields[.contentType] == "image/png")
            #expect(response.body.count < 4_096)
            let png = try PNGInspector([UInt8](response.body))
            #expect(png.chunks.map(\.type) == ["IHDR", "IDAT", "IEND"])
            #expect(png.chunks.allSatisfy { $0.storedCRC == $0.computedCRC })
            let header = try #require(png.header)
            #expect(header.width == 30_000 && header.height == 30_000)
        }
    }

    @Test func theKnobsWorkOnImagesToo() async throws {
        try await withServer { server in
            let failed = try await Self.image(
                "stars-01.jpg",
                on: server,
                query: [URLQueryItem(name: "fail", value: "503")]
            )
            #expect(failed.status == .serviceUnavailable)
            #expect(failed.serverError?.code == "internal")
            let missing = try await Self.image(
                "stars-01.jpg",
                on: server,
                query: [URLQueryItem(name: "fail", value: "404")]
            )
            #expect(missing.status == .notFound)
            let delayed = try await Self.image(
                "garbage.jpg",
                on: server,
                query: [URLQueryItem(name: "delay", value: "10")]
            )
            #expect(delayed.status == .ok)
            let bad = try await Self.image("stars-01.jpg", on: server, query: [URLQueryItem(name: "fail", value: "99")])
            #expect(bad.status == .badRequest)
        }
    }

    @Test func concurrentFirstRequestsShareOneRender() async throws {
        let renders = LockedValue<[String: Int]>([:])
        try await withServer({ configuration in
            configuration.onImageRender = { name in renders.withLock { $0[name, default: 0] += 1 } }
        }) { server in
            let bodies = try await withThrowingTaskGroup(of: Response<Data>.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await Self.image("cluster-04.jpg", on: server) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(bodies.count == 8)
            #expect(bodies.allSatisfy { $0.status == .ok && $0.body == bodies[0].body })
            #expect(Set(bodies.compactMap { $0.headerFields[.eTag] }).count == 1)
            _ = try await Self.image("cluster-04.jpg", on: server)
            #expect(renders.current == ["cluster-04.jpg": 1])
        }
    }

    @Test func theListingMatchesTheServedFiles() async throws {
        try await withServer { server in
            // The small ones: debug builds draw the large ones slowly.
            let small = try await Self.listing(server).filter { $0.width * $0.height <= 480 * 320 }
            #expect(small.count >= 10)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for image in small {
                    group.addTask {
                        let response = try await Self.image(image.name, on: server)
                        #expect(response.status == .ok)
                        #expect(response.headerFields[.contentType] == image.mediaType)
                        let size = try Self.dimensions(of: [UInt8](response.body), mediaType: image.mediaType)
                        #expect(size?.width == image.width && size?.height == image.height, "\(image.name)")
                    }
                }
                try await group.waitForAll()
            }
        }
    }
}
