import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import NIOCore
import Testing

@testable import SpacePhotosServer

/// Random requests (``RandomRequests``) through the example server's router,
/// in process (HummingbirdTesting's router client, no sockets), checking
/// properties of every answer rather than given ones:
/// - nothing traps (the test process would end);
/// - no 5xx but those a request asks for (`?fail=`, `/flaky`, a failing
///   date), and no error but a body broken on purpose (`?cutAt=`, `?dropAfter=`);
/// - every error but 416 is the server's JSON error document; a 206 or 416
///   carries a `Content-Range` that agrees with the body;
/// - the tables the server keeps (upload receipts, refresh tokens, login
///   failures, flaky-key counts) stay within their bounds, which are set
///   small here so that the runs reach them.
///
/// Each run is seeded and replays exactly: `ROUTER_PROPERTY_SEED=<n>` runs
/// one seed, `ROUTER_PROPERTY_REQUESTS=<n>` sets the number of requests per
/// seed. A failure names its seed and request number.
@Suite("The server's router under random requests", .serialized, .timeLimit(.minutes(10)))
struct RouterPropertyTests {
    static let environment = ProcessInfo.processInfo.environment

    static var seeds: [UInt64] {
        if let text = environment["ROUTER_PROPERTY_SEED"], let seed = UInt64(text) { return [seed] }
        return [1, 2, 3]
    }

    static var requestCount: Int {
        environment["ROUTER_PROPERTY_REQUESTS"].flatMap { Int($0) }.map { max($0, 1) } ?? 1_000
    }

    @Test(arguments: seeds)
    func randomRequestsGetSoundAnswersAndTheTablesStayBounded(seed: UInt64) async throws {
        let clock = NIOLockedValueBox(Date(timeIntervalSince1970: 1_750_000_000))
        let server = ExampleServer(
            configuration: .init(
                passwordHasher: PasswordHasher(cost: 4),
                tokenSigner: .random(lifetime: .seconds(600)),
                maxUploadBytes: 256 * 1024,
                flakyKeyLimit: 50,
                failingPhotoDates: [RandomRequests.failingDate],
                now: { clock.withLockedValue { $0 } }
            )
        )
        let state = ExampleServer.State(
            limiter: LoginRateLimiter(),
            refreshTokens: RefreshTokenStore(lifetime: .seconds(3_600), retiredPerChain: 3, maximumChains: 8),
            uploads: UploadLedger(capacity: 20, byteLimit: 256 * 1024),
            attempts: AttemptCounter(capacity: 50)
        )
        let app = Application(router: try await server.makeRouter(state: state))
        let count = Self.requestCount
        let memoryBefore = Self.residentMemory()

        let generator = try await app.test(.router) { client in
            var generator = RandomRequests(seed: seed)
            var statuses: [Int: Int] = [:]
            // Resident memory after each quarter of the run, for the record
            // only: the router client holds some memory per request itself
            // (as much with GET /health alone), so the bounds are checked on
            // the sizes of the server's tables.
            var memory: [Int] = []
            for index in 0..<count {
                let request = generator.next()
                let context = "seed \(seed), request \(index): \(request)"
                // A second per request: login failures, tokens and photo days move on.
                clock.withLockedValue { $0 += 1 }
                let response: TestResponse
                do {
                    response = try await client.executeRequest(
                        uri: request.uri,
                        method: request.method,
                        headers: request.headers,
                        body: request.body
                    )
                } catch {
                    #expect(request.mayBreakBody, "\(context) threw \(error)")
                    continue
                }
                statuses[response.status.code, default: 0] += 1
                Self.check(response, to: request, context: context)
                generator.learn(from: response, to: request)
                if index % 100 == 99 { try await Self.checkBounds(state, generator: generator, context: context) }
                if (index + 1) % max(count / 4, 1) == 0 { memory.append(Self.residentMemory()) }
            }
            try await Self.checkBounds(state, generator: generator, context: "seed \(seed), at the end")
            let summary = statuses.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
            print("Router property run, seed \(seed): \(count) requests; statuses \(summary)")
            let quarters = memory.map { "\($0 / 1024)" }.joined(separator: ", ")
            print("Router property run, seed \(seed): resident memory after each quarter (KiB): \(quarters)")
            return generator
        }
        let memoryAfter = Self.residentMemory()
        print(
            "Router property run, seed \(seed): resident memory \(memoryBefore / 1024) KiB before, \(memoryAfter / 1024) KiB after; "
                + "tables: \(await state.uploads.count) receipts (\(await state.uploads.bytes) bytes), "
                + "\(await state.refreshTokens.tokenCount) refresh tokens in \(await state.refreshTokens.chainCount) chains, "
                + "\(await state.limiter.trackedIDs) of \(generator.loginIDs.count) login ids, \(await state.attempts.count) flaky keys"
        )
    }

    /// The properties of one answer.
    static func check(_ response: TestResponse, to request: RandomRequest, context: String) {
        let status = response.status.code
        if status >= 500 {
            #expect(
                request.deliberateFailure.contains(status),
                "\(context) got \(status): \(String(buffer: response.body).prefix(300))"
            )
        }
        if status >= 400, status != 416 {
            let document = try? JSONDecoder().decode(
                APIError.Document.self,
                from: Data(response.body.readableBytesView)
            )
            #expect(
                document != nil,
                "\(context) got \(status) without a JSON error: \(String(buffer: response.body).prefix(300))"
            )
        }
        let contentRange = response.headers[.contentRange]
        switch status {
        case 206:
            // bytes a-b/size, with b - a + 1 bytes in the body.
            let numbers = contentRange.map(Self.numbers) ?? []
            #expect(
                numbers.count == 3 && numbers[0] <= numbers[1] && numbers[1] < numbers[2]
                    && numbers[1] - numbers[0] + 1 == response.body.readableBytes,
                "\(context) got 206 with Content-Range \(contentRange ?? "none") and \(response.body.readableBytes) bytes"
            )
        case 416:
            #expect(
                contentRange?.hasPrefix("bytes */") == true,
                "\(context) got 416 with Content-Range \(contentRange ?? "none")"
            )
        default:
            break
        }
    }

    /// The tables stay within their bounds.
    static func checkBounds(_ state: ExampleServer.State, generator: RandomRequests, context: String) async throws {
        let (receipts, receiptBytes) = (await state.uploads.count, await state.uploads.bytes)
        #expect(receipts <= (await state.uploads.capacity), "\(context): \(receipts) receipts")
        #expect(
            receiptBytes <= (await state.uploads.byteLimit) || receipts == 1,
            "\(context): \(receiptBytes) bytes of receipts"
        )
        let (chains, tokens) = (await state.refreshTokens.chainCount, await state.refreshTokens.tokenCount)
        #expect(chains <= (await state.refreshTokens.maximumChains), "\(context): \(chains) chains")
        #expect(
            tokens <= chains * (1 + (await state.refreshTokens.retiredPerChain)),
            "\(context): \(tokens) tokens in \(chains) chains"
        )
        // A second per request: only the failures of the last minute or so
        // matter, a few dozen ids at most, whatever was tried before.
        let tracked = await state.limiter.trackedIDs
        #expect(tracked <= min(generator.loginIDs.count, 64), "\(context): the limiter holds \(tracked) ids")
        let keys = await state.attempts.count
        #expect(keys <= (await state.attempts.capacity), "\(context): \(keys) flaky keys")
    }

    /// The numbers of a `Content-Range` value, in order.
    static func numbers(_ text: String) -> [Int] {
        text.split { !$0.isNumber }.compactMap { Int($0) }
    }

    /// The process's resident memory in bytes (Linux), 0 where unknown.
    static func residentMemory() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return 0 }
        return kilobytes * 1024
    }
}

extension RandomRequests {
    /// Keeps what the server handed out (tokens, upload ids), to send back later.
    mutating func learn(from response: TestResponse, to request: RandomRequest) {
        guard response.status.code < 300,
            let object = try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))
                as? [String: Any]
        else { return }
        if let token = object["refreshToken"] as? String { refreshTokens = Array((refreshTokens + [token]).suffix(20)) }
        if let token = object["idToken"] as? String { idTokens = Array((idTokens + [token]).suffix(5)) }
        if request.uri == "/uploads", let id = object["id"] as? String {
            uploadIDs = Array((uploadIDs + [id]).suffix(30))
        }
    }
}
