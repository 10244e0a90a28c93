import Foundation
import FuzzSupport
import HTTPTypes

@testable import BaselineHTTP

// Properties: field values are independent (several values offer Basic when
// one of them does, whatever quotes another leaves open); a value that
// starts with the Basic challenge offers it. Through `BasicAuthentication`
// sending after a challenge, with the two values as a 401's
// `WWW-Authenticate` fields (as `HTTPFields` keeps them): the request is sent
// again, with the credentials, exactly when the fields offer Basic, and
// always when a `Basic` field follows them; never for another status.
/// Runs one input of libFuzzer's: returns 0, or stops the process when a
/// property fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count: count)
    let split = input.byte()
    let text = input.restAsText()
    let cut = text.index(text.startIndex, offsetBy: Int(split) % (text.count + 1))
    let (first, second) = (String(text[..<cut]), String(text[cut...]))
    let separate = BasicAuthentication.offersBasic([first, second])
    let expected = BasicAuthentication.offersBasic([first]) || BasicAuthentication.offersBasic([second])
    require(separate == expected, "[\(first), \(second)]: \(separate), one by one: \(expected)")
    require(
        BasicAuthentication.offersBasic([text, "Basic realm=\"x\""]),
        "a second value offering Basic was missed after \(text)"
    )
    require(BasicAuthentication.offersBasic(["Basic, " + text]), "Basic first, then \(text), was missed")

    let fields = [HTTPField(name: .wwwAuthenticate, value: first), HTTPField(name: .wwwAuthenticate, value: second)]
    let offered = BasicAuthentication.offersBasic(fields.map(\.value))
    let outcomes = synchronously {
        (
            await authorizations(status: .unauthorized, fields: fields),
            await authorizations(
                status: .unauthorized,
                fields: fields + [HTTPField(name: .wwwAuthenticate, value: "Basic")]
            ),
            await authorizations(status: .forbidden, fields: fields)
        )
    }
    guard case .success(let (challenged, withBasic, forbidden)) = outcomes else {
        require(false, "the middleware failed: \(outcomes)")
        return 0
    }
    let credentials = "Basic " + Data("user:pass".utf8).base64EncodedString()
    require(
        challenged == (offered ? [nil, credentials] : [nil]),
        "fields \([first, second]) (offering Basic: \(offered)) sent \(challenged)"
    )
    require(withBasic == [nil, credentials], "a Basic field after \([first, second]) sent \(withBasic)")
    require(forbidden == [nil], "a 403 sent \(forbidden)")
    return 0
}

/// The `Authorization` of each request the middleware sent, the first
/// answered with `status` and `fields`, any other with 200.
func authorizations(status: HTTPResponse.Status, fields: [HTTPField]) async -> [String?] {
    let middleware = BasicAuthentication(username: "user", password: "pass", sends: .afterChallenge)
    let sent = Recorder()
    let request = HTTPRequest(method: .get, scheme: "https", authority: "a.test", path: "/")
    _ = try? await middleware.intercept(request, body: nil) { request, _ in
        let count = sent.append(request.headerFields[.authorization])
        let head =
            count == 1 ? HTTPResponse(status: status, headerFields: HTTPFields(fields)) : HTTPResponse(status: .ok)
        return (head, HTTPBody(Data()))
    }
    return sent.values
}

/// Collects what the middleware's task sends.
// safety: the lock guards `recorded`, its only mutable state.
final class Recorder: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String?] = []

    var values: [String?] { lock.withLock { recorded } }

    /// The number of values after this one.
    func append(_ value: String?) -> Int {
        lock.withLock {
            recorded.append(value)
            return recorded.count
        }
    }
}

/// The program's entry point: hands the command line to libFuzzer.
@_cdecl("FuzzWWWAuthenticate_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
