/// Smooth random noise (value noise) and its fractal sum, the texture of the
/// server's nebulae and dust: the same seed and point always give the same value.
///
/// A hashed random value at each integer lattice point, interpolated with a
/// smoothstep between them; the fractal sum adds octaves of doubling frequency
/// and halving amplitude, which is what gives clouds their detail at every scale.
enum ValueNoise {
    /// The lattice value at (`x`, `y`), in 0…1: an integer hash, so no table is needed.
    @inline(__always)
    static func lattice(_ x: Int32, _ y: Int32, seed: UInt32) -> Float {
        var hash = UInt32(bitPattern: x) &* 0x8DA6_B343 ^ UInt32(bitPattern: y) &* 0xD816_3841 ^ seed &* 0xCB1A_B31F
        hash ^= hash >> 15
        hash &*= 0x2C1B_3C6D
        hash ^= hash >> 12
        hash &*= 0x297A_2D39
        hash ^= hash >> 15
        return Float(hash >> 8) * (1 / 16_777_216)
    }

    /// Noise at (`x`, `y`), in 0…1, smooth between lattice points.
    static func noise(_ x: Float, _ y: Float, seed: UInt32) -> Float {
        let floorX = x.rounded(.down)
        let floorY = y.rounded(.down)
        let cellX = Int32(floorX)
        let cellY = Int32(floorY)
        let fx = x - floorX
        let fy = y - floorY
        let sx = fx * fx * (3 - 2 * fx)
        let sy = fy * fy * (3 - 2 * fy)
        let topLeft = lattice(cellX, cellY, seed: seed)
        let topRight = lattice(cellX &+ 1, cellY, seed: seed)
        let bottomLeft = lattice(cellX, cellY &+ 1, seed: seed)
        let bottomRight = lattice(cellX &+ 1, cellY &+ 1, seed: seed)
        let top = topLeft + (topRight - topLeft) * sx
        let bottom = bottomLeft + (bottomRight - bottomLeft) * sx
        return top + (bottom - top) * sy
    }

    /// The fractal sum of `octaves` octaves, scaled back to 0…1.
    static func fractal(_ x: Float, _ y: Float, seed: UInt32, octaves: Int) -> Float {
        var sum: Float = 0
        var amplitude: Float = 0.5
        var total: Float = 0
        var frequency: Float = 1
        for octave in 0..<octaves {
            // Each octave its own seed, so their lattices do not line up.
            sum += amplitude * noise(x * frequency, y * frequency, seed: seed &+ UInt32(octave) &* 0x9E37_79B9)
            total += amplitude
            amplitude *= 0.5
            frequency *= 2.03
        }
        return sum / total
    }
}

/// A noise image computed on a coarse grid and read back with bilinear
/// interpolation: clouds are smooth, so a grid of a few hundred points across
/// looks the same as computing every pixel, at a small part of the cost.
struct NoiseField {
    let columns: Int
    let rows: Int
    /// Pixels per grid cell.
    let step: Float
    private(set) var values: [Float]

    /// Samples `value(u, v)` on a grid covering `width`×`height` pixels, with
    /// `u` and `v` in units of the shorter side (so shapes keep their aspect).
    init(width: Int, height: Int, maximumColumns: Int = 256, value: (Float, Float) -> Float) {
        let longSide = max(width, height)
        let step = max(1, Float(longSide) / Float(maximumColumns))
        let columns = Int(Float(width) / step) + 2
        let rows = Int(Float(height) / step) + 2
        let unit = 1 / Float(min(width, height))
        var values = [Float](repeating: 0, count: columns * rows)
        for row in 0..<rows {
            for column in 0..<columns {
                values[row * columns + column] = value(Float(column) * step * unit, Float(row) * step * unit)
            }
        }
        self.columns = columns
        self.rows = rows
        self.step = step
        self.values = values
    }

    /// The field at pixel (`x`, `y`).
    func sample(_ x: Int, _ y: Int) -> Float {
        let gx = Float(x) / step
        let gy = Float(y) / step
        let column = min(Int(gx), columns - 2)
        let row = min(Int(gy), rows - 2)
        let fx = gx - Float(column)
        let fy = gy - Float(row)
        return values.withUnsafeBufferPointer { values in
            let index = row * columns + column
            let top = values[index] + (values[index + 1] - values[index]) * fx
            let bottom = values[index + columns] + (values[index + columns + 1] - values[index + columns]) * fx
            return top + (bottom - top) * fy
        }
    }
}
