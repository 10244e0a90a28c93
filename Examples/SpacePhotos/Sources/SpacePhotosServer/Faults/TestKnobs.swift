import HTTPTypes
import Hummingbird

extension Request {
    /// The test knobs of the photo and image endpoints: `?delay=<ms>` waits
    /// first (at most 10 s, ended early by the client leaving or the server
    /// stopping), then `?fail=<status>` answers that status (400…599) with
    /// a JSON error. 400 for a knob out of range.
    func applyTestKnobs() async throws {
        let delay = try integerParameter("delay", in: 0...10_000)
        let status = try integerParameter("fail", in: 400...599)
        if let delay, delay > 0 {
            try await body.consumeWithCancellationOnInboundClose { _ in
                try await sleepUnlessShuttingDown(for: .milliseconds(delay))
            }
        }
        if let status {
            let status = HTTPResponse.Status(code: status)
            throw APIError(
                status,
                code: JSONErrorMiddleware<ServerRequestContext>.code(for: status),
                message: "Failing on purpose with \(status.code), as the request asked (fail=)."
            )
        }
    }
}
