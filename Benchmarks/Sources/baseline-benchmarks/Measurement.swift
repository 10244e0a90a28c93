import Foundation

/// Repeated timings of one piece of work, summarised by their median (the
/// figure the targets are stated in) and spread.
struct Measurement {
    let name: String
    var samples: [Duration] = []

    var median: Duration { sorted[sorted.count / 2] }
    var minimum: Duration { sorted.first ?? .zero }
    var p90: Duration { sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.9))] }
    var p99: Duration { sorted[min(sorted.count - 1, sorted.count * 99 / 100)] }
    private var sorted: [Duration] { samples.sorted() }

    /// Times `body` `iterations` times after `warmup` untimed runs; `setUp`
    /// runs before each, outside the timing.
    static func run<Context>(
        isolation: isolated (any Actor)? = #isolation,
        _ name: String,
        iterations: Int,
        warmup: Int = 2,
        setUp: () async throws -> Context,
        body: (Context) async throws -> Void
    ) async throws -> Measurement {
        var measurement = Measurement(name: name)
        let clock = ContinuousClock()
        for index in 0..<(warmup + iterations) {
            let context = try await setUp()
            let elapsed = try await clock.measure { try await body(context) }
            if index >= warmup { measurement.samples.append(elapsed) }
        }
        return measurement
    }

    func report(target: String = "") -> String {
        let line =
            "\(name.padding(toLength: 52, withPad: " ", startingAt: 0)) median \(format(median))  min \(format(minimum))  p90 \(format(p90))  (n=\(samples.count))"
        return target.isEmpty ? line : line + "  target: " + target
    }
}

func format(_ duration: Duration) -> String {
    let milliseconds = Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
    return milliseconds < 1 ? String(format: "%.3f ms", milliseconds) : String(format: "%.2f ms", milliseconds)
}

func ratio(_ a: Duration, _ b: Duration) -> Double {
    seconds(a) / seconds(b)
}
