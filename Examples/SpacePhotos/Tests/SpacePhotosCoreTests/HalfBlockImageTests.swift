import BaselineImages
import SpacePhotosTerminal
import Testing

@Suite("Terminal images", .timeLimit(.minutes(2)))
struct HalfBlockImageTests {
    /// A 2×2 image: red, green over blue, half-transparent white.
    let image: DecodedImage

    init() throws {
        image = try DecodedImage(
            width: 2,
            height: 2,
            pixels: [
                255, 0, 0, 255, 0, 255, 0, 255,
                0, 0, 255, 255, 255, 255, 255, 128,
            ]
        )
    }

    @Test func eachCellShowsTwoPixelsInTwentyFourBitColour() {
        let drawing = HalfBlockImage(image, columns: 80)
        #expect(drawing.columns == 2, "never scaled up")
        #expect(
            drawing.lines == [
                "\u{1B}[38;2;255;0;0m\u{1B}[48;2;0;0;255m▀"
                    + "\u{1B}[38;2;0;255;0m\u{1B}[48;2;128;128;128m▀\u{1B}[0m"
            ]
        )
    }

    @Test func scalesDownToTheColumnsKeepingTheAspectRatio() throws {
        let wide = try DecodedImage(width: 200, height: 100, pixels: [UInt8](repeating: 200, count: 200 * 100 * 4))
        let drawing = HalfBlockImage(wide, columns: 40)
        #expect(drawing.columns == 40)
        #expect(drawing.lines.count == 10, "40 × 20 pixels, two per cell")
        // One colour throughout: one pair of escape codes per line.
        #expect(drawing.lines.allSatisfy { $0.components(separatedBy: "\u{1B}[38;2").count == 2 })
    }
}
