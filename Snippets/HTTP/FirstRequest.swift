// Sending a first request: a client, two requests, and what can go wrong.

// snippet.hide
import BaselineHTTP
import Foundation
import HTTPTypes

// snippet.show
// snippet.first
// 1. The types the API speaks, as plain Codable values.
struct Credentials: Encodable, Sendable {
    var id: String
    var password: String
}

struct Token: Decodable, Sendable {
    var idToken: String
    var expiresIn: Int
}

struct Member: Decodable, Sendable {
    var id: String
    var displayName: String
}

// 2. One client per API: a base URL, and the defaults for a JSON service.
let client = HTTPClient(baseURL: URL(string: "http://127.0.0.1:8080")!)

// 3. A request names its response type; the client decodes the JSON into it.
let login = Request<Token>.post("/auth/login", body: .json(Credentials(id: "astro", password: "stardust-42")))
let token = try await client.send(login).value

// 4. Header fields and a timeout are set on the request, by copy.
let me = try await client.send(
    Request<Member>.get("/members/me")
        .header(.authorization, "Bearer \(token.idToken)")
        .timeout(.seconds(10))
)
print(me.status, me.value.displayName, me.metrics.timeToFirstByte)
// snippet.end

// snippet.api
/// Requests gathered by feature: call sites read as what they do.
enum MemberAPI {
    static func me() -> Request<Member> {
        .get("/members/me")
    }

    static func search(_ text: String, page: Int) -> Request<[Member]> {
        .get("/members", query: [URLQueryItem(name: "q", value: text), URLQueryItem(name: "page", value: "\(page)")])
    }

    static func remove(_ id: String) -> Request<Void> {
        .delete("/members/\(id)")
    }
}
// snippet.end

// snippet.configuration
var configuration = HTTPClient.Configuration(baseURL: URL(string: "https://api.example.com/v2")!)
configuration.timeout = .seconds(30)
configuration.headerFields[.userAgent] = "SpacePhotos/1.0"
configuration.decoder.dateDecodingStrategy = .iso8601
configuration.maximumResponseSize = 4 * 1024 * 1024
let api = HTTPClient(configuration: configuration)
// snippet.end

// snippet.errors
/// What the screen shows for a failed search.
func message(searching text: String) async -> String? {
    do {
        let results = try await api.send(MemberAPI.search(text, page: 1)).value
        return results.isEmpty ? "No one by that name." : nil
    } catch is CancellationError {
        // The screen went away: not a failure.
        return nil
    } catch let error as HTTPClientError {
        switch error {
        case .unacceptableStatus(let head, _) where head.status == .tooManyRequests:
            return "Too many searches. Try again in a minute."
        case .transport, .timedOut:
            return "The server cannot be reached."
        default:
            // `description` is one readable line: the status and the server's message.
            print(error)
            return "Something went wrong."
        }
    } catch {
        return "Something went wrong."
    }
}
// snippet.end

// snippet.hide
_ = await message(searching: "Orion")
