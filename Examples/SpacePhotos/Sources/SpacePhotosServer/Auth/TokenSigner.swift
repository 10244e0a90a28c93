import Crypto
import Foundation

/// Issues and checks the server's ID tokens: an HMAC-SHA256 signed claim of
/// who the holder is and until when.
///
/// A token reads `v1.<payload>.<signature>`, both parts base64url. The payload
/// is JSON `{"sub": id, "iat": seconds, "exp": seconds}`. The signature covers
/// `v1.<payload>`, so neither the version nor the claims can be changed.
public struct TokenSigner: Sendable {
    /// Why a token was refused.
    public enum Failure: Error, Equatable {
        case malformed
        case badSignature
        case expired
    }

    struct Claims: Codable {
        var sub: String
        var iat: Int
        var exp: Int
    }

    private let key: SymmetricKey
    /// How long a token stays valid.
    public let lifetime: Duration

    /// A signer with `secret` as its key (at least 32 bytes are advised).
    public init(secret: Data, lifetime: Duration) {
        self.key = SymmetricKey(data: secret)
        self.lifetime = lifetime
    }

    /// A signer with a fresh random key: its tokens die with it.
    public static func random(lifetime: Duration) -> TokenSigner {
        TokenSigner(secret: SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }, lifetime: lifetime)
    }

    /// A token for `subject`, valid from `now` for ``lifetime``.
    public func issue(for subject: String, now: Date) -> String {
        let issuedAt = Int(now.timeIntervalSince1970)
        let claims = Claims(sub: subject, iat: issuedAt, exp: issuedAt + Int(lifetime.components.seconds))
        // Encoding three plain fields cannot fail.
        let payload = (try? JSONEncoder().encode(claims)) ?? Data()
        let signed = "v1." + Self.base64URL(payload)
        let signature = HMAC<SHA256>.authenticationCode(for: Data(signed.utf8), using: key)
        return signed + "." + Self.base64URL(Data(signature))
    }

    /// The subject of a valid token.
    public func verify(_ token: String, now: Date) throws(Failure) -> String {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "v1",
            let payload = Self.data(base64URL: parts[1]),
            let signature = Self.data(base64URL: parts[2])
        else { throw .malformed }
        let signed = Data("v1.\(parts[1])".utf8)
        guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: signed, using: key) else {
            throw .badSignature
        }
        guard let claims = try? JSONDecoder().decode(Claims.self, from: payload) else { throw .malformed }
        guard Double(claims.exp) > now.timeIntervalSince1970 else { throw .expired }
        return claims.sub
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func data(base64URL text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
