import BaselineHTTP
import Foundation
import HTTPTypes
import SpacePhotosServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPClient {
    /// Sends `request` and returns the response whatever its status, with
    /// the raw body: for tests that look at error answers and headers.
    func answer(_ request: Request<Data>) async throws -> Response<Data> {
        var request = request
        request.acceptableStatusCodes = 100..<600
        return try await send(request)
    }
}

extension Response<Data> {
    /// The body decoded as `T`.
    func decoded<T: Decodable>(as type: T.Type = T.self) throws -> T {
        try JSONDecoder().decode(T.self, from: body)
    }

    /// The server's JSON error document.
    var serverError: APIError.Document.Detail? {
        try? JSONDecoder().decode(APIError.Document.self, from: body).error
    }
}

extension RunningServer {
    /// A client that does not follow redirects, so tests see the 3xx itself.
    var nonRedirectingClient: HTTPClient {
        var configuration = HTTPClient.Configuration(baseURL: baseURL)
        configuration.redirectPolicy = .never
        return HTTPClient(configuration: configuration, transport: URLSessionTransport())
    }
}
