import BaselineHTTP
import Crypto
import Foundation
import HTTPTypes
import SpacePhotosServer
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("POST /uploads: streamed, hashed, never kept", .timeLimit(.minutes(2)))
struct UploadIntegrationTests {
    struct Receipt: Decodable, Equatable {
        struct Part: Decodable, Equatable {
            var name: String?
            var filename: String?
            var bytes: Int
        }
        var id: String
        var bytes: Int
        var sha256: String
        var parts: [Part]?
    }

    static func hex(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    @Test func anUploadIsCreatedWithItsSizeAndDigest() async throws {
        try await withServer { server in
            let body = Data(DownloadPattern.sample(count: 300_000))
            let response = try await server.client.answer(.post("/uploads", body: .data(body)))
            #expect(response.status == .created)
            let receipt = try response.decoded(as: Receipt.self)
            #expect(receipt.bytes == body.count)
            #expect(receipt.sha256 == Self.hex(body))
            #expect(receipt.parts == nil)
            #expect(response.headerFields[.location] == "/uploads/\(receipt.id)")

            // The Location reads the receipt back.
            let stored = try await server.client.send(Request<Receipt>.get("/uploads/\(receipt.id)")).value
            #expect(stored == receipt)
            let unknown = try await server.client.answer(.get("/uploads/no-such-id"))
            #expect(unknown.status == .notFound)
        }
    }

    @Test func anEmptyUploadIsFine() async throws {
        try await withServer { server in
            let receipt = try await server.client.send(Request<Receipt>.post("/uploads", body: .data(Data()))).value
            #expect(receipt.bytes == 0)
            #expect(receipt.sha256 == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        }
    }

    @Test func aMultipartUploadListsItsParts() async throws {
        try await withServer { server in
            let boundary = "spacephotos-\(UUID().uuidString)"
            // Bytes that hold a near-boundary and line breaks, to trip a naive parser.
            let photo = Data(DownloadPattern.sample(count: 70_000)) + Data("\r\n--spacephotos\r\n".utf8)
            var body = Data()
            body += Data("preamble, ignored\r\n--\(boundary)\r\n".utf8)
            body += Data("Content-Disposition: form-data; name=\"title\"\r\n\r\nPillars of Creation\r\n".utf8)
            body += Data("--\(boundary)\r\n".utf8)
            body += Data(
                "Content-Disposition: form-data; name=\"photo\"; filename=\"pillars \\\"hd\\\".png\"\r\nContent-Type: image/png\r\n\r\n"
                    .utf8
            )
            body += photo
            body += Data("\r\n--\(boundary)--\r\nepilogue, ignored".utf8)

            let response = try await server.client.answer(
                .post(
                    "/uploads",
                    body: .data(body, contentType: "multipart/form-data; boundary=\"\(boundary)\"")
                )
            )
            #expect(response.status == .created)
            let receipt = try response.decoded(as: Receipt.self)
            #expect(receipt.bytes == body.count)
            #expect(receipt.sha256 == Self.hex(body))
            #expect(
                receipt.parts == [
                    Receipt.Part(name: "title", filename: nil, bytes: 19),
                    Receipt.Part(name: "photo", filename: "pillars \"hd\".png", bytes: photo.count),
                ]
            )
        }
    }

    /// A receipt outlives its request: it keeps at most 255 bytes of each
    /// name, and at most a thousand parts.
    @Test func aReceiptKeepsBoundedNamesAndPartCounts() async throws {
        try await withServer { server in
            func upload(parts: Int, name: String) async throws -> Response<Data> {
                var body = Data()
                for _ in 0..<parts {
                    body += Data(
                        "--b\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(name).txt\"\r\n\r\nx\r\n"
                            .utf8
                    )
                }
                body += Data("--b--\r\n".utf8)
                return try await server.client.answer(
                    .post("/uploads", body: .data(body, contentType: "multipart/form-data; boundary=b"))
                )
            }
            let long = try await upload(parts: 2, name: String(repeating: "n", count: 7_000))
            #expect(long.status == .created)
            let receipt = try long.decoded(as: Receipt.self)
            #expect(receipt.parts?.count == 2)
            #expect(receipt.parts?.allSatisfy { $0.name?.utf8.count == 255 && $0.filename?.utf8.count == 255 } == true)
            let stored = try await server.client.send(Request<Receipt>.get("/uploads/\(receipt.id)")).value
            #expect(stored == receipt)

            #expect(try await upload(parts: 1_000, name: "p").status == .created)
            let tooMany = try await upload(parts: 1_001, name: "p")
            #expect(tooMany.status == .contentTooLarge)
            #expect(tooMany.serverError?.code == "body_too_large")
        }
    }

    // No boundary parameter; never closed; garbage after a boundary; a broken header line.
    @Test(arguments: [
        ("multipart/form-data", "--x\r\n\r\nbody\r\n--x--"),
        ("multipart/form-data; boundary=x", "--x\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nbody"),
        ("multipart/form-data; boundary=x", "--xJUNK\r\n\r\nbody\r\n--x--"),
        ("multipart/form-data; boundary=x", "--x\r\nno colon here\r\n\r\nbody\r\n--x--"),
    ])
    func aMalformedMultipartBodyIsABadRequest(contentType: String, body: String) async throws {
        try await withServer { server in
            let response = try await server.client.answer(
                .post("/uploads", body: .data(Data(body.utf8), contentType: contentType))
            )
            #expect(response.status == .badRequest)
            #expect(response.serverError?.code == "bad_request")
        }
    }

    @Test func anUploadOverTheLimitIs413AndTheServerCarriesOn() async throws {
        try await withServer({ $0.maxUploadBytes = 100_000 }) { server in
            let atLimit = try await server.client.answer(.post("/uploads", body: .data(Data(count: 100_000))))
            #expect(atLimit.status == .created)

            let over = try await server.client.answer(.post("/uploads", body: .data(Data(count: 100_001))))
            #expect(over.status == .contentTooLarge)
            #expect(over.serverError?.code == "body_too_large")
            #expect(over.serverError?.message.contains("100000") == true)

            _ = try await server.client.send(Request<String>.get("/health"))
        }
    }

    @Test func aChunkedUploadIsCutOffAtTheLimitAsItArrives() async throws {
        try await withServer({ $0.maxUploadBytes = 100_000 }) { server in
            // A streamed body declares no length: only counting can stop it.
            func upload(_ count: Int) async throws -> (Int, APIErrorCode?) {
                var request = URLRequest(url: server.baseURL.appendingPathComponent("uploads"))
                request.httpMethod = "POST"
                request.httpBodyStream = InputStream(data: Data(count: count))
                let (data, response) = try await URLSession.shared.data(for: request)
                let code = try? JSONDecoder().decode(APIErrorCode.self, from: data)
                return ((response as? HTTPURLResponse)?.statusCode ?? 0, code)
            }
            #expect(try await upload(50_000).0 == 201)
            let (status, error) = try await upload(400_000)
            #expect(status == 413)
            #expect(error?.error.code == "body_too_large")
        }
    }

    /// Just the code of an error document.
    struct APIErrorCode: Decodable {
        struct Detail: Decodable { var code: String }
        var error: Detail
    }
}

extension DownloadPattern {
    /// Varied bytes for upload bodies.
    static func sample(count: Int) -> [UInt8] { bytes(in: 0..<count) }
}
