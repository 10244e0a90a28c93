import BaselineHTTP
import BaselineStore
import BaselineTesting
import Foundation
import HTTPTypes
import SpacePhotosCore
import Testing

/// The exact line the catalog shows when loading fails: one human line, never
/// an `NSError` dump or a byte count.
@MainActor
@Suite("Error messages the app shows", .timeLimit(.minutes(2)))
struct ErrorMessageTests {
    func catalogMessage(_ client: HTTPClient) async -> String? {
        let catalog = Store(initialState: PhotoCatalog.State()) {
            PhotoCatalog(source: .live(client: client), count: 3)
        }
        await catalog.send(.updateItems).finish()
        return catalog.errorMessage
    }

    func stubbed(_ response: StubResponse) -> HTTPClient {
        let transport = StubTransport()
        transport.on(.get, "/photos/dates", respond: response)
        return HTTPClient(baseURL: URL(string: "http://photos.test")!, transport: transport)
    }

    @Test func refusedConnection() async {
        // Port 1: nothing listens there (test servers get ephemeral ports).
        let client = HTTPClient(baseURL: URL(string: "http://127.0.0.1:1")!, transport: URLSessionTransport())
        let message = await catalogMessage(client)
        #expect(message == "The catalog could not be loaded: Could not connect to 127.0.0.1:1 (connection refused)")
    }

    @Test func httpErrorShowsTheServersMessage() async {
        let body = Data(#"{"error":{"message":"No photo for 2024-13-01"}}"#.utf8)
        let message = await catalogMessage(
            stubbed(StubResponse(status: .notFound, headerFields: [.contentType: "application/json"], body: body))
        )
        #expect(message == "The catalog could not be loaded: 404 Not Found: No photo for 2024-13-01")
    }

    @Test func httpErrorWithoutAMessageNamesTheStatus() async {
        let message = await catalogMessage(
            stubbed(StubResponse(status: .serviceUnavailable, body: Data("<html>busy</html>".utf8)))
        )
        #expect(message == "The catalog could not be loaded: The server answered 503 Service Unavailable")
    }

    @Test func decodingFailureSaysWhichFieldAndWhy() async {
        let message = await catalogMessage(
            stubbed(
                StubResponse(headerFields: [.contentType: "application/json"], body: Data(#"["2024-01-01", 7]"#.utf8))
            )
        )
        #expect(message == #"The catalog could not be loaded: The response's field "[1]" is not a string"#)
    }
}
