/// The bodies of `GET /compressible/…`, before any compression, so that a
/// client test can check what it inflated against ``bytes(_:count:)``.
public enum CompressibleContent: String, Sendable, CaseIterable {
    /// Lines of text that differ only in a counter: compresses about 10:1.
    case text
    /// Zero bytes: compresses about 1000:1, the shape of a "zip bomb".
    case zeros

    /// The first `count` bytes of this content.
    public func bytes(count: Int) -> [UInt8] {
        switch self {
        case .zeros:
            return [UInt8](repeating: 0, count: count)
        case .text:
            var bytes: [UInt8] = []
            bytes.reserveCapacity(count + 80)
            var line = 0
            while bytes.count < count {
                line += 1
                bytes += Array("Line \(line): Baseline inflates this the same way on every transport.\n".utf8)
            }
            return Array(bytes.prefix(count))
        }
    }
}
