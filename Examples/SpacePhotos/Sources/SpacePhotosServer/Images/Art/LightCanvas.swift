import Foundation

/// A linear-light RGB colour with unbounded channels: light adds up on a
/// ``LightCanvas`` before it is squeezed into bytes.
struct Light: Sendable, Equatable {
    var red: Float
    var green: Float
    var blue: Float

    init(_ red: Float, _ green: Float, _ blue: Float) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    static let black = Light(0, 0, 0)

    static func * (light: Light, scale: Float) -> Light {
        Light(light.red * scale, light.green * scale, light.blue * scale)
    }

    static func + (left: Light, right: Light) -> Light {
        Light(left.red + right.red, left.green + right.green, left.blue + right.blue)
    }

    /// The colour `amount` (0…1) of the way to `other`.
    func mixed(with other: Light, amount: Float) -> Light {
        let t = min(max(amount, 0), 1)
        return Light(red + (other.red - red) * t, green + (other.green - green) * t, blue + (other.blue - blue) * t)
    }

    /// A star's colour for a temperature from 0 (cool, orange-red) to 1
    /// (hot, blue-white), after black-body colours seen by eye.
    static func starColor(temperature: Float) -> Light {
        let anchors = [
            Light(1.00, 0.58, 0.32), Light(1.00, 0.80, 0.58), Light(1.00, 0.95, 0.88),
            Light(0.86, 0.91, 1.00), Light(0.66, 0.78, 1.00),
        ]
        let position = min(max(temperature, 0), 1) * Float(anchors.count - 1)
        let index = min(Int(position), anchors.count - 2)
        return anchors[index].mixed(with: anchors[index + 1], amount: position - Float(index))
    }
}

/// Where the space pictures are painted: a flat buffer of linear light that
/// stars and glows add to, turned into a ``Bitmap`` by a soft exposure curve,
/// so bright cores saturate to white while their coloured halos stay visible.
struct LightCanvas {
    let width: Int
    let height: Int
    /// `width × height` pixels of red, green and blue, top row first.
    var pixels: [Float]

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        pixels = [Float](repeating: 0, count: width * height * 3)
    }

    /// Sets every pixel to `paint(x, y)`, row by row.
    mutating func fill(_ paint: (Int, Int) -> Light) {
        let width = self.width
        let height = self.height
        pixels.withUnsafeMutableBufferPointer { pixels in
            for y in 0..<height {
                for x in 0..<width {
                    let light = paint(x, y)
                    let offset = (y * width + x) * 3
                    pixels[offset] = light.red
                    pixels[offset + 1] = light.green
                    pixels[offset + 2] = light.blue
                }
            }
        }
    }

    /// Adds a round Gaussian glow of `color` centred at (`x`, `y`), `sigma`
    /// pixels wide, peaking at `intensity`; cut off at three sigmas, where
    /// it has faded to nothing.
    mutating func addGlow(x: Float, y: Float, sigma: Float, color: Light, intensity: Float) {
        let reach = max(1, Int((sigma * 3).rounded(.up)))
        let centerX = Int(x.rounded(.down))
        let centerY = Int(y.rounded(.down))
        let firstX = max(0, centerX - reach)
        let lastX = min(width - 1, centerX + reach)
        let firstY = max(0, centerY - reach)
        let lastY = min(height - 1, centerY + reach)
        guard firstX <= lastX, firstY <= lastY else { return }
        let falloff = -1 / (2 * sigma * sigma)
        let red = color.red * intensity
        let green = color.green * intensity
        let blue = color.blue * intensity
        let width = self.width
        pixels.withUnsafeMutableBufferPointer { pixels in
            for py in firstY...lastY {
                let dy = Float(py) + 0.5 - y
                for px in firstX...lastX {
                    let dx = Float(px) + 0.5 - x
                    let weight = Foundation.exp((dx * dx + dy * dy) * falloff)
                    let offset = (py * width + px) * 3
                    pixels[offset] += red * weight
                    pixels[offset + 1] += green * weight
                    pixels[offset + 2] += blue * weight
                }
            }
        }
    }

    /// A star: a sharp core, a soft halo, and for bright ones the four
    /// diffraction spikes telescopes give them.
    mutating func addStar(x: Float, y: Float, brightness: Float, color: Light, scale: Float = 1) {
        addGlow(
            x: x,
            y: y,
            sigma: 0.6 * scale,
            color: color.mixed(with: Light(1, 1, 1), amount: 0.35),
            intensity: brightness
        )
        if brightness > 0.5 {
            addGlow(
                x: x,
                y: y,
                sigma: (1.2 + brightness.squareRoot()) * scale,
                color: color,
                intensity: brightness * 0.09
            )
        }
        if brightness > 2 {
            let length = brightness * 5 * scale
            addSpike(x: x, y: y, dx: 1, dy: 0, length: length, color: color, intensity: brightness * 0.35)
            addSpike(x: x, y: y, dx: 0, dy: 1, length: length, color: color, intensity: brightness * 0.35)
        }
    }

    /// A thin line of light through (`x`, `y`) along (`dx`, `dy`), fading
    /// out exponentially both ways.
    private mutating func addSpike(x: Float, y: Float, dx: Int, dy: Int, length: Float, color: Light, intensity: Float)
    {
        let reach = Int(length * 2)
        let centerX = Int(x)
        let centerY = Int(y)
        for step in -reach...reach where step != 0 {
            let px = centerX + step * dx
            let py = centerY + step * dy
            guard (0..<width).contains(px), (0..<height).contains(py) else { continue }
            let weight = intensity * Foundation.exp(-Float(abs(step)) / (length * 0.35))
            let offset = (py * width + px) * 3
            pixels[offset] += color.red * weight
            pixels[offset + 1] += color.green * weight
            pixels[offset + 2] += color.blue * weight
        }
    }

    /// The picture as 8-bit RGB: each channel through `1 − e^(−exposure·v)`,
    /// which is linear for faint light and rolls off smoothly into white.
    func bitmap(exposure: Float = 1) throws(Bitmap.Failure) -> Bitmap {
        var bytes = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { pixels in
            bytes.withUnsafeMutableBufferPointer { bytes in
                for index in 0..<pixels.count {
                    let value = 1 - Foundation.exp(-max(pixels[index], 0) * exposure)
                    bytes[index] = UInt8(min(value * 255 + 0.5, 255))
                }
            }
        }
        return try Bitmap(width: width, height: height, pixels: bytes)
    }
}
