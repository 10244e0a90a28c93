import BaselineHTTP
import Foundation

/// Splitting a streamed body into lines, JSON lines and Server-Sent Events
/// must take time in proportion to its bytes, however many lines one chunk
/// holds: 64 KiB of newlines (a hundred bytes gzipped) once cost gigabytes
/// of copying. Each row splits one chunk of only newlines; the 1 MiB row
/// holds 16 times the 64 KiB row's bytes and lines, so linear splitting
/// takes about 16 times as long, and quadratic splitting 256 times.
enum BodyParsingBenchmarks {
    static func run() async throws {
        print("\n== Body parsing: one chunk of newlines")
        for (name, split) in [
            ("lines()", Self.lines),
            ("jsonLines()", Self.jsonLines),
            ("serverSentEvents()", Self.serverSentEvents),
        ] as [(String, @Sendable (Data) async throws -> Int)] {
            var medians: [Duration] = []
            for size in [64 * 1024, 1024 * 1024] {
                let chunk = Data(repeating: UInt8(ascii: "\n"), count: size)
                let measurement = try await Measurement.run(
                    "\(name), \(size / 1024) KiB of newlines",
                    iterations: 15,
                    setUp: { chunk },
                    body: { chunk in _ = try await split(chunk) }
                )
                medians.append(measurement.median)
                print(measurement.report())
            }
            print(
                String(
                    format:
                        "%@: 1 MiB takes %.1f× as long as 64 KiB  target: under 32× (linear is 16×, quadratic 256×)",
                    name,
                    ratio(medians[1], medians[0])
                )
            )
        }
    }

    static func body(_ chunk: Data) -> HTTPBody {
        HTTPBody(
            AsyncThrowingStream { continuation in
                continuation.yield(chunk)
                continuation.finish()
            },
            length: nil
        )
    }

    @Sendable static func lines(_ chunk: Data) async throws -> Int {
        var count = 0
        for try await _ in body(chunk).lines() { count += 1 }
        return count
    }

    @Sendable static func jsonLines(_ chunk: Data) async throws -> Int {
        var count = 0
        for try await _ in body(chunk).jsonLines(of: Int.self) { count += 1 }
        return count
    }

    @Sendable static func serverSentEvents(_ chunk: Data) async throws -> Int {
        var count = 0
        for try await _ in body(chunk).serverSentEvents() { count += 1 }
        return count
    }
}
