import Foundation
import FuzzSupport
import HTTPTypes

@testable import BaselineHTTP

// Properties, by the first byte of the input:
// 0. Age (delta-seconds): a parsed value is the digits' number, or 2^31 when
//    larger; anything but digits is no value; ages are never negative nor
//    above 2^31, at any moment, and the served Age always prints.
// 1. Freshness: from fuzzed Cache-Control, Expires, Date and Age fields, the
//    lifetime is finite and never negative, the age grows with time and
//    stays in 0...2^31, an entry fresh later was fresh before, and a 304 with
//    those fields replaces the stored ones but for those that frame or
//    encode a body, which it never brings in.
// 2. Entity tags: a parsed tag prints back to itself; weak comparison is
//    reflexive and symmetric, strong comparison implies weak and takes no
//    weak tag; a 304's tag selects the entry exactly when it matches weakly.
// 3. Vary: the names read the same in any order, case or split into fields;
//    two lists together give the union, in either order; `*` anywhere means
//    anything, and only names other than Accept-Encoding forbid storage.
/// Runs one input of libFuzzer's: returns 0, or stops the process when a
/// property fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count: count)
    switch input.number(in: 0...3) {
    case 0: checkAge(&input)
    case 1: checkFreshness(&input)
    case 2: checkEntityTags(&input)
    default: checkVary(&input)
    }
    return 0
}

let maximum = 2_147_483_648
let received = Date(timeIntervalSince1970: 1_700_000_000)

/// Moments around `received`, from the input: near, far, and the extremes.
func moments(_ input: inout FuzzInput) -> [Date] {
    let near = TimeInterval(input.number(in: 0...255)) * TimeInterval(input.number(in: 1...255))
    let far = pow(10, TimeInterval(input.number(in: 0...18)))
    return [
        received, received.addingTimeInterval(near), received.addingTimeInterval(-near),
        received.addingTimeInterval(far), received.addingTimeInterval(-far), .distantPast, .distantFuture,
    ]
}

func checkAge(_ input: inout FuzzInput) {
    let nows = moments(&input)
    let text = input.restAsText()
    let parsed = DeltaSeconds.parse(text)
    let digits = !text.utf8.isEmpty && text.utf8.allSatisfy { (48...57).contains($0) }
    require((parsed != nil) == digits, "\(text.debugDescription) parsed to \(String(describing: parsed))")
    if let parsed {
        // The number the digits spell, without leading zeros: at most ten
        // digits fit 2^31, more are above it.
        let significant = text.drop { $0 == "0" }
        let expected = significant.count > 10 ? maximum : min(maximum, Int(significant) ?? 0)
        require(parsed == expected, "\(text) parsed to \(parsed), not \(expected)")
    }
    guard let name = HTTPField.Name("Age") else { return }
    let entry = CachedResponse(
        response: HTTPResponse(status: .ok, headerFields: HTTPFields([HTTPField(name: name, value: text)])),
        body: Data(),
        receivedAt: received
    )
    for now in nows {
        let age = entry.age(at: now)
        require((0...TimeInterval(maximum)).contains(age), "Age \(text.debugDescription) at \(now): \(age)")
        require((0...maximum).contains(DeltaSeconds.clamping(age)), "served Age of \(age)")
    }
}

func checkFreshness(_ input: inout FuzzInput) {
    let nows = moments(&input).sorted()
    let values = input.restAsText().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let names: [HTTPField.Name] = [.cacheControl, .expires, .date, .age, .contentLength, .contentEncoding, .eTag]
    var fields = HTTPFields()
    for (name, value) in zip(names, values) {
        fields.append(HTTPField(name: name, value: value))
    }
    let entry = CachedResponse(
        response: HTTPResponse(status: .ok, headerFields: fields),
        body: Data("stored".utf8),
        receivedAt: received
    )
    let lifetime = entry.freshnessLifetime
    require(lifetime.isFinite && lifetime >= 0, "lifetime \(lifetime) for \(fields)")
    var previous: (age: TimeInterval, fresh: Bool)?
    for now in nows {
        let age = entry.age(at: now)
        let fresh = entry.isFresh(at: now)
        require((0...TimeInterval(maximum)).contains(age), "age \(age) at \(now) for \(fields)")
        if let previous {
            require(age >= previous.age, "age went back from \(previous.age) to \(age) for \(fields)")
            require(previous.fresh || !fresh, "stale, then fresh again for \(fields)")
        }
        previous = (age, fresh)
    }
    // The same fields, as a 304, update a copy stored without them.
    var bare = entry
    bare.response.headerFields = [:]
    let updated = bare.revalidated(by: fields, at: nows[nows.count / 2])
    for name in CachedResponse.fieldsNotUpdatedByNotModified {
        require(updated.response.headerFields[values: name].isEmpty, "a 304 brought in \(name)")
    }
    for name in Set(fields.map(\.name)).subtracting(CachedResponse.fieldsNotUpdatedByNotModified) {
        require(
            updated.response.headerFields[values: name] == fields[values: name],
            "a 304's \(name) did not replace the stored one"
        )
    }
    require(updated.body == entry.body, "a 304 changed the body")
    let updatedLifetime = updated.freshnessLifetime
    require(updatedLifetime.isFinite && updatedLifetime >= 0, "lifetime after a 304: \(updatedLifetime)")
}

func checkEntityTags(_ input: inout FuzzInput) {
    let texts = input.restAsText().split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
    let first = String(texts[0])
    let second = texts.count > 1 ? String(texts[1]) : first
    let a = EntityTag(first)
    let b = EntityTag(second)
    for tag in [a, b].compactMap({ $0 }) {
        require(EntityTag(tag.text) == tag, "\(tag.text) does not parse back to itself")
        require(tag.matchesWeakly(tag), "\(tag.text) does not match itself weakly")
        require(tag.matchesStrongly(tag) == !tag.isWeak, "\(tag.text) strong self-match")
    }
    if let a, let b {
        require(a.matchesWeakly(b) == b.matchesWeakly(a), "weak comparison of \(a.text), \(b.text) is not symmetric")
        require(a.matchesStrongly(b) == b.matchesStrongly(a), "strong comparison is not symmetric")
        require(!a.matchesStrongly(b) || a.matchesWeakly(b), "\(a.text) matches \(b.text) strongly, not weakly")
    }
    // A 304 carrying `second` about an entry stored with `first`.
    var stored = HTTPFields()
    stored.append(HTTPField(name: .eTag, value: first))
    var answered = HTTPFields()
    answered.append(HTTPField(name: .eTag, value: second))
    guard let storedValue = stored[.eTag], let answeredValue = answered[.eTag] else { return }
    let entry = CachedResponse(
        response: HTTPResponse(status: .ok, headerFields: stored),
        body: Data(),
        receivedAt: received
    )
    let selected = entry.isSelected(byNotModified: answered)
    if let storedTag = EntityTag(storedValue), let answeredTag = EntityTag(answeredValue) {
        require(
            selected == storedTag.matchesWeakly(answeredTag),
            "\(answeredValue) selects \(storedValue): \(selected)"
        )
    } else {
        require(selected == (storedValue == answeredValue), "malformed \(answeredValue) selects \(storedValue)")
    }
    require(entry.isSelected(byNotModified: [:]), "a 304 without a tag did not select the entry")
}

func checkVary(_ input: inout FuzzInput) {
    let cut = input.number(in: 0...255)
    let lines = input.restAsText().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    func vary(_ values: [String]) -> Vary {
        var fields = HTTPFields()
        for value in values { fields.append(HTTPField(name: .vary, value: value)) }
        return Vary(fields)
    }
    // Header values as HTTPFields keeps them (it may legalise them).
    let kept = lines.compactMap { value -> String? in
        var fields = HTTPFields()
        fields.append(HTTPField(name: .vary, value: value))
        return fields[.vary]
    }
    let whole = vary(kept)
    require(vary(kept.reversed()) == whole, "order changed \(kept)")
    require(vary([kept.joined(separator: ",")]) == whole, "joining into one field changed \(kept)")
    require(vary(kept.map { asciiCase($0, upper: true) }) == whole, "upper case changed \(kept)")
    require(vary(kept.map { asciiCase($0, upper: false) }) == whole, "lower case changed \(kept)")
    let split = min(cut, kept.count)
    let (left, right) = (vary(Array(kept[..<split])), vary(Array(kept[split...])))
    require(vary(Array(kept[split...]) + Array(kept[..<split])) == whole, "two halves swapped changed \(kept)")
    switch (left, right, whole) {
    case (.anything, _, let both), (_, .anything, let both):
        require(both == .anything, "* in one half, not in \(kept)")
    case let (.fields(l), .fields(r), both):
        require(both == .fields(l.union(r)), "\(kept) is not the union of its halves")
    }
    if case let .fields(names) = whole {
        require(names.allSatisfy { !$0.isEmpty && $0 == $0.lowercased() }, "names \(names)")
        require(whole.allowsURLKeyedStorage == names.isSubset(of: ["accept-encoding"]), "storage for \(names)")
    } else {
        require(!whole.allowsURLKeyedStorage, "Vary: * allowed storage")
    }
}

/// `text` with its ASCII letters in one case, the rest as it is (field
/// names compare without case; other scripts' case rules do not apply).
func asciiCase(_ text: String, upper: Bool) -> String {
    String(
        decoding: text.utf8.map { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z") where upper: byte - 32
            case UInt8(ascii: "A")...UInt8(ascii: "Z") where !upper: byte + 32
            default: byte
            }
        },
        as: UTF8.self
    )
}

/// The program's entry point: hands the command line to libFuzzer.
@_cdecl("FuzzCacheHeaders_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
