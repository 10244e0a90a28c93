import Foundation

/// The id and password of an `Authorization: Basic` header (RFC 7617).
struct BasicCredentials: Sendable, Equatable {
    var id: String
    var password: String

    /// The most header characters looked at: anything longer is not a demo login.
    static let maximumHeaderLength = 1_024

    /// Parses `Basic <base64(id:password)>`; nil for anything else
    /// (another scheme, bad base64, not UTF-8, no colon, too long).
    init?(authorization header: String) {
        guard header.utf8.count <= Self.maximumHeaderLength else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "basic" else { return nil }
        let encoded = parts[1].trimmingCharacters(in: .whitespaces)
        guard let data = Data(base64Encoded: encoded),
            let decoded = String(data: data, encoding: .utf8),
            let colon = decoded.firstIndex(of: ":")
        else { return nil }
        // The id cannot hold a colon (RFC 7617 §2); the password may.
        id = String(decoded[..<colon])
        password = String(decoded[decoded.index(after: colon)...])
    }
}
