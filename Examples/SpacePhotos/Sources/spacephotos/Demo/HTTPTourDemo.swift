import BaselineConcurrency
import BaselineHTTP
import BaselineTesting
import Foundation
import HTTPTypes
import SpacePhotosCore

/// A URLSession tour, on Baseline's client: an image with status and
/// type checks, a download with a progress bar, an upload expecting 201, the
/// live favourite-count stream, a retry after 503, a cancelled request, and a
/// cURL line with the token redacted.
struct HTTPTourDemo {
    let baseURL: URL
    let dataDirectory: URL
    let narrator: Narrator

    struct UploadReceipt: Decodable, Sendable {
        var id: String
        var bytes: Int
        var sha256: String
    }

    func run() async throws {
        try AppDirectories.createPrivate(dataDirectory)
        let client = HTTPClient(baseURL: baseURL)

        narrator.section("The dog photo: status and content type checked")
        let dog = try await client.send(
            Request<Data>.get("/dogs/random").accepting(200..<300)
        )
        guard dog.headerFields[.contentType] == "image/png", dog.value.starts(with: [0x89, 0x50, 0x4E, 0x47]) else {
            narrator.result("Not an image: \(dog.headerFields[.contentType] ?? "no type")")
            return
        }
        let width = dog.value.dropFirst(16).prefix(4).reduce(0) { $0 << 8 | Int($1) }
        let height = dog.value.dropFirst(20).prefix(4).reduce(0) { $0 << 8 | Int($1) }
        narrator.result(
            "A \(width)×\(height) PNG, \(dog.value.count) bytes, first byte after \(Narrator.format(dog.metrics.timeToFirstByte))."
        )

        narrator.section("Download with progress, to a file moved into place when complete")
        let file = dataDirectory.appendingPathComponent("64MiB.bin")
        let downloaded = try await client.download(Request<Void>.get("/downloads/64MiB.bin"), to: file) { progress in
            var shown = -1
            for await update in progress {
                let percent = Int((update.fractionCompleted ?? 0) * 100)
                guard percent / 10 != shown / 10 || percent == 100 && shown != 100 else { continue }
                shown = percent
                let bar = String(repeating: "█", count: percent / 5) + String(repeating: "·", count: 20 - percent / 5)
                narrator.step("[\(bar)] \(percent) %")
            }
        }
        narrator.result(
            "\(downloaded.metrics.bytesReceived / 1_048_576) MiB in \(Narrator.format(downloaded.metrics.duration)) → \(file.lastPathComponent)"
        )

        narrator.section("Upload expecting 201, with progress")
        let steps = LockedValue(0)
        let receipt = try await client.upload(
            Request<UploadReceipt>.post("/uploads", body: .file(file)).accepting(201..<202)
        ) { progress in
            for await _ in progress { steps.withLock { $0 += 1 } }
        }
        narrator.result(
            "201 Created: \(receipt.value.bytes / 1_048_576) MiB, sha256 \(receipt.value.sha256.prefix(16))…, \(steps.current) progress updates."
        )
        try? FileManager.default.removeItem(at: file)

        narrator.section("Live favourite counts: an NDJSON stream, line by line")
        var favourites: [String: Int] = [:]
        let events = try await client.stream(
            Request<Void>.get(
                "/events",
                query: [
                    URLQueryItem(name: "count", value: "6"), URLQueryItem(name: "interval", value: "150"),
                ]
            )
        )
        for try await update in events.body.jsonLines(of: PhotoMetadata.self) {
            favourites[update.id] = update.favoriteCount
            narrator.step("♥ \(update.favoriteCount.formatted()) — \(update.title)")
        }
        narrator.result("\(favourites.count) photos updated as the events arrived.")

        narrator.section("A retry after 503 Service Unavailable (Retry-After: 1)")
        let retrying = HTTPClient(
            baseURL: baseURL,
            middleware: [RetryMiddleware(policy: RetryPolicy(maximumAttempts: 4))]
        )
        struct Flaky: Decodable, Sendable { var attempts: Int }
        let flaky = try await retrying.send(
            Request<Flaky>.get("/flaky/demo", query: [URLQueryItem(name: "failures", value: "2")])
        )
        narrator.result(
            "Succeeded on attempt \(flaky.value.attempts), after \(Narrator.format(flaky.metrics.duration)) of waiting as the server asked."
        )

        narrator.section("A request cancelled mid-flight")
        let slow = Task {
            _ = try await client.send(Request<Void>.get("/slow", query: [URLQueryItem(name: "ms", value: "5000")]))
        }
        try await Task.sleep(for: .milliseconds(200))
        slow.cancel()
        do {
            try await slow.value
            narrator.result("Unexpected: the slow request finished.")
        } catch is CancellationError {
            narrator.result("Cancelled after 200 ms: CancellationError, and the transfer stopped.")
        }

        narrator.section("The request as cURL, with the token redacted")
        let token = try await AuthAPI(client: client).logIn(for: User.ID(rawValue: "astro"), with: "stardust-42")
        let last = RecordingMiddleware()
        let authed = HTTPClient(baseURL: baseURL, middleware: [last])
        _ = try await authed.send(Request<User>.get("/members/me").header(.authorization, "Bearer \(token.rawValue)"))
        if let request = last.last {
            narrator.result(request.curlDescription())
        }
    }
}
