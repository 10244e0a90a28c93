import HTTPTypes

/// The client's innermost step when ``HTTPClient/Configuration/decompressesResponses``
/// is on: it asks for gzip and deflate, and inflates what comes back.
///
/// It sits next to the transport, so every middleware above it (logging,
/// caching, validation) and the size limit see the inflated body. A
/// transport that inflates by itself (URLSession does) removes
/// `Content-Encoding` when it does, and this step then has nothing to do:
/// the same request gets the same head and body on every transport.
struct ResponseDecompression: HTTPMiddleware {
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        next: @escaping Next
    ) async throws -> (HTTPResponse, HTTPBody) {
        var request = request
        // A value the caller set wins (`identity`, to get the bytes as stored).
        if request.headerFields[.acceptEncoding] == nil {
            request.headerFields[.acceptEncoding] = ContentCoding.acceptedByDefault
        }
        let (head, responseBody) = try await next(request, body)
        let coding = ContentCoding(head.headerFields)
        guard coding == .gzip || coding == .deflate else { return (head, responseBody) }
        return (head.withContentDecoded(), HTTPBody(DecompressingReader(responseBody, coding: coding), length: nil))
    }
}
