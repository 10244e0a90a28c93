import BaselineHTTP
import BaselineOpenAPI
import SpacePhotosAPI

// `nonisolated` for an app target whose default isolation is the main actor:
// the photo and member APIs make it off the main actor.

/// The client generated from `openapi.json` (the `SpacePhotosAPI` module).
///
/// Its requests go through the app's ``HTTPClient`` (by `OpenAPITransport`),
/// so they get the same middleware: bearer token refresh, retries, the
/// response cache. The APIs call it inside `withHTTPClientErrors`, so an
/// answer other than the one asked for throws the ``HTTPClientError`` a
/// hand-written `Request` would have (a 401 ends the session, an
/// unreachable server shows the offline screen):
///
/// ```swift
/// try await withHTTPClientErrors { try User(await api.me().ok.body.json) }
/// ```
nonisolated extension Client {
    /// The generated client on `client`: its requests go to the client's
    /// base URL, through its middleware.
    init(on client: HTTPClient) {
        self.init(serverURL: client.configuration.baseURL, transport: OpenAPITransport(client: client))
    }
}
