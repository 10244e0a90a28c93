internal import CZlib
import Foundation
import HTTPTypes

/// Why a file of a ``DiskCacheStore`` was not read as an entry.
enum CacheRecordError: Error, Equatable {
    /// It does not start as an entry does: another program's file, or garbage.
    case notARecord
    /// An entry of another format version.
    case unknownVersion(UInt8)
    /// Its checksum does not match: cut short, or changed on disk.
    case damaged
    /// A field does not hold what the format allows.
    case malformed(String)
    /// A whole entry, for another key whose file name is the same (a hash collision).
    case otherKey
}

/// The file format of ``DiskCacheStore``'s entries, version 1. Integers are
/// little-endian:
///
/// ```
/// "BLHC" version:u8
/// key:        length:u32 utf8
/// receivedAt: u64 (the bits of a Double, seconds since 1970)
/// status:     code:u16 reasonLength:u16 utf8
/// fields:     count:u32, then each name (length:u16 utf8), value (length:u32 utf8)
/// body:       length:u64 bytes
/// crc32 of all the above: u32
/// ```
///
/// A reader trusts nothing in a file: every length is checked against the
/// bytes left, and the checksum comes first, so a file cut short or changed
/// on disk is told from an entry.
enum CacheRecord {
    static let magic: [UInt8] = Array("BLHC".utf8)
    static let version: UInt8 = 1
    /// The bytes of an empty entry with an empty key: no file is shorter.
    static let minimumSize = 4 + 1 + 4 + 8 + 2 + 2 + 4 + 8 + 4

    /// The entry's bytes; `nil` when a part is too long for its length field.
    static func encode(_ entry: CachedResponse, key: String) -> [UInt8]? {
        let fields = entry.response.headerFields
        guard fields.count <= UInt32.max, key.utf8.count <= UInt32.max else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(minimumSize + key.utf8.count + entry.cost + fields.count * 6 + 64)
        bytes += magic
        bytes.append(version)
        append(UInt32(key.utf8.count), to: &bytes)
        bytes += key.utf8
        append(entry.receivedAt.timeIntervalSince1970.bitPattern, to: &bytes)
        let reason = entry.response.status.reasonPhrase.utf8
        guard let code = UInt16(exactly: entry.response.status.code), reason.count <= UInt16.max else { return nil }
        append(code, to: &bytes)
        append(UInt16(reason.count), to: &bytes)
        bytes += reason
        append(UInt32(fields.count), to: &bytes)
        for field in fields {
            let name = field.name.rawName.utf8
            let value = field.value.utf8
            guard name.count <= UInt16.max, value.count <= UInt32.max else { return nil }
            append(UInt16(name.count), to: &bytes)
            bytes += name
            append(UInt32(value.count), to: &bytes)
            bytes += value
        }
        append(UInt64(entry.body.count), to: &bytes)
        bytes += entry.body
        append(checksum(bytes[...]), to: &bytes)
        return bytes
    }

    /// The entry in `bytes`, if they hold one for `key`.
    static func decode(_ bytes: [UInt8], key: String) throws(CacheRecordError) -> CachedResponse {
        guard bytes.count >= minimumSize, bytes.starts(with: magic) else { throw .notARecord }
        guard bytes[4] == version else { throw .unknownVersion(bytes[4]) }
        let end = bytes.count - 4
        var stored = Reader(bytes: bytes[end...])
        guard try stored.integer(UInt32.self) == checksum(bytes[..<end]) else { throw .damaged }

        var reader = Reader(bytes: bytes[5..<end])
        let storedKey = try reader.bytes(count: reader.integer(UInt32.self))
        guard storedKey.elementsEqual(key.utf8) else { throw .otherKey }
        let receivedAt = Double(bitPattern: try reader.integer(UInt64.self))
        guard receivedAt.isFinite else { throw .malformed("receivedAt") }
        let code = Int(try reader.integer(UInt16.self))
        let reason = String(decoding: try reader.bytes(count: reader.integer(UInt16.self)), as: UTF8.self)
        guard (100...999).contains(code) else { throw .malformed("status \(code)") }
        let fieldCount = try reader.integer(UInt32.self)
        var fields = HTTPFields()
        for _ in 0..<fieldCount {
            let nameBytes = try reader.bytes(count: reader.integer(UInt16.self))
            guard let name = HTTPField.Name(String(decoding: nameBytes, as: UTF8.self)) else {
                throw .malformed("field name")
            }
            let value = String(decoding: try reader.bytes(count: reader.integer(UInt32.self)), as: UTF8.self)
            fields.append(HTTPField(name: name, value: value))
        }
        let body = Data(try reader.bytes(count: reader.integer(UInt64.self)))
        guard reader.isAtEnd else { throw .malformed("bytes after the body") }
        return CachedResponse(
            response: HTTPResponse(status: .init(code: code, reasonPhrase: reason), headerFields: fields),
            body: body,
            receivedAt: Date(timeIntervalSince1970: receivedAt)
        )
    }

    private static func append<Integer: FixedWidthInteger>(_ value: Integer, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    /// zlib's CRC-32 of `bytes`.
    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.withUnsafeBufferPointer { buffer in
            var crc = crc32(0, nil, 0)
            var start = buffer.baseAddress
            var left = buffer.count
            while left > 0, let pointer = start {
                let chunk = min(left, Int(UInt32.max))
                crc = crc32(crc, pointer, uInt(chunk))
                start = pointer + chunk
                left -= chunk
            }
            return UInt32(truncatingIfNeeded: crc)
        }
    }

    /// Reads integers and runs of bytes, never past its slice.
    struct Reader {
        var bytes: ArraySlice<UInt8>

        var isAtEnd: Bool { bytes.isEmpty }

        mutating func integer<Integer: FixedWidthInteger>(_: Integer.Type) throws(CacheRecordError) -> Integer {
            let size = MemoryLayout<Integer>.size
            guard bytes.count >= size else { throw .damaged }
            var value: Integer = 0
            for (shift, byte) in bytes.prefix(size).enumerated() {
                value |= Integer(byte) << (shift * 8)
            }
            bytes.removeFirst(size)
            return value
        }

        mutating func bytes<Count: FixedWidthInteger>(count: Count) throws(CacheRecordError) -> ArraySlice<UInt8> {
            guard let count = Int(exactly: count), count <= bytes.count else { throw .damaged }
            defer { bytes.removeFirst(count) }
            return bytes.prefix(count)
        }
    }
}
