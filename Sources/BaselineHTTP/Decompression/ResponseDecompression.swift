import HTTPTypes

/// The client's innermost step when ``HTTPClient/Configuration/decompressesResponses``
/// is on: it inflates gzip and deflate responses. (The client asks for them
/// with `Accept-Encoding` among its default header fields, so that middleware
/// and logs see the request as sent.)
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
        let (head, responseBody) = try await next(request, body)
        // Most responses have no coding: no work, no allocation.
        guard head.headerFields[.contentEncoding] != nil else { return (head, responseBody) }
        let coding = ContentCoding(head.headerFields)
        guard coding == .gzip || coding == .deflate else { return (head, responseBody) }
        return (head.withContentDecoded(), HTTPBody(DecompressingReader(responseBody, coding: coding), length: nil))
    }
}
