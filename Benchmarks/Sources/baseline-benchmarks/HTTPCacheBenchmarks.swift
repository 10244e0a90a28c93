import BaselineHTTP
import Foundation
import HTTPTypes

/// The response cache's disk store:
///
/// - **a hit**: `ResponseCache` answering a fresh `GET` from memory and from
///   disk (a 1 KiB JSON body with a typical API head), p50 and p99, in
///   interleaved rounds; and allocations per disk hit, from two runs of a
///   child with `malloc-count` (`http-cache-probe`);
/// - **a relaunch with 10,000 entries**: a new store on the full folder
///   until its first hit, and until its first write (which lists the folder
///   to learn its size), with the folder's files in the page cache.
enum HTTPCacheBenchmarks {
    static func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "baseline-http-cache-\(UUID().uuidString)"
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        print("HTTP cache — release build")

        let memory = ResponseCache(store: MemoryCacheStore(byteLimit: 64 << 20))
        let disk = ResponseCache(
            store: DiskCacheStore(directory: directory.appendingPathComponent("hits"), byteLimit: 64 << 20)
        )
        var hits: [String: Measurement] = [:]
        for round in 0..<3 {
            for (name, cache) in [("memory", memory), ("disk", disk)] {
                let samples = try await timedHits(cache, keys: 200, hits: 2_000, round: round)
                hits[name, default: Measurement(name: "fresh hit through ResponseCache (\(name))")].samples += samples
            }
        }
        print(hits["memory"]!.reportWithP99())
        print(hits["disk"]!.reportWithP99())

        if let library = try HTTPAllocationBenchmarks.mallocCountLibrary() {
            let (low, high) = (1_000, 5_000)
            let lowCount = try HTTPAllocationBenchmarks.allocations(
                ofChild: ["http-cache-probe"],
                environment: ["HTTP_CACHE_PROBE_HITS": "\(low)"],
                library: library
            )
            let highCount = try HTTPAllocationBenchmarks.allocations(
                ofChild: ["http-cache-probe"],
                environment: ["HTTP_CACHE_PROBE_HITS": "\(high)"],
                library: library
            )
            let perHit = Double(highCount - lowCount) / Double(high - low)
            print(String(format: "allocations per disk hit (malloc-count, %d vs %d hits)      %.1f", low, high, perHit))
        } else {
            print("  (allocations: no malloc-count library; set MALLOC_COUNT_LIBRARY or MALLOC_COUNT_SOURCE)")
        }

        let full = directory.appendingPathComponent("relaunch")
        let filling = DiskCacheStore(directory: full, byteLimit: 1 << 30)
        for index in 0..<10_000 {
            await filling.store(entry(bodyBytes: 1_024), for: key(index))
        }
        var firstHit = Measurement(name: "relaunch, 10,000 entries: new store → first hit")
        var firstWrite = Measurement(name: "relaunch, 10,000 entries: new store → first write")
        let clock = ContinuousClock()
        for round in 0..<15 {
            var found = false
            firstHit.samples.append(
                await clock.measure {
                    let store = DiskCacheStore(directory: full, byteLimit: 1 << 30)
                    found = await store.cachedResponse(for: key(round * 7)) != nil
                }
            )
            guard found else { throw BenchmarkError.setup("the relaunched store missed an entry") }
            firstWrite.samples.append(
                await clock.measure {
                    let store = DiskCacheStore(directory: full, byteLimit: 1 << 30)
                    await store.store(entry(bodyBytes: 1_024), for: key(round * 11))
                }
            )
        }
        print(firstHit.reportWithP99(target: "≤ 50 ms"))
        print(firstWrite.reportWithP99(target: "≤ 50 ms"))
    }

    static func key(_ index: Int) -> String {
        "https://api.example.com/photos?date=2024-01-\(index)"
    }

    /// A typical API answer: JSON, fresh for a minute, with a validator.
    static func entry(bodyBytes: Int) -> CachedResponse {
        let fields: HTTPFields = [
            .contentType: "application/json",
            .cacheControl: "max-age=3600",
            .eTag: #""5f3c-2a""#,
            .date: "Thu, 26 Nov 2026 12:00:00 GMT",
            .contentLength: "\(bodyBytes)",
            .vary: "Accept-Encoding",
        ]
        return CachedResponse(
            response: HTTPResponse(status: .ok, headerFields: fields),
            body: Data(repeating: UInt8(ascii: "x"), count: bodyBytes),
            receivedAt: Date()
        )
    }

    /// `hits` fresh hits over `keys` stored entries, each timed.
    static func timedHits(_ cache: ResponseCache, keys: Int, hits: Int, round: Int) async throws -> [Duration] {
        for index in 0..<keys {
            await cache.store.store(entry(bodyBytes: 1_024), for: key(index))
        }
        let clock = ContinuousClock()
        var samples: [Duration] = []
        samples.reserveCapacity(hits)
        for hit in 0..<hits {
            let request = HTTPRequest(
                method: .get,
                scheme: "https",
                authority: "api.example.com",
                path: "/photos?date=2024-01-\(hit % keys)"
            )
            var answered = 0
            samples.append(
                try await clock.measure {
                    let (_, body) = try await cache.intercept(request, body: nil) { _, _ in
                        throw BenchmarkError.setup("a fresh entry went to the network (round \(round))")
                    }
                    answered = try await body.collect(upTo: 1 << 20).count
                }
            )
            guard answered == 1_024 else { throw BenchmarkError.setup("a hit answered \(answered) bytes") }
        }
        return samples
    }

    /// Runs in the child: `HTTP_CACHE_PROBE_HITS` disk hits, then exits
    /// through `exit`, which is when malloc-count prints.
    static func probe() async throws -> Never {
        guard let hits = ProcessInfo.processInfo.environment["HTTP_CACHE_PROBE_HITS"].flatMap(Int.init) else {
            throw BenchmarkError.setup("http-cache-probe needs HTTP_CACHE_PROBE_HITS")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "baseline-http-cache-probe-\(UUID().uuidString)"
        )
        let cache = ResponseCache(store: DiskCacheStore(directory: directory, byteLimit: 64 << 20))
        _ = try await timedHits(cache, keys: 100, hits: 200, round: 0)  // the same warm-up in both runs
        _ = try await timedHits(cache, keys: 100, hits: hits, round: 0)
        try? FileManager.default.removeItem(at: directory)
        exit(0)
    }
}
