import Foundation

/// Pictures drawn from code, so the server has images to serve without
/// shipping any: the same size and seed always give the same pixels.
enum ProceduralImage {
    /// A night sky: a dark gradient, soft nebula clouds, and stars.
    static func starField(
        width: Int,
        height: Int,
        seed: UInt64,
        format: Bitmap.Format = .rgb
    ) throws(Bitmap.Failure) -> Bitmap {
        var random = SplitMix64(seed: seed)
        let palette = skyPalettes[Int(random.next() % UInt64(skyPalettes.count))]
        var bitmap = try Bitmap(width: width, height: height, format: format)

        struct Cloud {
            var x, y, radius: Double
            var color: Color
        }
        let clouds = (0..<3).map { index in
            Cloud(
                x: Double.random(in: 0...1, using: &random) * Double(width),
                y: Double.random(in: 0...1, using: &random) * Double(height),
                radius: Double.random(in: 0.2...0.45, using: &random) * Double(min(width, height)),
                color: palette.nebula[index % palette.nebula.count]
            )
        }
        for y in 0..<height {
            let sky = palette.top.mixed(with: palette.bottom, amount: Double(y) / Double(max(height - 1, 1)))
            for x in 0..<width {
                var color = sky
                for cloud in clouds {
                    let dx = Double(x) - cloud.x
                    let dy = Double(y) - cloud.y
                    let glow = exp(-(dx * dx + dy * dy) / (cloud.radius * cloud.radius)) * 0.45
                    color = color.mixed(with: cloud.color, amount: glow)
                }
                bitmap[x, y] = color
            }
        }

        let starCount = max(1, width * height / 250)
        for _ in 0..<starCount {
            let x = Int(random.next() % UInt64(width))
            let y = Int(random.next() % UInt64(height))
            let brightness = UInt8(truncatingIfNeeded: 120 + random.next() % 136)
            let tint = palette.starTints[Int(random.next() % UInt64(palette.starTints.count))]
            let star = tint.mixed(with: Color(red: brightness, green: brightness, blue: brightness), amount: 0.6)
            bitmap.blend(star, atX: x, y: y)
            if random.next() % 12 == 0 {
                // A bright one: a small cross of light.
                for (dx, dy) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
                    bitmap.blend(star, atX: x + dx, y: y + dy, coverage: 0.55)
                }
            }
        }
        return bitmap
    }

    /// A cartoon dog in a space helmet (Laika, the first dog in orbit)
    /// floating over a ``starField(width:height:seed:format:)``; the random
    /// seed also picks the coat and which way the dog faces.
    static func spaceDog(
        width: Int,
        height: Int,
        seed: UInt64,
        format: Bitmap.Format = .rgb
    ) throws(Bitmap.Failure) -> Bitmap {
        var bitmap = try starField(width: width, height: height, seed: seed, format: format)
        var random = SplitMix64(seed: seed ^ 0xD06)
        let coat = coats[Int(random.next() % UInt64(coats.count))]
        let facesLeft = random.next() % 2 == 1
        for (shape, color) in dog(coat: coat) {
            bitmap.fill(facesLeft ? shape.mirrored : shape, with: color)
        }
        return bitmap
    }

    /// The dog, facing right, back to front.
    private static func dog(coat: Coat) -> [(Shape, Color)] {
        typealias P = Shape.Point
        let ink = Color(red: 24, green: 20, blue: 28)
        let glass = Color(red: 170, green: 215, blue: 255)
        return [
            (.capsule(from: P(0.29, 0.57), to: P(0.17, 0.44), radius: 0.028), coat.fur),  // tail
            (.capsule(from: P(0.35, 0.62), to: P(0.33, 0.80), radius: 0.032), coat.shade),  // far legs
            (.capsule(from: P(0.58, 0.62), to: P(0.61, 0.80), radius: 0.032), coat.shade),
            (.ellipse(center: P(0.47, 0.60), radiusX: 0.22, radiusY: 0.12), coat.fur),  // body
            (.ellipse(center: P(0.45, 0.55), radiusX: 0.12, radiusY: 0.05), coat.patch),  // saddle patch
            (.capsule(from: P(0.40, 0.64), to: P(0.41, 0.82), radius: 0.034), coat.fur),  // near legs
            (.capsule(from: P(0.63, 0.63), to: P(0.66, 0.82), radius: 0.034), coat.fur),
            (.capsule(from: P(0.60, 0.55), to: P(0.68, 0.44), radius: 0.07), coat.fur),  // neck
            (.capsule(from: P(0.61, 0.47), to: P(0.66, 0.56), radius: 0.016), coat.collar),  // collar
            (.circle(center: P(0.72, 0.40), radius: 0.175), glass.withOpacity(0.22)),  // helmet glass
            (.capsule(from: P(0.67, 0.35), to: P(0.63, 0.24), radius: 0.03), coat.patch),  // ears
            (.capsule(from: P(0.73, 0.33), to: P(0.74, 0.22), radius: 0.03), coat.patch),
            (.circle(center: P(0.70, 0.40), radius: 0.095), coat.fur),  // head
            (.ellipse(center: P(0.80, 0.445), radiusX: 0.075, radiusY: 0.045), coat.muzzle),  // snout
            (.circle(center: P(0.868, 0.43), radius: 0.019), ink),  // nose
            (.circle(center: P(0.735, 0.385), radius: 0.015), ink),  // eye
            (.circle(center: P(0.739, 0.380), radius: 0.005), Color(red: 255, green: 255, blue: 255)),  // eye glint
            (.ring(center: P(0.72, 0.40), radius: 0.175, width: 0.014), glass.withOpacity(0.85)),  // helmet rim
            (
                .ellipse(center: P(0.66, 0.30), radiusX: 0.035, radiusY: 0.018),
                Color(red: 255, green: 255, blue: 255, alpha: 140)
            ),
        ]
    }

    private struct Coat {
        var fur, shade, patch, muzzle, collar: Color
    }

    private static let coats: [Coat] = [
        // Laika: white with tan patches.
        Coat(
            fur: Color(red: 240, green: 236, blue: 226),
            shade: Color(red: 200, green: 192, blue: 180),
            patch: Color(red: 196, green: 140, blue: 84),
            muzzle: Color(red: 250, green: 246, blue: 238),
            collar: Color(red: 210, green: 40, blue: 48)
        ),
        // Belka: all white.
        Coat(
            fur: Color(red: 246, green: 246, blue: 250),
            shade: Color(red: 205, green: 208, blue: 218),
            patch: Color(red: 228, green: 228, blue: 236),
            muzzle: Color(red: 255, green: 255, blue: 255),
            collar: Color(red: 40, green: 110, blue: 220)
        ),
        // Strelka: white with grey-brown patches.
        Coat(
            fur: Color(red: 236, green: 232, blue: 228),
            shade: Color(red: 190, green: 184, blue: 178),
            patch: Color(red: 120, green: 100, blue: 90),
            muzzle: Color(red: 248, green: 244, blue: 240),
            collar: Color(red: 240, green: 180, blue: 40)
        ),
        // A black-and-tan one.
        Coat(
            fur: Color(red: 70, green: 58, blue: 52),
            shade: Color(red: 50, green: 42, blue: 38),
            patch: Color(red: 168, green: 110, blue: 60),
            muzzle: Color(red: 190, green: 140, blue: 90),
            collar: Color(red: 60, green: 200, blue: 120)
        ),
    ]

    private struct SkyPalette {
        var top, bottom: Color
        var nebula: [Color]
        var starTints: [Color]
    }

    private static let skyPalettes: [SkyPalette] = [
        SkyPalette(
            top: Color(red: 6, green: 8, blue: 28),
            bottom: Color(red: 34, green: 14, blue: 60),
            nebula: [
                Color(red: 200, green: 60, blue: 160), Color(red: 40, green: 140, blue: 200),
                Color(red: 120, green: 60, blue: 200),
            ],
            starTints: [
                Color(red: 255, green: 255, blue: 255), Color(red: 180, green: 200, blue: 255),
                Color(red: 255, green: 230, blue: 180),
            ]
        ),
        SkyPalette(
            top: Color(red: 2, green: 12, blue: 24),
            bottom: Color(red: 8, green: 40, blue: 52),
            nebula: [
                Color(red: 30, green: 180, blue: 160), Color(red: 220, green: 120, blue: 60),
                Color(red: 60, green: 90, blue: 200),
            ],
            starTints: [Color(red: 255, green: 255, blue: 255), Color(red: 200, green: 255, blue: 240)]
        ),
        SkyPalette(
            top: Color(red: 20, green: 4, blue: 16),
            bottom: Color(red: 60, green: 16, blue: 30),
            nebula: [
                Color(red: 240, green: 90, blue: 60), Color(red: 250, green: 170, blue: 60),
                Color(red: 150, green: 40, blue: 120),
            ],
            starTints: [Color(red: 255, green: 240, blue: 220), Color(red: 255, green: 255, blue: 255)]
        ),
    ]
}
