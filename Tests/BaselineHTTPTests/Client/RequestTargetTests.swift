import Foundation
import Testing

@testable import BaselineHTTP

@Suite("RequestTarget: paths and queries escaped as URLComponents escapes them")
struct RequestTargetTests {
    func target(base: String, path: String, query: [URLQueryItem] = []) throws -> String {
        let url = try #require(URL(string: base))
        return try #require(RequestTarget(baseURL: url)).target(path: path, query: query)
    }

    @Test func thePathIsAppendedToTheBasePath() throws {
        #expect(try target(base: "https://api.test/v1", path: "/photos") == "/v1/photos")
        #expect(try target(base: "https://api.test/v1/", path: "/photos") == "/v1/photos")
        #expect(try target(base: "https://api.test/v1", path: "photos") == "/v1/photos")
        #expect(try target(base: "https://api.test", path: "") == "/")
        #expect(try target(base: "https://api.test/", path: "") == "/")
    }

    @Test func reservedAndNonASCIICharactersAreEscaped() throws {
        #expect(try target(base: "https://api.test", path: "/a b/é/%41") == "/a%20b/%C3%A9/%2541")
        #expect(try target(base: "https://api.test", path: "/a:b@c;d=e&f+g") == "/a:b@c;d=e&f+g")
        let query = [URLQueryItem(name: "a b", value: nil), URLQueryItem(name: "x", value: "é+&=%41?/")]
        #expect(try target(base: "https://api.test", path: "/p", query: query) == "/p?a%20b&x=%C3%A9+%26%3D%2541?/")
    }

    @Test func theBaseQueryComesBeforeTheRequestsItems() throws {
        let query = [URLQueryItem(name: "page", value: "2")]
        #expect(
            try target(base: "https://api.test/v1?key=k%20k", path: "/photos", query: query)
                == "/v1/photos?key=k%20k&page=2"
        )
        #expect(try target(base: "https://api.test/v1?key=k", path: "/photos") == "/v1/photos?key=k")
    }

    func target(base: String = "https://api.test", _ path: RequestPath) throws -> String {
        let url = try #require(URL(string: base))
        return try #require(RequestTarget(baseURL: url)).target(path: path, query: [])
    }

    func refuses(_ path: RequestPath) -> Bool {
        do {
            _ = try target(path)
            return false
        } catch let error as HTTPClientError {
            if case .invalidRequest = error { return true }
            return false
        } catch {
            return false
        }
    }

    @Test func anInterpolatedValueIsOneSegment() throws {
        let id = "a/../../admin?x#y%41"
        #expect(try target("/members/\(id)") == "/members/a%2F..%2F..%2Fadmin%3Fx%23y%2541")
        #expect(try target("/members/\(id)/photos") == "/members/a%2F..%2F..%2Fadmin%3Fx%23y%2541/photos")
        #expect(try target("/members/\(42)") == "/members/42")
        #expect(try target("members/\("é 😀")") == "/members/%C3%A9%20%F0%9F%98%80")
        // Unreserved characters stay; a dot inside a segment is no dot-segment.
        #expect(try target("/files/\("a-b_c.d~e")") == "/files/a-b_c.d~e")
        #expect(try target("/files/\("..hidden")") == "/files/..hidden")
        #expect(try target("/files/\(".").json") == "/files/..json")
        // `path:` keeps its slashes, as literal text does.
        let folder = "a b/c"
        #expect(try target("/files/\(path: folder)/\("d/e")") == "/files/a%20b/c/d%2Fe")
        // Below a base path, too.
        #expect(try target(base: "https://api.test/v1/", "/members/\("x/y")") == "/v1/members/x%2Fy")
    }

    /// RFC 3986 §3.3's examples of what a segment's own delimiters mean:
    /// "the semicolon (";") and equals ("=") reserved characters are often
    /// used to delimit parameters and parameter values applicable to that
    /// segment. The comma (",") reserved character is often used for
    /// similar purposes. For example, one URI producer might use a segment
    /// such as "name;v=1.1" [...] whereas another might use a segment such
    /// as "name,1.1"". An interpolated value is data, not parameters: they
    /// are escaped. So are §3.3's `:` ("this:that") and `@`
    /// ("fred@example.com").
    @Test func aSegmentsOwnDelimitersAreEscapedInAValue() throws {
        #expect(try target("/docs/\("name;v=1.1")") == "/docs/name%3Bv%3D1.1")
        #expect(try target("/docs/\("name,1.1")") == "/docs/name%2C1.1")
        #expect(try target("/docs/\("this:that")") == "/docs/this%3Athat")
        #expect(try target("/mail/\("fred@example.com")") == "/mail/fred%40example.com")
        // The same characters in literal text keep their meaning.
        #expect(try target("/docs/name;v=1.1") == "/docs/name;v=1.1")
    }

    /// RFC 3986 §3.3: "The path segments "." and "..", also known as
    /// dot-segments, are defined for relative reference within the path name
    /// hierarchy" — they name no resource of their own, and an empty segment
    /// is merged away by many servers. A value that would make one fails.
    @Test func aValueThatWouldBeADotSegmentOrEmptyFails() throws {
        for value in ["", ".", ".."] {
            #expect(refuses("/members/\(value)"), "\(value.debugDescription) at the end")
            #expect(refuses("/members/\(value)/photos"), "\(value.debugDescription) in the middle")
            #expect(refuses("\(value)"), "\(value.debugDescription) alone")
        }
        #expect(refuses("/members/\(".")\(".")/photos"))
        #expect(refuses("/members/\("")\("")"))
        // Literal dot-segments and empty segments are the caller's own.
        #expect(try target("/a/../b//c") == "/a/../b//c")
        #expect(try target("/a/\("")b") == "/a/b")
    }

    /// The target it replaced: one `URLComponents` pass over the base URL.
    func componentsTarget(base: URL, path: String, query: [URLQueryItem]) throws -> String {
        var components = try #require(URLComponents(url: base, resolvingAgainstBaseURL: false))
        components.path = components.path + (path.hasPrefix("/") ? path : "/" + path)
        if !query.isEmpty { components.queryItems = query }
        var target = components.percentEncodedPath
        if let query = components.percentEncodedQuery { target += "?" + query }
        return target
    }

    @Test func randomPathsAndQueriesMatchURLComponents() throws {
        let alphabet = Array(" !\"#$%&'()*+,-./0123456789:;<=>?@AZaz[\\]^_`{|}~é€😀\t")
        var generator = SystemRandomNumberGenerator()
        func text(_ length: Int) -> String {
            String((0..<length).map { _ in alphabet.randomElement(using: &generator) ?? "a" })
        }
        let base = try #require(URL(string: "https://api.test/v1"))
        for _ in 0..<2_000 {
            // No `?` in paths: the client refuses those before it gets here.
            let path = "/" + text(Int.random(in: 0...12, using: &generator)).replacingOccurrences(of: "?", with: "")
            let query = (0..<Int.random(in: 0...3, using: &generator)).map { _ in
                URLQueryItem(
                    name: text(Int.random(in: 1...6, using: &generator)),
                    value: Bool.random(using: &generator) ? text(Int.random(in: 0...6, using: &generator)) : nil
                )
            }
            let expected = try componentsTarget(base: base, path: path, query: query)
            let made = try #require(RequestTarget(baseURL: base)).target(path: path, query: query)
            #expect(made == expected, "path \(path.debugDescription), query \(query)")
        }
    }
}
