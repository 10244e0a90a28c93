import Hummingbird

extension Request {
    /// The integer query parameter `name`, nil when absent; 400 when it is
    /// not an integer within `range`, so handlers never see out-of-bounds input.
    func integerParameter(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = uri.queryParameters.get(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw APIError(
                .badRequest,
                code: "bad_request",
                message: "\(name) must be an integer from \(range.lowerBound) to \(range.upperBound)."
            )
        }
        return value
    }
}
