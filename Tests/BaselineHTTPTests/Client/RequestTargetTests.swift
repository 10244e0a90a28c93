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
