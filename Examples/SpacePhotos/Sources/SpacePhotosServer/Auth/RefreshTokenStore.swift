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
///
/// The table is bounded, so that a loop of refreshes (which cost the server
/// no password check) cannot grow it:
/// - A chain keeps its live token and its last ``retiredPerChain`` retired
///   ones, for spotting reuse; an older retired token is simply unknown.
/// - A chain ends when its live token expires, is revoked, or is the least
///   recently refreshed of more than ``maximumChains`` chains; its retired
///   tokens go with it (reuse detection has nothing left to protect).
/// Expired chains are dropped as calls come, oldest first, a few at a time.
///
/// With a `file`, the table outlives a restart (the app's embedded server
/// uses this): each change appends one line to a journal there (mode 0600),
/// so a refresh writes a constant amount whatever the size of the table.
/// When the journal holds more than twice the lines the table needs, it is
/// rewritten from the table (a new file, renamed over the old one): a
/// constant cost per change on average. Without a file, the table lives in
/// memory only.
actor RefreshTokenStore {
    /// Why a refresh token was refused. One case: the client has to log in
    /// again whatever the reason, and the reason is no business of an attacker.
    enum Failure: Error, Equatable {
        case invalid
    }

    /// How long a token stays usable.
    let lifetime: Duration
    private let file: URL?
    private var table: Table

    /// The journal, open for appending; nil without a file, or when it
    /// must be rewritten before the next append.
    private var journal: Int32?
    /// Lines in the journal, header included.
    private var journalLines = 0

    /// How many retired tokens each chain keeps for spotting reuse.
    var retiredPerChain: Int { table.retiredPerChain }
    /// How many chains (logged-in sessions) the table holds at most.
    var maximumChains: Int { table.maximumChains }
    /// How many tokens (live and retired) the table holds.
    var tokenCount: Int { table.tokens.count }
    /// How many chains the table holds.
    var chainCount: Int { table.chains.count }

    init(
        lifetime: Duration,
        file: URL? = nil,
        retiredPerChain: Int = 8,
        maximumChains: Int = 10_000
    ) {
        self.lifetime = lifetime
        self.file = file
        var table = Table(retiredPerChain: max(retiredPerChain, 0), maximumChains: max(maximumChains, 1))
        // A missing or unreadable file starts an empty table: the worst case
        // is that clients log in again.
        if let file, let data = try? Data(contentsOf: file), let read = table.replay(data) {
            journalLines = read.lines
            if read.clean {
                let descriptor = open(file.path, O_WRONLY | O_APPEND | O_CLOEXEC)
                journal = descriptor == -1 ? nil : descriptor
            }
        }
        self.table = table
    }

    deinit {
        if let journal { close(journal) }
    }

    /// A new token for `subject`, starting a chain (at login).
    func issue(for subject: String, now: Date) -> String {
        table.dropExpired(now: now)
        while table.chains.count >= table.maximumChains, let oldest = table.recency.oldest() {
            table.end(chain: oldest)
            persist(Record(chain: oldest, end: true))
        }
        let (token, digest) = Self.newToken()
        let expires = now.addingTimeInterval(lifetime.seconds)
        let id = table.start(subject: subject, token: digest, expires: expires)
        persist(Record(chain: id, subject: subject, token: digest, expires: expires))
        return token
    }

    /// Retires `token` and returns its subject with the next token of its chain.
    func rotate(_ token: String, now: Date) throws(Failure) -> (subject: String, token: String) {
        table.dropExpired(now: now)
        let presented = Digest(of: token)
        guard let id = table.tokens[presented], let chain = table.chains[id] else { throw .invalid }
        guard chain.live == presented, chain.expires > now else {
            // Reuse of a spent token: someone else has the chain. End it.
            // (An expired chain ends too: it is of no use to anyone.)
            table.end(chain: id)
            persist(Record(chain: id, end: true))
            throw .invalid
        }
        let (next, digest) = Self.newToken()
        let expires = now.addingTimeInterval(lifetime.seconds)
        table.advance(chain: id, to: digest, expires: expires)
        persist(Record(chain: id, subject: chain.subject, token: digest, expires: expires))
        return (chain.subject, next)
    }

    private static func newToken() -> (token: String, digest: Digest) {
        let token = TokenSigner.base64URL(SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) })
        return (token, Digest(of: token))
    }

    // MARK: The journal

    /// Records a change: one line appended, or the whole journal rewritten
    /// when it has grown to twice what the table needs (or an append failed).
    private func persist(_ record: Record) {
        guard file != nil else { return }
        if let journal, journalLines <= max(2 * (table.tokens.count + 1), 1_024),
            var line = try? JSONEncoder().encode(record)
        {
            line.append(UInt8(ascii: "\n"))
            if Self.writeAll(line, to: journal) {
                journalLines += 1
                return
            }
        }
        rewrite()
    }

    /// Writes the table as a fresh journal (a new file, private from its
    /// creation, renamed over the old one) and reopens it for appending.
    private func rewrite() {
        guard let file else { return }
        if let journal { close(journal) }
        journal = nil
        let (text, lines) = table.journal()
        let temporary = file.deletingLastPathComponent().appendingPathComponent(
            ".\(file.lastPathComponent).\(UUID().uuidString)"
        )
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor != -1 else { return }
        let written = Self.writeAll(text, to: descriptor)
        close(descriptor)
        // On failure, tokens still work until the server stops; after that,
        // clients log in again. The next change tries again.
        guard written, rename(temporary.path, file.path) == 0 else {
            unlink(temporary.path)
            return
        }
        journalLines = lines
        let reopened = open(file.path, O_WRONLY | O_APPEND | O_CLOEXEC)
        journal = reopened == -1 ? nil : reopened
    }

    /// Writes all of `data`, again after a short write; false on an error.
    private static func writeAll(_ data: Data, to descriptor: Int32) -> Bool {
        data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return true }
            var offset = 0
            while offset < buffer.count {
                let count = write(descriptor, base + offset, buffer.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += count
            }
            return true
        }
    }
}

extension RefreshTokenStore {
    /// A token's SHA-256 digest, held inline.
    struct Digest: Hashable, Sendable {
        var words: (UInt64, UInt64, UInt64, UInt64)

        init(of token: String) {
            self.init(SHA256.hash(data: Data(token.utf8)).withUnsafeBytes { Array($0) })
        }

        /// The digest of these 32 bytes; nil for any other count.
        init?(bytes: [UInt8]) {
            guard bytes.count == 32 else { return nil }
            self.init(bytes)
        }

        private init(_ bytes: [UInt8]) {
            func word(_ index: Int) -> UInt64 {
                bytes[(index * 8)..<(index * 8 + 8)].reduce(0) { $0 << 8 | UInt64($1) }
            }
            words = (word(0), word(1), word(2), word(3))
        }

        /// The 32 bytes, big-endian words in order.
        var bytes: [UInt8] {
            [words.0, words.1, words.2, words.3].flatMap { word in
                (0..<8).reversed().map { UInt8(truncatingIfNeeded: word >> ($0 * 8)) }
            }
        }

        static func == (left: Digest, right: Digest) -> Bool {
            left.words == right.words
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(words.0)
            hasher.combine(words.1)
            hasher.combine(words.2)
            hasher.combine(words.3)
        }
    }

    /// One line of the journal.
    struct Record: Codable {
        /// The chain the line is about.
        var chain: UInt64
        /// A token (its digest, base64url) that becomes the chain's live
        /// one, retiring the one before; with its subject and expiry.
        var token: String?
        var subject: String?
        var expires: Double?
        /// The chain ended (revoked, or evicted past the table's bound).
        var end: Bool?

        init(chain: UInt64, end: Bool) {
            self.chain = chain
            self.end = end
        }

        init(chain: UInt64, subject: String, token: Digest, expires: Date) {
            self.chain = chain
            self.subject = subject
            self.token = TokenSigner.base64URL(Data(token.bytes))
            self.expires = expires.timeIntervalSince1970
        }
    }

    /// The journal's first line: a file with another first line is not read.
    struct Header: Codable, Equatable {
        var format = "spacephotos-refresh-tokens"
        var version = 2
    }

    /// One login's line of tokens.
    struct Chain {
        var subject: String
        var live: Digest
        var expires: Date
        /// Spent tokens, oldest first; at most the table's `retiredPerChain`.
        var retired: [Digest] = []
    }

    /// The chains and their tokens: the store's state, in memory.
    struct Table {
        let retiredPerChain: Int
        let maximumChains: Int
        var chains: [UInt64: Chain] = [:]
        /// Every token kept, live or retired, and its chain.
        var tokens: [Digest: UInt64] = [:]
        /// Chains by their last login or refresh: the first to expire first.
        var recency = RecencyQueue<UInt64>()
        var nextChain: UInt64 = 1

        init(retiredPerChain: Int, maximumChains: Int) {
            self.retiredPerChain = retiredPerChain
            self.maximumChains = maximumChains
        }

        /// Starts a chain with `token` live; returns its id.
        mutating func start(subject: String, token: Digest, expires: Date) -> UInt64 {
            // Ids come from a file too: wrap rather than trap, and skip any in use.
            while chains[nextChain] != nil { nextChain &+= 1 }
            let id = nextChain
            nextChain &+= 1
            chains[id] = Chain(subject: subject, live: token, expires: expires)
            tokens[token] = id
            recency.touch(id)
            return id
        }

        /// Makes `token` the live token of chain `id`, retiring the one
        /// before, and forgets retired tokens past ``retiredPerChain``.
        mutating func advance(chain id: UInt64, to token: Digest, expires: Date) {
            guard var chain = chains[id] else { return }
            chain.retired.append(chain.live)
            let excess = chain.retired.count - retiredPerChain
            if excess > 0 {
                for dropped in chain.retired.prefix(excess) { tokens[dropped] = nil }
                chain.retired.removeFirst(excess)
            }
            chain.live = token
            chain.expires = expires
            chains[id] = chain
            tokens[token] = id
            recency.touch(id)
        }

        /// Removes a chain and every token of it.
        mutating func end(chain id: UInt64) {
            guard let chain = chains.removeValue(forKey: id) else { return }
            tokens[chain.live] = nil
            for retired in chain.retired { tokens[retired] = nil }
            recency.remove(id)
        }

        /// Drops a few chains whose live token has expired, the least
        /// recently refreshed first: more than a call adds, so they never
        /// pile up, and no call pays for a scan of the table. Not
        /// journaled: a chain's expiry is in its lines, so it is as
        /// expired when read back.
        mutating func dropExpired(now: Date) {
            for _ in 0..<4 {
                guard let oldest = recency.oldest(), let chain = chains[oldest], chain.expires <= now else { return }
                end(chain: oldest)
            }
        }

        /// Replays a journal: each token line makes its token the chain's
        /// live one; each end line ends the chain. Nil when the file is not
        /// a journal. `clean` is false when a line did not decode (one cut
        /// short by a crash): the journal must then be rewritten before
        /// anything is appended to it.
        mutating func replay(_ data: Data) -> (lines: Int, clean: Bool)? {
            let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
            let decoder = JSONDecoder()
            guard let first = lines.first, (try? decoder.decode(Header.self, from: first)) == Header() else {
                return nil
            }
            var clean = data.last == UInt8(ascii: "\n")
            for line in lines.dropFirst() {
                guard let record = try? decoder.decode(Record.self, from: line) else {
                    clean = false
                    continue
                }
                nextChain = max(nextChain, record.chain &+ 1)
                if record.end == true {
                    end(chain: record.chain)
                } else if let text = record.token, let bytes = TokenSigner.data(base64URL: Substring(text)),
                    let token = Digest(bytes: Array(bytes)), let subject = record.subject,
                    let seconds = record.expires
                {
                    let expires = Date(timeIntervalSince1970: seconds)
                    if chains[record.chain] != nil {
                        advance(chain: record.chain, to: token, expires: expires)
                    } else {
                        chains[record.chain] = Chain(subject: subject, live: token, expires: expires)
                        tokens[token] = record.chain
                        recency.touch(record.chain)
                    }
                } else {
                    clean = false
                }
            }
            while chains.count > maximumChains, let oldest = recency.oldest() { end(chain: oldest) }
            return (lines.count, clean)
        }

        /// The table as a journal: the header, then for each chain, least
        /// recently refreshed first, its retired tokens in the order they
        /// were spent and its live one. Replayed, it gives this table back.
        func journal() -> (text: Data, lines: Int) {
            let encoder = JSONEncoder()
            var text = (try? encoder.encode(Header())) ?? Data()
            text.append(UInt8(ascii: "\n"))
            var lines = 1
            for id in recency.keys {
                guard let chain = chains[id] else { continue }
                for token in chain.retired + [chain.live] {
                    let record = Record(chain: id, subject: chain.subject, token: token, expires: chain.expires)
                    guard let line = try? encoder.encode(record) else { continue }
                    text.append(line)
                    text.append(UInt8(ascii: "\n"))
                    lines += 1
                }
            }
            return (text, lines)
        }
    }
}
