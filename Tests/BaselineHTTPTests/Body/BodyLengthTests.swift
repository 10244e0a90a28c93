import Foundation
import Testing

@testable import BaselineHTTP

@Suite("HTTPBody: lengths from files and limits never overflow")
struct BodyLengthTests {
    @Test func partsWhoseSizesOverflowFailInsteadOfTrapping() throws {
        // A sparse file can claim up to 8 EiB: two such parts are more than `Int.max`.
        let file = URL(fileURLWithPath: "/sparse")
        #expect {
            try HTTPBody(segments: [.file(file, length: .max), .data(Data([1]))])
        } throws: { error in
            if case .invalidRequest = error as? HTTPClientError { true } else { false }
        }
        let body = try HTTPBody(segments: [.file(file, length: .max - 1), .data(Data([1]))])
        #expect(body.knownLength == .max)
    }

    @Test func aLimitOfIntMaxHoldsAnyBody() async throws {
        let (chunks, feed) = AsyncThrowingStream.makeStream(of: Data.self)
        feed.yield(Data([1, 2]))
        feed.yield(Data([3]))
        feed.finish()
        #expect(try await HTTPBody(chunks, length: nil).collect(upTo: .max) == Data([1, 2, 3]))
    }
}
