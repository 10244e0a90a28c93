// Decoding a 1 MiB JSON array through `HTTPClient.send` from the main actor.
//
// One source, two builds: `decoding-benchmark` compiles it as an Xcode 26
// app target (default isolation MainActor), `decoding-benchmark-plain` as
// a Swift 6 module with no default isolation. Run both in release:
//
//     swift build -c release --product decoding-benchmark --product decoding-benchmark-plain
//     .build/release/decoding-benchmark && .build/release/decoding-benchmark-plain
//
// Each row reports where `init(from:)` ran and the median time of a send.

import BaselineHTTP
import Foundation
import HTTPTypes
import MainQueue

/// The fields of a row, read from its decoder.
nonisolated struct RowFields: Decodable, Sendable {
    var id: Int
    var title: String
    var date: String
}

/// A row declared as an app declares it: in the default-MainActor build its
/// `Decodable` conformance is the main actor's, so the client decodes it there.
struct Row: Decodable, Sendable {
    var fields: RowFields
    var onMain: Bool

    init(from decoder: any Decoder) throws {
        fields = try RowFields(from: decoder)
        onMain = onMainQueue
    }
}

/// The same row declared `nonisolated`: decoded off the main actor in both builds.
nonisolated struct NonisolatedRow: Decodable, Sendable {
    var fields: RowFields
    var onMain: Bool

    init(from decoder: any Decoder) throws {
        fields = try RowFields(from: decoder)
        onMain = onMainQueue
    }
}

/// Answers every request with the same JSON body, so the time is the client's.
nonisolated struct FixedTransport: HTTPTransport {
    let body: Data

    func send(_ request: HTTPRequest, body _: HTTPBody?) async throws -> (HTTPResponse, HTTPBody) {
        (HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]), HTTPBody(body))
    }
}

/// At least 1 MiB of rows.
nonisolated func makeBody() -> Data {
    var json = "["
    var id = 0
    while json.utf8.count < 1 << 20 {
        if id > 0 { json += "," }
        json += #"{"id":\#(id),"title":"Photo of the day number \#(id)","date":"2026-11-26"}"#
        id += 1
    }
    return Data((json + "]").utf8)
}

nonisolated func milliseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1_000 + Double(attoseconds) / 1e15
}

nonisolated func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

@MainActor
final class Ticker {
    var running = true
    var longest = Duration.zero
}

/// The longest the main actor went without a turn while `body` ran: a
/// ticker on the main actor yields in a loop and times its turns.
@MainActor
func longestMainActorStall<T>(_ body: () async throws -> T) async rethrows -> (T, Duration) {
    let ticker = Ticker()
    let clock = ContinuousClock()
    let task = Task { @MainActor in
        var last = clock.now
        while ticker.running {
            await Task.yield()
            let now = clock.now
            ticker.longest = max(ticker.longest, now - last)
            last = now
        }
    }
    let value = try await body()
    ticker.running = false
    await task.value
    return (value, ticker.longest)
}

@MainActor
func run() async throws {
    precondition(onMainQueue, "the main actor runs on the main queue")
    let body = makeBody()
    let client = HTTPClient(baseURL: URL(string: "https://bench.test")!, transport: FixedTransport(body: body))
    let clock = ContinuousClock()
    var asDeclared: [Double] = []
    var declaredNonisolated: [Double] = []
    var decodeOnly: [Double] = []
    var stalls: (asDeclared: [Double], nonisolated: [Double]) = ([], [])
    var onMain = (asDeclared: false, nonisolated: false)
    // Interleaved rounds: the machine's drift reaches every row alike.
    for round in 0..<12 {
        var start = clock.now
        let rows = try await client.send(Request<[Row]>.get("/rows")).value
        if round > 1 { asDeclared.append(milliseconds(clock.now - start)) }
        onMain.asDeclared = rows.allSatisfy(\.onMain)

        start = clock.now
        let others = try await client.send(Request<[NonisolatedRow]>.get("/rows")).value
        if round > 1 { declaredNonisolated.append(milliseconds(clock.now - start)) }
        onMain.nonisolated = others.allSatisfy(\.onMain)

        // Again, with the main actor's turns timed (the ticker costs time of
        // its own, so these rounds are not in the medians above).
        let (_, stall) = try await longestMainActorStall { try await client.send(Request<[Row]>.get("/rows")) }
        let (_, otherStall) = try await longestMainActorStall {
            try await client.send(Request<[NonisolatedRow]>.get("/rows"))
        }
        if round > 1 {
            stalls.asDeclared.append(milliseconds(stall))
            stalls.nonisolated.append(milliseconds(otherStall))
        }

        start = clock.now
        _ = try JSONDecoder().decode([NonisolatedRow].self, from: body)
        if round > 1 { decodeOnly.append(milliseconds(clock.now - start)) }
    }
    let rows = try JSONDecoder().decode([NonisolatedRow].self, from: body).count
    func where_(_ onMain: Bool) -> String { onMain ? "on the main actor" : "off the main actor" }
    print("\(mode): \(body.count) bytes, \(rows) rows, medians of \(asDeclared.count) interleaved rounds")
    print(
        String(
            format: "  struct Row (as declared)    %7.2f ms per send, decoded %@; main actor's longest stall %6.2f ms",
            median(asDeclared), where_(onMain.asDeclared), median(stalls.asDeclared)
        )
    )
    print(
        String(
            format: "  nonisolated struct Row      %7.2f ms per send, decoded %@; main actor's longest stall %6.2f ms",
            median(declaredNonisolated), where_(onMain.nonisolated), median(stalls.nonisolated)
        )
    )
    print(String(format: "  JSONDecoder alone           %7.2f ms", median(decodeOnly)))
}

try await run()
