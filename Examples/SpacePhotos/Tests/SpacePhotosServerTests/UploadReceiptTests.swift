import Foundation
import Testing

@testable import SpacePhotosServer

/// What an upload's receipt keeps is bounded: the multipart scanner cuts
/// names and counts parts, and the ledger counts bytes as well as receipts.
@Suite("Upload receipts: bounded metadata, a ledger bounded in bytes")
struct UploadReceiptTests {
    /// A multipart body of parts named `names` (each with a file name), each a few bytes long.
    static func body(names: [String], boundary: String = "b") -> [UInt8] {
        var text = ""
        for name in names {
            text +=
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(name).png\"\r\n\r\nabc\r\n"
        }
        text += "--\(boundary)--\r\n"
        return Array(text.utf8)
    }

    static func scan(_ body: [UInt8]) throws(MultipartScanner.Failure) -> [MultipartScanner.Part] {
        var scanner = try MultipartScanner(contentType: "multipart/form-data; boundary=b")
        try scanner.consume(body)
        return try scanner.finish()
    }

    @Test func longNamesAreCutAtACharacterBoundary() throws {
        // 6,000 bytes of two-byte characters (twice: name and file name,
        // within the 16 KiB of headers a part may have): a cut at 255 bytes
        // would split one, so the name keeps 127 of them (254 bytes).
        let long = String(repeating: "é", count: 3_000)
        let parts = try Self.scan(Self.body(names: [long, "short"]))
        #expect(parts.count == 2)
        #expect(parts[0].name == String(repeating: "é", count: 127))
        #expect(parts[0].filename == String(repeating: "é", count: 127))
        #expect(parts[0].bytes == 3)
        #expect(parts[1].name == "short")
        #expect(parts[1].filename == "short.png")
        let ascii = String(repeating: "n", count: 8_000)
        let cut = try Self.scan(Self.body(names: [ascii]))
        #expect(cut[0].name?.utf8.count == MultipartScanner.maximumNameLength)
        #expect(cut[0].filename?.utf8.count == MultipartScanner.maximumNameLength)
    }

    @Test func aThousandPartsAreFineAndOneMoreIsTooMany() throws {
        let names = (0..<MultipartScanner.maximumParts).map { "p\($0)" }
        #expect(try Self.scan(Self.body(names: names)).count == MultipartScanner.maximumParts)
        #expect(throws: MultipartScanner.Failure.tooManyParts) {
            try Self.scan(Self.body(names: names + ["one-more"]))
        }
    }

    static func receipt(parts: Int, nameLength: Int) -> UploadReceipt {
        let name = String(repeating: "x", count: nameLength)
        return UploadReceipt(
            id: UUID().uuidString.lowercased(),
            bytes: parts * 3,
            sha256: String(repeating: "0", count: 64),
            parts: (0..<parts).map { _ in MultipartScanner.Part(name: name, filename: name, bytes: 3) }
        )
    }

    @Test func theLedgerForgetsTheOldestPastItsByteLimit() async {
        let ledger = UploadLedger()
        // The largest receipts the scanner lets through: a thousand parts
        // with the longest names, about half a megabyte each.
        let large = (0..<40).map { _ in Self.receipt(parts: 1_000, nameLength: 255) }
        for receipt in large { await ledger.record(receipt) }
        #expect(await ledger.receipt(id: large[0].id) == nil)
        #expect(await ledger.receipt(id: large[39].id) == large[39])
        let kept = await ledger.count
        #expect(kept < 40)
        #expect(await ledger.bytes <= ledger.byteLimit)
        #expect(await ledger.bytes == large.suffix(kept).map(\.footprint).reduce(0, +))
    }

    @Test func theLedgerStillForgetsByCount() async {
        let ledger = UploadLedger(capacity: 10, byteLimit: 1 << 30)
        let small = (0..<25).map { _ in Self.receipt(parts: 0, nameLength: 0) }
        for receipt in small { await ledger.record(receipt) }
        #expect(await ledger.count == 10)
        for (index, receipt) in small.enumerated() {
            #expect(await ledger.receipt(id: receipt.id) == (index >= 15 ? receipt : nil))
        }
    }

    @Test func aReceiptOverTheWholeLimitIsStillKeptAlone() async {
        let ledger = UploadLedger(capacity: 10, byteLimit: 1_000)
        let first = Self.receipt(parts: 1, nameLength: 10)
        let huge = Self.receipt(parts: 100, nameLength: 100)
        await ledger.record(first)
        await ledger.record(huge)
        #expect(await ledger.receipt(id: first.id) == nil)
        #expect(await ledger.receipt(id: huge.id) == huge)
        #expect(await ledger.count == 1)
    }
}
