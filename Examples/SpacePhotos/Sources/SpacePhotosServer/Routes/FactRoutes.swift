import Foundation
import Hummingbird

/// `GET /facts/{n}`: a line of trivia about the number (numbersapi.com's,
/// served locally).
///
/// Test knobs: `?delay=<milliseconds>` answers slowly (at most 10 s), so a
/// client can show cancelling; `?fail=true` answers 503, so a client can show
/// its fallback.
struct FactRoutes: Sendable {
    func add(to router: Router<ServerRequestContext>) {
        router.get("facts/:number") { request, context -> String in
            // Bounded, so that working a fact out (a primality test) stays cheap.
            guard let number = context.parameters.get("number", as: Int.self), number.magnitude <= 1_000_000_000_000
            else {
                throw APIError(
                    .badRequest,
                    code: "bad_request",
                    message: "The fact's number must be an integer of at most 10^12."
                )
            }
            if let delay = request.uri.queryParameters.get("delay", as: Int.self), delay > 0 {
                try await Task.sleep(for: .milliseconds(min(delay, 10_000)))
            }
            if request.uri.queryParameters.get("fail") == "true" {
                throw APIError(.serviceUnavailable, code: "unavailable", message: "Facts are unavailable right now.")
            }
            return Self.fact(about: number)
        }
    }

    /// A true statement about `number`, worked out rather than looked up.
    static func fact(about number: Int) -> String {
        switch number {
        case 0: return "0 is the only number that is neither positive nor negative."
        case 42: return "42 is the answer to the ultimate question of life, the universe, and everything."
        default: break
        }
        let magnitude = number.magnitude
        if isPrime(magnitude) {
            return "\(number) is a prime number: only 1 and itself divide it."
        }
        let root = UInt(Double(magnitude).squareRoot())
        if root * root == magnitude {
            return "\(number) is a perfect square: \(root) × \(root)."
        }
        let digitSum = String(magnitude).compactMap(\.wholeNumberValue).reduce(0, +)
        return "\(number) is \(number.isMultiple(of: 2) ? "even" : "odd"), and its digits add up to \(digitSum)."
    }

    static func isPrime(_ number: UInt) -> Bool {
        guard number >= 2 else { return false }
        var divisor: UInt = 2
        while divisor * divisor <= number {
            if number.isMultiple(of: divisor) { return false }
            divisor += 1
        }
        return true
    }
}
