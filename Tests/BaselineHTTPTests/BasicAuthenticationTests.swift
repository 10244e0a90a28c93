import BaselineHTTP
import BaselineTesting
import Foundation
import HTTPTypes
import Testing

@Suite("BasicAuthentication", .timeLimit(.minutes(1)))
struct BasicAuthenticationTests {
    let transport = StubTransport()
    /// base64("user:pa55")
    let credentials = "Basic dXNlcjpwYTU1"

    @Test func sendsCredentialsWithEveryRequestByDefault() async throws {
        transport.on(.get, "/x", respond: .text("ok"))
        _ = try await send(
            apiRequest(.get, "/x"),
            through: [BasicAuthentication(username: "user", password: "pa55")],
            to: transport
        )
        #expect(transport.requests.map { $0.headerFields[.authorization] } == [credentials])
    }

    @Test(arguments: [#"Basic realm="intranet""#, #"Bearer realm="a, Basic b", basic realm="y""#])
    func afterAChallengeSendsCredentialsOnce(_ challenge: String) async throws {
        transport.on(.get, "/x") { [credentials] request in
            request.headerFields[.authorization] == credentials
                ? .text("ok") : .status(.unauthorized, headerFields: [.wwwAuthenticate: challenge])
        }
        let basic = BasicAuthentication(username: "user", password: "pa55", sends: .afterChallenge)
        let (response, _) = try await send(apiRequest(.get, "/x"), through: [basic], to: transport)
        #expect(response.status == .ok)
        #expect(transport.requests.map { $0.headerFields[.authorization] } == [nil, credentials])
    }

    @Test(arguments: [#"Bearer realm="api""#, #"Bearer realm="a, Basic b""#])
    func aChallengeForAnotherSchemeIsReturned(_ challenge: String) async throws {
        transport.on(.get, "/x", respond: .status(.unauthorized, headerFields: [.wwwAuthenticate: challenge]))
        let basic = BasicAuthentication(username: "user", password: "pa55", sends: .afterChallenge)
        let (response, _) = try await send(apiRequest(.get, "/x"), through: [basic], to: transport)
        #expect(response.status == .unauthorized)
        #expect(transport.requests.count == 1)
    }

    @Test func rejectedCredentialsAreReturnedNotRetriedAgain() async throws {
        transport.on(.get, "/x", respond: .status(.unauthorized, headerFields: [.wwwAuthenticate: "Basic"]))
        let basic = BasicAuthentication(username: "user", password: "pa55", sends: .afterChallenge)
        let (response, _) = try await send(apiRequest(.get, "/x"), through: [basic], to: transport)
        #expect(response.status == .unauthorized)
        #expect(transport.requests.count == 2)
    }
}
