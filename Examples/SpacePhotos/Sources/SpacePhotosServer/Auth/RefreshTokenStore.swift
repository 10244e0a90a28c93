import Crypto
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Issues and rotates refresh tokens: opaque random strings that buy a new
/// ID token without the password, each usable once.
///
/// Rotation follows OAuth's advice for public clients: every refresh returns
/// a new token and retires the old one. A retired token presented again
/// means two parties hold the chain (one of them a thief), so the whole
/// chain, its current token included, is revoked.
///
/// Only SHA-256 digests of tokens are kept, so the table leaks nothing usable.
/// Entries go when they expire; retired ones are kept until then to spot reuse.
///
/// With a `file`, the table is written there (atomically, mode 0600) after
/// each change and read back at start, so tokens outlive a restart (the
/// app's embedded server uses this); without one, it lives in memory.
actor RefreshTokenStore {
    /// Why a refresh token was refused. One case: the client has to log in
    /// again whatever the reason, and the reason is no business of an attacker.
    enum Failure: Error, Equatable {
        case invalid
    }

    private struct Entry: Codable {
        var subject: String
        var chain: UInt64
        var expires: Date
        var retired: Bool
    }

    /// What the file holds.
    private struct Snapshot: Codable {
        var entries: [Data: Entry]
        var liveToken: [UInt64: Data]
        var nextChain: UInt64
    }

    /// How long a token stays usable.
    let lifetime: Duration
    private let file: URL?
    private var entries: [Data: Entry] = [:]
    /// The one live token of each chain.
    private var liveToken: [UInt64: Data] = [:]
    private var nextChain: UInt64 = 0
    private var sweepAt = 1_024

    init(lifetime: Duration, file: URL? = nil) {
        self.lifetime = lifetime
        self.file = file
        // A missing or unreadable file starts an empty table: the worst case
        // is that clients log in again.
        if let file, let data = try? Data(contentsOf: file),
            let snapshot = try? JSONDecoder().decode(Snapshot.self, from: data)
        {
            entries = snapshot.entries
            liveToken = snapshot.liveToken
            nextChain = snapshot.nextChain
        }
    }

    /// Writes the table: a new file, private from its creation, renamed
    /// over the old one. Called after each change (not on a refused token,
    /// which changes nothing).
    private func persist() {
        guard let file else { return }
        guard
            let data = try? JSONEncoder().encode(Snapshot(entries: entries, liveToken: liveToken, nextChain: nextChain))
        else { return }
        let temporary = file.deletingLastPathComponent().appendingPathComponent(
            ".\(file.lastPathComponent).\(UUID().uuidString)"
        )
        guard
            FileManager.default.createFile(
                atPath: temporary.path,
                contents: data,
                attributes: [.posixPermissions: 0o600]
            )
        else { return }
        if rename(temporary.path, file.path) != 0 {
            // Tokens still work until the server stops; after that, clients log in again.
            try? FileManager.default.removeItem(at: temporary)
        }
    }

    /// A new token for `subject`, starting a chain (at login).
    func issue(for subject: String, now: Date) -> String {
        nextChain += 1
        defer { persist() }
        return add(subject: subject, chain: nextChain, now: now)
    }

    /// Retires `token` and returns its subject with the next token of its chain.
    func rotate(_ token: String, now: Date) throws(Failure) -> (subject: String, token: String) {
        let key = Self.digest(token)
        guard var entry = entries[key] else { throw .invalid }
        guard entry.expires > now else {
            revoke(chain: entry.chain)
            persist()
            throw .invalid
        }
        guard !entry.retired else {
            // Reuse of a spent token: someone else has the chain. End it.
            revoke(chain: entry.chain)
            persist()
            throw .invalid
        }
        entry.retired = true
        entries[key] = entry
        defer { persist() }
        return (entry.subject, add(subject: entry.subject, chain: entry.chain, now: now))
    }

    private func add(subject: String, chain: UInt64, now: Date) -> String {
        if entries.count >= sweepAt { sweep(now: now) }
        let token = TokenSigner.base64URL(SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) })
        let key = Self.digest(token)
        entries[key] = Entry(
            subject: subject,
            chain: chain,
            expires: now.addingTimeInterval(lifetime.seconds),
            retired: false
        )
        liveToken[chain] = key
        return token
    }

    private func revoke(chain: UInt64) {
        if let live = liveToken.removeValue(forKey: chain) { entries[live] = nil }
    }

    /// Drops expired entries; the next sweep waits until the table has
    /// doubled, so sweeping costs a constant amount per token on average.
    private func sweep(now: Date) {
        entries = entries.filter { $0.value.expires > now }
        liveToken = liveToken.filter { entries[$0.value] != nil }
        sweepAt = max(1_024, entries.count * 2)
    }

    private static func digest(_ token: String) -> Data {
        Data(SHA256.hash(data: Data(token.utf8)))
    }
}
