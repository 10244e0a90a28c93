import BaselineConcurrency
import BaselineHTTP
import BaselineTesting
import Crypto
import Foundation
import HTTPTypes
import SpacePhotosServer
import Testing

/// Downloads that break and resume, on both transports, against the example
/// server's `Range` support and its `?cutAt=` knob.
@Suite("Resumable downloads (real server, both transports)", .timeLimit(.minutes(2)))
struct ResumableDownloadIntegrationTests {
    static let size = 64 * 1024 * 1024

    /// The SHA-256 of the first `count` bytes of the server's download pattern.
    static func expectedDigest(count: Int) -> SHA256.Digest {
        var hasher = SHA256()
        var offset = 0
        while offset < count {
            let end = min(offset + 4 * 1024 * 1024, count)
            hasher.update(data: DownloadPattern.bytes(in: offset..<end))
            offset = end
        }
        return hasher.finalize()
    }

    static func digest(ofFileAt url: URL) throws -> SHA256.Digest {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 4 * 1024 * 1024), !chunk.isEmpty {
            hasher.update(data: chunk)
        }
        return hasher.finalize()
    }

    static func keptBytes(for destination: URL) -> Int {
        let kept = destination.deletingLastPathComponent().appendingPathComponent(
            ".\(destination.lastPathComponent).download"
        )
        return ((try? FileManager.default.attributesOfItem(atPath: kept.path)[.size]) as? NSNumber)?.intValue ?? 0
    }

    /// Downloads, recording the first progress report.
    static func download(
        _ client: HTTPClient,
        _ request: Request<Void>,
        to destination: URL
    ) async throws -> (Response<URL>, first: TransferProgress?) {
        let first = LockedValue<TransferProgress?>(nil)
        let response = try await client.download(request, to: destination) { progress in
            for await update in progress {
                first.withLock { if $0 == nil { $0 = update } }
            }
        }
        return (response, first.current)
    }

    @Test(arguments: TransportKind.allCases)
    func aDownloadCutAtARandomPointResumesToTheRightBytes(_ kind: TransportKind) async throws {
        var generator = SystemRandomNumberGenerator()
        let cut = Int.random(in: 4 * 1024 * 1024..<Self.size, using: &generator)
        print("Resumable download on \(kind): cut at byte \(cut)")
        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("64MiB.bin")
        let request = Request<Void>.get("/downloads/64MiB.bin", query: [.init(name: "cutAt", value: String(cut))])
        try await withServer { server in
            try await kind.with { transport in
                let client = HTTPClient(baseURL: server.baseURL, transport: transport)
                await #expect(throws: HTTPClientError.self) {
                    try await client.download(request, to: destination)
                }
                let kept = Self.keptBytes(for: destination)
                #expect(kept > 0 && kept <= cut, "kept \(kept) of \(cut)")
                #expect(!FileManager.default.fileExists(atPath: destination.path))

                // The server cuts whole-file answers only: the resume gets the rest.
                let (response, first) = try await Self.download(client, request, to: destination)
                #expect(response.status == .partialContent)
                #expect(first == TransferProgress(completedBytes: Int64(kept), totalBytes: Int64(Self.size)))
                #expect(response.metrics.bytesReceived == Self.size - kept)
            }
        }
        #expect(try Self.digest(ofFileAt: destination) == Self.expectedDigest(count: Self.size))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["64MiB.bin"])
    }

    @Test(arguments: TransportKind.allCases)
    func aFileThatChangedMeanwhileStartsOverFromZero(_ kind: TransportKind) async throws {
        let directory = try TemporaryDirectory()
        let name = "changing.bin"
        let destination = directory.url.appendingPathComponent(name)
        let size = 4 * 1024 * 1024
        let query: [URLQueryItem] = [.init(name: "bytes", value: String(size))]
        try await withServer { server in
            try await kind.with { transport in
                let client = HTTPClient(baseURL: server.baseURL, transport: transport)
                let cutRequest = Request<Void>.get(
                    "/downloads/\(name)",
                    query: query + [.init(name: "cutAt", value: String(size / 2))]
                )
                await #expect(throws: HTTPClientError.self) {
                    try await client.download(cutRequest, to: destination)
                }
                #expect(Self.keptBytes(for: destination) > 0)
                // What the server says when the file changed since: its
                // tag is not the one kept, so If-Range gets the whole file.
                let resume = directory.url.appendingPathComponent(".\(name).download.resume")
                var document = try #require(
                    try JSONSerialization.jsonObject(with: Data(contentsOf: resume)) as? [String: String]
                )
                #expect(document["validator"] == "\"download-v1-\(size)\"")
                document["validator"] = "\"download-v0-\(size)\""
                try JSONSerialization.data(withJSONObject: document).write(to: resume)

                // The whole file again, from byte 0, which the server cuts
                // at the same place: the kept bytes now carry its real tag.
                let first = LockedValue<TransferProgress?>(nil)
                await #expect(throws: HTTPClientError.self) {
                    try await client.download(cutRequest, to: destination) { progress in
                        for await update in progress { first.withLock { if $0 == nil { $0 = update } } }
                    }
                }
                #expect(first.current == TransferProgress(completedBytes: 0, totalBytes: Int64(size)))
                let restarted = try JSONSerialization.jsonObject(with: Data(contentsOf: resume)) as? [String: String]
                #expect(restarted?["validator"] == "\"download-v1-\(size)\"")

                let (response, _) = try await Self.download(client, cutRequest, to: destination)
                #expect(response.status == .partialContent)
            }
        }
        #expect(try Self.digest(ofFileAt: destination) == Self.expectedDigest(count: size))
    }
}
