/// How a cell is drawn: colours and attributes.
public struct CellStyle: Hashable, Sendable {
    /// Text attributes, as SGR sets them.
    public struct Attributes: OptionSet, Hashable, Sendable {
        public let rawValue: UInt8
        @inlinable
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let bold = Attributes(rawValue: 1 << 0)
        public static let dim = Attributes(rawValue: 1 << 1)
        public static let italic = Attributes(rawValue: 1 << 2)
        public static let underline = Attributes(rawValue: 1 << 3)
        /// Foreground and background swapped: selections and the text cursor.
        public static let reverse = Attributes(rawValue: 1 << 4)
    }

    public var foreground: TerminalColor
    public var background: TerminalColor
    public var attributes: Attributes

    @inlinable
    public init(foreground: TerminalColor = .default, background: TerminalColor = .default, attributes: Attributes = []) {
        self.foreground = foreground
        self.background = background
        self.attributes = attributes
    }

    /// The terminal's defaults: no colour, no attribute.
    public static let plain = CellStyle()

    public static func foreground(_ color: TerminalColor) -> CellStyle { CellStyle(foreground: color) }
    public static let bold = CellStyle(attributes: .bold)
    public static let dim = CellStyle(attributes: .dim)
    public static let reverse = CellStyle(attributes: .reverse)
    public static let underline = CellStyle(attributes: .underline)

    /// This style with `attributes` added.
    public func adding(_ attributes: Attributes) -> CellStyle {
        var style = self
        style.attributes.formUnion(attributes)
        return style
    }
}
