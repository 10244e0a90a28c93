import Foundation
import FuzzSupport
import HTTPTypes

@testable import BaselineHTTP

// The disk cache's entry files are outside bytes: anything may be in them.
// Properties, by the first byte of the input:
// 0. Any bytes: reading them as an entry returns one or throws, never traps.
// 1. Any bytes framed as an entry (the header before, a right checksum
//    after), so the reader gets past the checksum: an entry read is written
//    back to bytes that read as the same entry.
// 2. An entry made from the input: it reads back the same; cut short
//    anywhere or with any byte changed, it reads as no entry.
/// Runs one input of libFuzzer's: returns 0, or stops the process when a
/// property fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count: count)
    switch input.number(in: 0...2) {
    case 0: _ = try? CacheRecord.decode(input.rest(), key: "k")
    case 1: checkFramed(&input)
    default: checkDamage(&input)
    }
    return 0
}

func checkFramed(_ input: inout FuzzInput) {
    var bytes = CacheRecord.magic + [CacheRecord.version] + input.rest()
    withUnsafeBytes(of: CacheRecord.checksum(bytes[...]).littleEndian) { bytes += $0 }
    // The key is the bytes' own, when they start with a length that fits.
    let key = keyIn(bytes)
    guard let entry = try? CacheRecord.decode(bytes, key: key) else { return }
    guard let again = CacheRecord.encode(entry, key: key) else {
        require(false, "an entry read could not be written")
        return
    }
    do {
        let reread = try CacheRecord.decode(again, key: key)
        requireSame(reread, entry)
    } catch {
        require(false, "an entry written back does not read: \(error)")
    }
}

func keyIn(_ bytes: [UInt8]) -> String {
    guard bytes.count >= 9 else { return "" }
    let length = Int(bytes[5]) | Int(bytes[6]) << 8 | Int(bytes[7]) << 16 | Int(bytes[8]) << 24
    guard length <= bytes.count - 9 else { return "" }
    return String(decoding: bytes[9..<(9 + length)], as: UTF8.self)
}

func checkDamage(_ input: inout FuzzInput) {
    let cut = input.number(in: 0...255) * 256 + input.number(in: 0...255)
    let flip = UInt8(input.number(in: 1...255))
    let lines = input.restAsText().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let key = lines.first ?? ""
    var fields = HTTPFields()
    for line in lines.dropFirst().dropLast() {
        let parts = line.split(separator: ":", maxSplits: 1)
        guard let name = parts.first.flatMap({ HTTPField.Name(String($0)) }) else { continue }
        fields.append(HTTPField(name: name, value: parts.count > 1 ? String(parts[1]) : ""))
    }
    let entry = CachedResponse(
        response: HTTPResponse(status: .init(code: 200 + cut % 800, reasonPhrase: key), headerFields: fields),
        body: Data((lines.last ?? "").utf8),
        receivedAt: Date(timeIntervalSince1970: Double(cut) * 1_000.25)
    )
    guard let bytes = CacheRecord.encode(entry, key: key) else {
        require(false, "an entry could not be written")
        return
    }
    do {
        requireSame(try CacheRecord.decode(bytes, key: key), entry)
    } catch {
        require(false, "an entry does not read back: \(error)")
    }
    let position = cut % bytes.count
    let short = Array(bytes[..<position])
    require((try? CacheRecord.decode(short, key: key)) == nil, "cut to \(position) of \(bytes.count) bytes, it read")
    var changed = bytes
    changed[position] ^= flip
    require((try? CacheRecord.decode(changed, key: key)) == nil, "byte \(position) changed, it read")
}

func requireSame(_ read: CachedResponse, _ written: CachedResponse) {
    require(read.response == written.response, "head \(read.response) is not \(written.response)")
    require(read.response.status.reasonPhrase == written.response.status.reasonPhrase, "reason phrase")
    require(read.body == written.body, "body")
    require(read.receivedAt == written.receivedAt, "date \(read.receivedAt) is not \(written.receivedAt)")
}

/// The program's entry point: hands the command line to libFuzzer.
@_cdecl("FuzzCacheRecord_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
