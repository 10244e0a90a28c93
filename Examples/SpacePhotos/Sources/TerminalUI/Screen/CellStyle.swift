/// How a cell is drawn: colours and attributes.
public struct CellStyle: Hashable, Sendable {
    /// Text attributes, as SGR sets them.
    public struct Attributes: OptionSet, Hashable, Sendable {
        /// The attribute bits, in the order of the static members below.
        public let rawValue: UInt8
        /// The attributes whose bits are set in `rawValue`.
        @inlinable
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// Bold, or brighter, depending on the terminal (SGR 1).
        public static let bold = Attributes(rawValue: 1 << 0)
        /// Faint text, for secondary information (SGR 2).
        public static let dim = Attributes(rawValue: 1 << 1)
        /// Italic (SGR 3); some terminals ignore it.
        public static let italic = Attributes(rawValue: 1 << 2)
        /// Underlined (SGR 4).
        public static let underline = Attributes(rawValue: 1 << 3)
        /// Foreground and background swapped: selections and the text cursor.
        public static let reverse = Attributes(rawValue: 1 << 4)
    }

    /// The text's colour.
    public var foreground: TerminalColor
    /// The cell's background colour.
    public var background: TerminalColor
    /// Bold, dim, italic, underline, reverse, in any combination.
    public var attributes: Attributes

    /// A style with the given colours and attributes; by default the terminal's own.
    @inlinable
    public init(foreground: TerminalColor = .default, background: TerminalColor = .default, attributes: Attributes = [])
    {
        self.foreground = foreground
        self.background = background
        self.attributes = attributes
    }

    /// The terminal's defaults: no colour, no attribute.
    public static let plain = CellStyle()

    /// Text in `color` on the default background.
    public static func foreground(_ color: TerminalColor) -> CellStyle { CellStyle(foreground: color) }
    /// Bold text in the default colours.
    public static let bold = CellStyle(attributes: .bold)
    /// Dim text in the default colours.
    public static let dim = CellStyle(attributes: .dim)
    /// The default colours swapped.
    public static let reverse = CellStyle(attributes: .reverse)
    /// Underlined text in the default colours.
    public static let underline = CellStyle(attributes: .underline)

    /// This style with `attributes` added.
    public func adding(_ attributes: Attributes) -> CellStyle {
        var style = self
        style.attributes.formUnion(attributes)
        return style
    }
}
