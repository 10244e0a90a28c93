/// An image in memory: 8-bit RGB or RGBA pixels, row by row, top row first.
/// What the renderers draw into and the encoders read from.
struct Bitmap: Sendable, Equatable {
    /// The pixel layout.
    enum Format: Int, Sendable {
        case rgb = 3
        case rgba = 4

        var bytesPerPixel: Int { rawValue }
    }

    /// A size the encoders will not take.
    enum Failure: Error, Equatable {
        case invalidSize(width: Int, height: Int)
    }

    /// Sides above this are refused: bigger images are not what an example
    /// server should build in memory on request.
    static let maximumSide = 8_192

    let width: Int
    let height: Int
    let format: Format
    /// `height` rows of `width * format.bytesPerPixel` bytes.
    private(set) var bytes: [UInt8]

    /// A bitmap filled with `fill` (transparent black by default, which an
    /// RGB bitmap stores as black).
    init(width: Int, height: Int, format: Format = .rgb, fill: Color = .clear) throws(Failure) {
        guard (1...Self.maximumSide).contains(width), (1...Self.maximumSide).contains(height) else {
            throw .invalidSize(width: width, height: height)
        }
        self.width = width
        self.height = height
        self.format = format
        let pixel = [fill.red, fill.green, fill.blue, fill.alpha].prefix(format.bytesPerPixel)
        var bytes = [UInt8](repeating: 0, count: width * height * format.bytesPerPixel)
        for offset in stride(from: 0, to: bytes.count, by: pixel.count) {
            bytes.replaceSubrange(offset..<(offset + pixel.count), with: pixel)
        }
        self.bytes = bytes
    }

    /// A bitmap of `pixels`, laid out as ``bytes`` is: what renderers that
    /// work in their own flat buffer hand over when done.
    init(width: Int, height: Int, format: Format = .rgb, pixels: [UInt8]) throws(Failure) {
        guard (1...Self.maximumSide).contains(width), (1...Self.maximumSide).contains(height),
            pixels.count == width * height * format.bytesPerPixel
        else {
            throw .invalidSize(width: width, height: height)
        }
        self.width = width
        self.height = height
        self.format = format
        self.bytes = pixels
    }

    /// Calls `body` with all the pixel bytes, for encoders' inner loops.
    func withPixelBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        bytes.withUnsafeBufferPointer(body)
    }

    /// The pixel at (`x`, `y`); outside the bitmap, reads are transparent
    /// and writes are dropped, so drawing code need not clip.
    subscript(x: Int, y: Int) -> Color {
        get {
            guard (0..<width).contains(x), (0..<height).contains(y) else { return .clear }
            let offset = (y * width + x) * format.bytesPerPixel
            return Color(
                red: bytes[offset],
                green: bytes[offset + 1],
                blue: bytes[offset + 2],
                alpha: format == .rgba ? bytes[offset + 3] : 255
            )
        }
        set {
            guard (0..<width).contains(x), (0..<height).contains(y) else { return }
            let offset = (y * width + x) * format.bytesPerPixel
            bytes[offset] = newValue.red
            bytes[offset + 1] = newValue.green
            bytes[offset + 2] = newValue.blue
            if format == .rgba { bytes[offset + 3] = newValue.alpha }
        }
    }

    /// Paints `color` over the pixel at (`x`, `y`) ("source over"), where
    /// the shape drawn covers `coverage` (0…1) of the pixel.
    mutating func blend(_ color: Color, atX x: Int, y: Int, coverage: Double = 1) {
        let source = Double(color.alpha) / 255 * min(max(coverage, 0), 1)
        guard source > 0 else { return }
        let below = self[x, y]
        let destination = Double(below.alpha) / 255 * (1 - source)
        let alpha = source + destination
        func channel(_ top: UInt8, _ bottom: UInt8) -> UInt8 {
            UInt8(((Double(top) * source + Double(bottom) * destination) / alpha).rounded())
        }
        self[x, y] = Color(
            red: channel(color.red, below.red),
            green: channel(color.green, below.green),
            blue: channel(color.blue, below.blue),
            alpha: UInt8((alpha * 255).rounded())
        )
    }
}
