/// A deflate compressor (RFC 1951) in a zlib stream (RFC 1950): what PNG
/// image data is.
///
/// LZ77 finds repeats within the last 32 KiB through hash chains of 3-byte
/// prefixes, each walked a bounded number of steps, with one step of lazy
/// matching (a match is taken only if the next byte does not start a
/// longer one) — zlib's level 6 settings. Every 16384 tokens make a block,
/// written as whichever of stored, fixed or dynamic Huffman codes is
/// smallest (``DeflateBlock``).
enum Deflate {
    /// How far back a match may reach.
    static let windowSize = 32_768
    static let minimumMatch = 3
    static let maximumMatch = 258
    /// Chain steps per search: the speed/ratio trade-off.
    static let maximumChain = 128
    /// A match this long ends the search: longer ones gain little.
    static let niceLength = 128
    /// A match this long is taken without looking one byte ahead.
    static let lazyLimit = 16
    /// With a match this long already, the look-ahead search walks a quarter of the chain.
    static let goodLength = 8
    /// Tokens per block: enough to pay for a dynamic header, few enough
    /// that codes follow changes in the data.
    static let blockTokens = 16_384

    /// The zlib stream of `data`: header, deflate blocks, Adler-32.
    static func zlib(_ data: [UInt8]) -> [UInt8] {
        data.withUnsafeBufferPointer(zlib)
    }

    static func zlib(_ data: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var writer = DeflateBitWriter(capacity: data.count / 2 + 64)
        // CMF 0x78: deflate, 32 KiB window. FLG 0x9C: the default level,
        // no dictionary, and check bits making CMF·256+FLG a multiple of 31.
        writer.write(0x9C78, count: 16)
        compress(data, into: &writer)
        writer.alignToByte()
        var stream = writer.bytes
        stream.appendBigEndian(Adler32.checksum(data))
        return stream
    }

    /// Writes `data` as raw deflate blocks, the last marked final.
    static func compress(_ data: UnsafeBufferPointer<UInt8>, into writer: inout DeflateBitWriter) {
        let count = data.count
        let windowMask = windowSize - 1
        // Absolute positions, -1 for none: `head` by hash, `previous` by
        // position within the window, the older position with the same hash.
        var head = [Int32](repeating: -1, count: 1 << 15)
        var previous = [Int32](repeating: -1, count: windowSize)
        var tokens: [DeflateBlock.Token] = []
        tokens.reserveCapacity(blockTokens)
        var blockStart = 0
        var covered = 0

        head.withUnsafeMutableBufferPointer { head in
            previous.withUnsafeMutableBufferPointer { previous in
                func hash(_ position: Int) -> Int {
                    let key = UInt32(data[position]) << 16 | UInt32(data[position + 1]) << 8 | UInt32(data[position + 2])
                    return Int((key &* 2_654_435_761) >> 17)
                }
                func insert(_ position: Int) {
                    let bucket = hash(position)
                    previous[position & windowMask] = head[bucket]
                    head[bucket] = Int32(position)
                }
                /// The longest match at `position` longer than `atLeast`
                /// (length 0 if none); `position` must be inserted already.
                func longestMatch(at position: Int, longerThan atLeast: Int) -> (length: Int, distance: Int) {
                    let limit = min(maximumMatch, count - position)
                    var best = max(atLeast, minimumMatch - 1)
                    guard best < limit else { return (0, 0) }
                    var bestDistance = 0
                    var steps = atLeast >= goodLength ? maximumChain / 4 : maximumChain
                    var candidate = Int(previous[position & windowMask])
                    let oldest = position - windowSize
                    while candidate >= 0 && candidate >= oldest && steps > 0 {
                        // The byte that would make the match longer than the best
                        // is the likeliest to differ: test it first.
                        if data[candidate + best] == data[position + best] && data[candidate] == data[position] {
                            var length = 1
                            while length < limit && data[candidate + length] == data[position + length] { length += 1 }
                            if length > best {
                                best = length
                                bestDistance = position - candidate
                                if length >= niceLength || length == limit { break }
                            }
                        }
                        let next = Int(previous[candidate & windowMask])
                        // A slot reused by a newer position ends the chain.
                        guard next < candidate else { break }
                        candidate = next
                        steps -= 1
                    }
                    return bestDistance == 0 ? (0, 0) : (best, bestDistance)
                }
                func emit(_ token: DeflateBlock.Token, covering length: Int) {
                    tokens.append(token)
                    covered += length
                    if tokens.count == blockTokens {
                        DeflateBlock(tokens: tokens, raw: UnsafeBufferPointer(rebasing: data[blockStart..<covered]), isFinal: false)
                            .write(to: &writer)
                        tokens.removeAll(keepingCapacity: true)
                        blockStart = covered
                    }
                }

                // The match found at the byte before `position`, waiting to
                // see whether the one at `position` is longer.
                var pending: (length: Int, distance: Int)? = nil
                var position = 0
                while position < count {
                    var current = (length: 0, distance: 0)
                    if position + minimumMatch <= count {
                        insert(position)
                        let pendingLength = pending?.length ?? 0
                        if pendingLength < lazyLimit {
                            current = longestMatch(at: position, longerThan: pendingLength)
                        }
                    }
                    if let match = pending, match.length >= minimumMatch, current.length <= match.length {
                        // The pending match wins: it started at position - 1.
                        emit(.match(length: match.length, distance: match.distance), covering: match.length)
                        let end = position - 1 + match.length
                        var inserted = position + 1
                        while inserted < end && inserted + minimumMatch <= count {
                            insert(inserted)
                            inserted += 1
                        }
                        position = end
                        pending = nil
                    } else {
                        if pending != nil { emit(.literal(data[position - 1]), covering: 1) }
                        pending = current
                        position += 1
                    }
                }
                if pending != nil { emit(.literal(data[count - 1]), covering: 1) }
            }
        }
        DeflateBlock(tokens: tokens, raw: UnsafeBufferPointer(rebasing: data[blockStart..<covered]), isFinal: true)
            .write(to: &writer)
    }
}
