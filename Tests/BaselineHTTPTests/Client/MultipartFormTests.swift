import BaselineHTTP
import BaselineTesting
import Foundation
import HTTPTypes
import Testing

@Suite("MultipartForm: what goes into part headers cannot add headers or parts", .timeLimit(.minutes(1)))
struct MultipartFormTests {
    let transport = StubTransport()
    var client: HTTPClient { HTTPClient(baseURL: URL(string: "https://api.test")!, transport: transport) }

    /// The body and `Content-Type` the client sends for `form`.
    func sent(_ form: MultipartForm) async throws -> (body: String, contentType: String?) {
        transport.on(.post, "/uploads", respond: .status(.created))
        try await client.send(Request<Void>.post("/uploads", body: .multipart(form)))
        let request = try #require(transport.requests.last)
        return (String(decoding: request.body ?? Data(), as: UTF8.self), request.headerFields[.contentType])
    }

    func refusal(_ form: MultipartForm) async -> String? {
        transport.on(.post, "/uploads", respond: .status(.created))
        do {
            try await client.send(Request<Void>.post("/uploads", body: .multipart(form)))
            return nil
        } catch let HTTPClientError.invalidRequest(reason) {
            return reason
        } catch {
            return "\(error)"
        }
    }

    /// The WHATWG HTML standard's multipart/form-data encoding: "For field
    /// names and filenames for file fields, the result of the encoding in
    /// this section must be escaped by replacing any 0x0A (LF) bytes with
    /// the byte sequence `%0A`, 0x0D (CR) with `%0D` and 0x22 (") with
    /// `%22`." (RFC 7578 §4.2 points to it.)
    @Test func namesAndFilenamesAreEscapedAsBrowsersEscapeThem() async throws {
        let form = MultipartForm(boundary: "XyZ")
            .field("a\"b\r\nContent-Type: evil", "value")
            .data("photo", Data("x".utf8), filename: "x\r\n--XyZ\r\n\".png", contentType: "image/png")
        let (body, _) = try await sent(form)
        #expect(
            body
                == "--XyZ\r\nContent-Disposition: form-data; name=\"a%22b%0D%0AContent-Type: evil\"\r\n\r\nvalue\r\n"
                + "--XyZ\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"x%0D%0A--XyZ%0D%0A%22.png\"\r\n"
                + "Content-Type: image/png\r\n\r\nx\r\n--XyZ--\r\n"
        )
    }

    @Test func aQuoteFollowedByACombiningMarkIsEscapedToo() async throws {
        // As a `Character`, `"` + U+0301 is not `"`: compared that way, the
        // quote closed the name early and the rest became parameters.
        let (body, _) = try await sent(MultipartForm(boundary: "XyZ").field("a\"\u{301}; filename=\"x", "v"))
        #expect(body.hasPrefix("--XyZ\r\nContent-Disposition: form-data; name=\"a%22\u{301}; filename=%22x\"\r\n"))
    }

    @Test(arguments: [
        "text/plain\r\nContent-Disposition: form-data; name=\"evil\"", "a\nb", "a\rb", "a\u{0}b", "a\u{7F}",
    ])
    func aContentTypeWithAControlCharacterFailsBeforeAnythingIsSent(contentType: String) async throws {
        let form = MultipartForm().data("photo", Data("x".utf8), filename: "x.png", contentType: contentType)
        let reason = await refusal(form)
        #expect(reason?.contains("holds a control character") == true, "\(String(describing: reason))")
        #expect(transport.requests.isEmpty)
    }

    @Test func aContentTypeWithATabOrParametersIsSentAsItIs() async throws {
        let form = MultipartForm(boundary: "b").data(
            "f",
            Data(),
            filename: "f",
            contentType: "text/plain;\tcharset=utf-8"
        )
        #expect(try await sent(form).body.contains("Content-Type: text/plain;\tcharset=utf-8\r\n\r\n"))
    }

    /// RFC 2046 §5.1.1:
    ///
    ///     boundary := 0*69<bchars> bcharsnospace
    ///     bchars := bcharsnospace / " "
    ///     bcharsnospace := DIGIT / ALPHA / "'" / "(" / ")" / "+" / "_" / "," / "-" / "." / "/" / ":" / "=" / "?"
    @Test(arguments: [
        "", String(repeating: "a", count: 71), "ends in a space ", "line\r\nbreak", "a\nb", "quote\"", "semi;colon",
        "é", "tab\t", "<angle>",
    ])
    func aBoundaryRFC2046DoesNotAllowFails(boundary: String) async throws {
        let reason = await refusal(MultipartForm(boundary: boundary).field("a", "b"))
        #expect(
            reason?.contains("is not 1 to 70 of the characters RFC 2046 allows") == true,
            "\(String(describing: reason))"
        )
        #expect(transport.requests.isEmpty)
    }

    @Test func everyBoundaryRFC2046AllowsIsSentQuotedWhereATokenCannotHoldIt() async throws {
        let seventy = String(repeating: "7", count: 70)
        #expect(
            try await sent(MultipartForm(boundary: seventy)).contentType == "multipart/form-data; boundary=\(seventy)"
        )
        #expect(
            try await sent(MultipartForm(boundary: "a'+_-.b")).contentType == "multipart/form-data; boundary=a'+_-.b"
        )
        let special = "gc0p4Jq0M2Yt08j34c0p ()/,:=?z"
        let (body, contentType) = try await sent(MultipartForm(boundary: special).field("a", "b"))
        #expect(contentType == "multipart/form-data; boundary=\"\(special)\"")
        #expect(body == "--\(special)\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nb\r\n--\(special)--\r\n")
    }
}
