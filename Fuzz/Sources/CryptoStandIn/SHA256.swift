import Foundation

/// Stands in for swift-crypto's `SHA256` where `EntityTag.swift` makes tags
/// from digests: the fuzz target tests the tag list parser of that file, and
/// building swift-crypto with sanitizers would cost minutes. Not a hash.
public enum SHA256 {
    /// The first 32 bytes of `data`: distinct inputs give distinct tags often
    /// enough for the parser under test.
    public static func hash(data: some DataProtocol) -> [UInt8] {
        Array(data.prefix(32))
    }
}
