import Hummingbird

/// `GET /slow?ms=N`: answers `{"milliseconds": N}` after `N` milliseconds
/// (default 1,000, at most 10,000), for showing a request cancelled mid-flight.
///
/// The wait ends early when the client disconnects or the server stops, so
/// abandoned requests do not hold the server up.
struct SlowRoutes: Sendable {
    struct Answer: ResponseEncodable {
        var milliseconds: Int
    }

    func add(to router: Router<ServerRequestContext>) {
        router.get("slow") { request, context -> Answer in
            let milliseconds = try request.integerParameter("ms", in: 0...10_000) ?? 1_000
            context.logger.debug("Slow answer: waiting", metadata: ["ms": "\(milliseconds)"])
            try await request.body.consumeWithCancellationOnInboundClose { _ in
                try await sleepUnlessShuttingDown(for: .milliseconds(milliseconds))
            }
            return Answer(milliseconds: milliseconds)
        }
    }
}
