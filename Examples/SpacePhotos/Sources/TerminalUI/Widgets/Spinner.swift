/// A spinner's glyph for an animation tick (``RenderContext/tick``). A frame
/// that shows one says it animates (``Frame/isAnimating``).
public enum Spinner {
    static let glyphs: [Character] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

    /// The glyph for `tick`, cycling through ten braille dots; any `Int`, negative
    /// ones included, gives a glyph.
    public static func glyph(at tick: Int) -> Character {
        glyphs[((tick % glyphs.count) + glyphs.count) % glyphs.count]
    }
}
