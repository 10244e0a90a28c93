import Foundation
import HTTPTypes

/// Seconds as HTTP caching writes them (RFC 9111 §1.2.2): `delta-seconds`,
/// one or more ASCII digits, for `Age` and the `max-age` directive.
///
/// Read by hand because `Int(_:)` takes `+5` and `-5`, and `TimeInterval(_:)`
/// takes `1e19`, `inf` and `0x10`, none of which is delta-seconds, and
/// because a number too large for the cache counts as 2^31 seconds rather
/// than as invalid.
enum DeltaSeconds {
    /// What a value too large to represent counts as (RFC 9111 §1.2.2):
    /// 2^31 seconds, or `Int.max` where `Int` has 32 bits.
    static let maximum = Int(clamping: Int64(1) << 31)

    /// The seconds `text` gives, at most ``maximum``; `nil` when it is not
    /// delta-seconds (empty, or anything but ASCII digits).
    static func parse(_ text: some StringProtocol) -> Int? {
        guard !text.utf8.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in text.utf8 {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            // At most 2^31 × 10 + 9 before the clamp: no overflow in 64 bits.
            value = min(Int64(maximum), value * 10 + Int64(byte - UInt8(ascii: "0")))
        }
        return Int(value)
    }

    /// `seconds` as whole delta-seconds: rounded down, and clamped to
    /// `0...maximum` (not a number counts as 0), so it always converts.
    static func clamping(_ seconds: TimeInterval) -> Int {
        guard seconds > 0 else { return 0 }  // also NaN
        return seconds >= TimeInterval(maximum) ? maximum : Int(seconds.rounded(.down))
    }
}

/// An entity tag (RFC 9110 §8.8.3): `"xyzzy"`, or `W/"xyzzy"` when weak.
struct EntityTag: Equatable, Sendable {
    /// Whether the tag is weak (`W/`).
    var isWeak: Bool
    /// The characters between the quotes.
    var opaque: Substring

    /// The tag `text` spells, spaces around it allowed; `nil` when it is not
    /// one: no quotes, a character outside `etagc`, or anything after the
    /// closing quote.
    init?(_ text: some StringProtocol) {
        // Byte by byte: `W/"` is three bytes, whatever combining mark follows.
        var rest = Substring(text).trimmingWhitespace().utf8[...]
        isWeak = rest.starts(with: "W/".utf8)
        if isWeak { rest = rest.dropFirst(2) }
        guard rest.count >= 2, rest.first == UInt8(ascii: "\""), rest.last == UInt8(ascii: "\"") else { return nil }
        let inner = rest.dropFirst().dropLast()
        // etagc = %x21 / %x23-7E / obs-text: visible characters but the quote.
        guard inner.allSatisfy({ $0 == 0x21 || (0x23...0x7E).contains($0) || $0 >= 0x80 }) else { return nil }
        opaque = Substring(inner)
    }

    /// The tag as a field value.
    var text: String { (isWeak ? "W/\"" : "\"") + opaque + "\"" }

    /// Weak comparison (RFC 9110 §8.8.3.2): the same opaque tag, either
    /// or both weak. What `If-None-Match` uses, and what selects a stored
    /// response for a 304's update.
    func matchesWeakly(_ other: EntityTag) -> Bool {
        opaque == other.opaque
    }

    /// Strong comparison: neither weak, the same opaque tag.
    func matchesStrongly(_ other: EntityTag) -> Bool {
        !isWeak && !other.isWeak && opaque == other.opaque
    }
}

/// The request header fields a response varies on (RFC 9110 §12.5.5).
enum Vary: Equatable {
    /// `Vary: *`: something other than header fields.
    case anything
    /// These field names, lowercased; empty when the response does not vary.
    case fields(Set<String>)

    /// What every `Vary` field of `fields` says together. Names compare
    /// without case, in any order, however the list is split into fields;
    /// empty list elements count for nothing.
    init(_ fields: HTTPFields) {
        var names: Set<String> = []
        for value in fields[values: .vary] {
            for element in value.splitScalars(at: ",") {
                let name = element.trimmingWhitespace()
                if name.isEmpty { continue }
                if name == "*" {
                    self = .anything
                    return
                }
                names.insert(name.lowercased())
            }
        }
        self = .fields(names)
    }

    /// Whether a response that varies so may be stored by a cache that
    /// keys entries on the URL alone: it varies on nothing, or only on
    /// `Accept-Encoding` (the body is stored as decoded, whatever the coding).
    var allowsURLKeyedStorage: Bool {
        switch self {
        case .anything: false
        case let .fields(names): names.isSubset(of: ["accept-encoding"])
        }
    }
}
