/// One character cell of the screen.
///
/// A wide character (CJK, most emoji) takes two cells: the first holds it
/// with ``width`` 2, the second is a ``continuation`` cell that draws
/// nothing of its own.
///
/// The grapheme is kept inline as UTF-8 (up to 16 bytes), so a cell is a
/// plain value: copying and comparing the 12,000 cells of a frame costs no
/// reference counting. A longer cluster (a family of four emoji is 25
/// bytes) keeps its first scalar only, which a terminal draws as wide.
public struct Cell: Hashable, Sendable {
    /// The grapheme's UTF-8 bytes, little-endian, in 16 bytes.
    @usableFromInline var low: UInt64
    @usableFromInline var high: UInt64
    /// How many of those bytes are used; 0 for a continuation.
    @usableFromInline var length: UInt8
    /// Whether terminals may disagree on the grapheme's width (emoji,
    /// clusters): the ``FrameEncoder`` then places the next cell explicitly.
    @usableFromInline var hasUncertainWidth: Bool
    /// How many columns the grapheme takes: 1, 2, or 0 for a continuation.
    public var width: UInt8
    /// The colours and attributes it is drawn in (a continuation keeps its
    /// character's, so the background runs under both columns).
    public var style: CellStyle

    /// A cell showing `grapheme`, `width` columns wide.
    @inlinable
    public init(_ grapheme: Character, width: UInt8 = 1, style: CellStyle = .plain) {
        if let ascii = grapheme.asciiValue {
            // Printable ASCII, the common case: one byte, no doubt about its width.
            low = UInt64(ascii)
            high = 0
            length = 1
            hasUncertainWidth = false
        } else {
            (low, high, length, hasUncertainWidth) = Self.pack(grapheme)
        }
        self.width = width
        self.style = style
    }

    @inlinable
    init(continuationOf style: CellStyle) {
        low = 0
        high = 0
        length = 0
        hasUncertainWidth = false
        width = 0
        self.style = style
    }

    @usableFromInline
    static func pack(_ grapheme: Character) -> (UInt64, UInt64, UInt8, Bool) {
        let scalars = grapheme.unicodeScalars
        let first = scalars.first
        let isSingleScalar = first == nil || scalars.index(after: scalars.startIndex) == scalars.endIndex
        var low: UInt64 = 0
        var high: UInt64 = 0
        var count = 0
        func add(_ byte: UInt8) {
            if count < 8 {
                low |= UInt64(byte) << (8 * count)
            } else {
                high |= UInt64(byte) << (8 * (count - 8))
            }
            count += 1
        }
        if grapheme.utf8.count <= 16 {
            for byte in grapheme.utf8 { add(byte) }
        } else if let first {
            // Too long to keep: its first scalar stands for it.
            for byte in String(first).utf8 { add(byte) }
        }
        return (low, high, UInt8(count), !isSingleScalar || !hasCertainWidth(first))
    }

    /// Whether every terminal draws `scalar` as wide as ``TextWidth`` counts
    /// it: not an emoji. Scalars of the blocks ``TextWidth`` knows skip the
    /// property lookup.
    static func hasCertainWidth(_ scalar: Unicode.Scalar?) -> Bool {
        guard let scalar else { return true }
        return TextWidth.unambiguousWidth(of: scalar) != nil || !scalar.properties.isEmoji
    }

    /// An empty cell in `style`.
    @inlinable
    public static func blank(_ style: CellStyle = .plain) -> Cell { Cell(" ", style: style) }

    /// The second column of a wide character.
    @inlinable
    public static func continuation(_ style: CellStyle) -> Cell { Cell(continuationOf: style) }

    /// Whether this is the second column of a wide character.
    @inlinable
    public var isContinuation: Bool { width == 0 }

    /// The grapheme cluster shown: a space for an empty cell, `nil` for the
    /// second half of a wide character.
    public var grapheme: Character? {
        guard length > 0 else { return nil }
        if length == 1, low < 0x80 { return Character(Unicode.Scalar(UInt8(low))) }
        return Character(String(decoding: utf8, as: UTF8.self))
    }

    /// The grapheme's UTF-8 bytes.
    var utf8: [UInt8] {
        (0..<Int(length)).map { index in
            UInt8(truncatingIfNeeded: index < 8 ? low >> (8 * index) : high >> (8 * (index - 8)))
        }
    }

    /// Appends the grapheme's UTF-8 bytes to `bytes` (a space for a continuation).
    func appendUTF8(to bytes: inout [UInt8]) {
        guard length > 0 else {
            bytes.append(UInt8(ascii: " "))
            return
        }
        var word = low
        for index in 0..<Int(length) {
            if index == 8 { word = high }
            bytes.append(UInt8(truncatingIfNeeded: word >> (8 * (index % 8))))
        }
    }
}
