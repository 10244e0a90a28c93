import FuzzSupport

// Properties: a satisfiable range is never empty and lies inside the
// representation; it prints as a header that gives it back; the unit's case
// changes nothing. Half of the inputs are built from range specs of digit
// strings (any length, leading zeros) and checked against a model that
// compares the numbers as decimal text, never converting one that could
// overflow, and joins the ranges byte by byte.
/// Runs one input of libFuzzer's: returns 0, or stops the process when a
/// property fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count: count)
    let structured = input.byte() & 1 == 1
    let size = representationSize(&input)
    let header: String
    var expected: Model?
    if structured {
        let built = buildHeader(&input, size: size)
        header = built.header
        expected = built.model
    } else {
        header = input.restAsText()
    }
    let range = ByteRange(header: header, size: size)
    checkShape(range, header: header, size: size)
    if let expected { expected.check(range, header: header, size: size) }

    // The unit is case-insensitive.
    let utf8 = Array(header.utf8)
    if utf8.count >= 5, String(decoding: utf8.prefix(5), as: UTF8.self).lowercased() == "bytes" {
        let shouted = "BYTES" + String(decoding: utf8.dropFirst(5), as: UTF8.self)
        let again = ByteRange(header: shouted, size: size)
        require(again == range, "\(header) gives \(range), \(shouted) gives \(again)")
    }
    return 0
}

/// The representation's size: small ones (where the model joins ranges byte
/// by byte), the server's sizes, and the extremes.
func representationSize(_ input: inout FuzzInput) -> Int {
    switch input.byte() % 4 {
    case 0: return Int(input.byte())
    case 1: return (Int(input.byte()) << 8 | Int(input.byte())) % 4_097
    case 2: return [1 << 20, 4 << 30, Int.max - 1, Int.max][Int(input.byte() % 4)]
    default:
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(input.byte()) }
        return Int(value & UInt64(Int.max))
    }
}

/// What any answer must look like, and how a satisfiable one prints.
func checkShape(_ range: ByteRange, header: String, size: Int) {
    guard case let .satisfiable(bytes) = range else { return }
    require(
        bytes.lowerBound >= 0 && bytes.lowerBound < bytes.upperBound && bytes.upperBound <= size,
        "\(header) gives \(bytes), outside 0..<\(size) or empty"
    )
    let printed = "bytes=\(bytes.lowerBound)-\(bytes.upperBound - 1)"
    require(ByteRange(header: printed, size: size) == range, "\(header) gives \(bytes); \(printed) does not")
    if bytes.upperBound == size {
        let open = "bytes=\(bytes.lowerBound)-"
        let suffix = "bytes=-\(size - bytes.lowerBound)"
        require(ByteRange(header: open, size: size) == range, "\(header) gives \(bytes); \(open) does not")
        require(ByteRange(header: suffix, size: size) == range, "\(header) gives \(bytes); \(suffix) does not")
    }
}

/// One range spec as digit strings: `first-last`, `first-` or `-suffix`.
struct SpecText {
    var first: String?
    var last: String?

    var text: String { "\(first ?? "")-\(last ?? "")" }
}

/// The answer a header of ``SpecText``s must get, worked out on decimal text.
struct Model {
    var specs: [SpecText]

    func check(_ range: ByteRange, header: String, size: Int) {
        // Every spec must be well formed: digits where the grammar wants
        // them, and an int-range's last not before its first.
        let valid = specs.allSatisfy { spec in
            switch (spec.first, spec.last) {
            case let (first?, last?): !first.isEmpty && !last.isEmpty && !isLess(last, than: first)
            case let (first?, nil): !first.isEmpty
            case let (nil, last?): !last.isEmpty
            case (nil, nil): false
            }
        }
        guard valid, !specs.isEmpty else {
            require(range == .whole, "\(header) is not a valid range set, yet gives \(range)")
            return
        }
        let sizeText = String(size)
        var wanted: [ClosedRange<Int>] = []
        for spec in specs {
            if let first = spec.first {
                guard isLess(first, than: sizeText), let start = Int(first) else { continue }
                let end = spec.last.flatMap { isLess($0, than: sizeText) ? Int($0) : nil } ?? size - 1
                wanted.append(start...end)
            } else if let suffix = spec.last {
                guard size > 0, isLess("0", than: suffix) else { continue }
                let length = isLess(suffix, than: sizeText) ? Int(suffix) ?? size : size
                wanted.append((size - length)...(size - 1))
            }
        }
        guard !wanted.isEmpty else {
            require(range == .unsatisfiable, "no range of \(header) is in \(size) bytes, yet it gives \(range)")
            return
        }
        let lowest = wanted.map(\.lowerBound).min() ?? 0
        let highest = wanted.map(\.upperBound).max() ?? 0
        guard size <= 4_096 else {
            // Too large to join byte by byte: a single answer spans them all.
            if case let .satisfiable(bytes) = range {
                require(
                    bytes == lowest..<(highest + 1),
                    "\(header) on \(size) bytes gives \(bytes), not \(lowest)...\(highest)"
                )
            } else {
                require(range == .whole && wanted.count > 1, "\(header) on \(size) bytes gives \(range)")
            }
            return
        }
        var covered = [Bool](repeating: false, count: size)
        for bytes in wanted { for index in bytes { covered[index] = true } }
        let contiguous = covered[lowest...highest].allSatisfy { $0 }
        let expected: ByteRange = contiguous ? .satisfiable(lowest..<(highest + 1)) : .whole
        require(range == expected, "\(header) on \(size) bytes gives \(range), not \(expected)")
    }
}

/// Whether decimal text `left` names a smaller number than `right`
/// (leading zeros allowed), without converting either.
func isLess(_ left: String, than right: String) -> Bool {
    let a = left.drop { $0 == "0" }
    let b = right.drop { $0 == "0" }
    if a.count != b.count { return a.count < b.count }
    return a < b
}

/// A header of up to six range specs built from the input, with spaces,
/// empty elements and the unit's case varied, and its model.
func buildHeader(_ input: inout FuzzInput, size: Int) -> (header: String, model: Model) {
    func digits() -> String {
        let length = Int(input.byte() % 26)
        return String((0..<length).map { _ in Character(String(input.byte() % 10)) })
    }
    var specs: [SpecText] = []
    var elements: [String] = []
    for _ in 0..<(1 + Int(input.byte() % 6)) {
        let spec: SpecText
        switch input.byte() % 3 {
        case 0: spec = SpecText(first: digits(), last: digits())
        case 1: spec = SpecText(first: digits(), last: nil)
        default: spec = SpecText(first: nil, last: digits())
        }
        // An int-range written `first-` and one whose last is empty are the same text.
        specs.append(spec.last == "" ? SpecText(first: spec.first, last: nil) : spec)
        let padding = [" ", "", "\t", "  "]
        let element = padding[Int(input.byte() % 4)] + spec.text + padding[Int(input.byte() % 4)]
        elements.append(element)
        if input.byte() % 8 == 0 { elements.append(" ") }  // an empty list element
    }
    let unit = ["bytes", "Bytes", "BYTES", "bYtEs"][Int(input.byte() % 4)]
    // A spec whose text is just "-" has no digits either side: not valid.
    let model = Model(specs: specs.map { $0.first == "" ? SpecText(first: nil, last: $0.last ?? "") : $0 })
    return (unit + "=" + elements.joined(separator: ","), model)
}

/// The program's entry point: hands the command line to libFuzzer.
@_cdecl("FuzzByteRange_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzOne)
}
