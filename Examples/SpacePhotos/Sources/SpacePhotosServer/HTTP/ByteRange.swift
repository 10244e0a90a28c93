/// The one byte range a `Range: bytes=…` header asks of a representation
/// (RFC 9110 §14.1.2), resolved against its size.
enum ByteRange: Equatable {
    /// Send these bytes with 206 Partial Content.
    case satisfiable(Range<Int>)
    /// No byte of the request is in the representation: 416.
    case unsatisfiable
    /// Serve the whole representation with 200: there is no range, or one
    /// the server may ignore (several ranges, another unit, bad syntax).
    case whole

    init(header: String?, size: Int) {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else {
            self = .whole
            return
        }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            self = .whole
            return
        }
        let first = parts[0].isEmpty ? nil : Int(parts[0])
        let last = parts[1].isEmpty ? nil : Int(parts[1])
        switch (parts[0].isEmpty, first, parts[1].isEmpty, last) {
        case (false, let start?, true, _) where start >= 0:
            // bytes=start-
            self = start < size ? .satisfiable(start..<size) : .unsatisfiable
        case (false, let start?, false, let end?) where start >= 0 && end >= start:
            // bytes=start-end, the end clamped to the size
            self = start < size ? .satisfiable(start..<min(end + 1, size)) : .unsatisfiable
        case (true, _, false, let suffix?) where suffix >= 0:
            // bytes=-suffix: the last `suffix` bytes
            self = suffix > 0 && size > 0 ? .satisfiable(max(0, size - suffix)..<size) : .unsatisfiable
        default:
            self = .whole
        }
    }
}
