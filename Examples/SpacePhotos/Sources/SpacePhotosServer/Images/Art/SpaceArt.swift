import Foundation

/// The server's astronomy pictures, drawn from a seed: star fields with a
/// band of the Milky Way, nebulae, spiral galaxies and globular clusters.
///
/// Light is painted additively on a ``LightCanvas`` (glows, stars with
/// colour temperatures) over backgrounds of ``ValueNoise``, then exposed
/// into a ``Bitmap``. The same theme, size and seed always give the same
/// pixels; a bigger canvas shows the same composition with more stars.
enum SpaceArt {
    /// What a picture shows.
    enum Theme: String, CaseIterable, Sendable {
        case starField = "stars"
        case nebula
        case galaxy
        case cluster
    }

    /// The picture of `theme`, `width`×`height` pixels, from `seed`.
    static func render(_ theme: Theme, width: Int, height: Int, seed: UInt64) throws(Bitmap.Failure) -> Bitmap {
        guard (1...Bitmap.maximumSide).contains(width), (1...Bitmap.maximumSide).contains(height) else {
            throw .invalidSize(width: width, height: height)
        }
        var canvas = LightCanvas(width: width, height: height)
        var random = SplitMix64(seed: seed)
        switch theme {
        case .starField: paintMilkyWay(on: &canvas, random: &random)
        case .nebula: paintNebula(on: &canvas, random: &random)
        case .galaxy: paintGalaxy(on: &canvas, random: &random)
        case .cluster: paintCluster(on: &canvas, random: &random)
        }
        return try canvas.bitmap()
    }

    // MARK: Themes

    /// A dark sky crossed by a glowing band of the Milky Way, with dust rifts
    /// along it and stars crowding into it.
    private static func paintMilkyWay(on canvas: inout LightCanvas, random: inout SplitMix64) {
        let width = canvas.width
        let height = canvas.height
        let side = Float(min(width, height))
        let angle = random.unit(in: -0.7...0.7) + (random.next() % 2 == 0 ? 0 : .pi / 2)
        let (normalX, normalY) = (-Foundation.sin(angle), Foundation.cos(angle))
        let centerX = Float(width) * random.unit(in: 0.35...0.65)
        let centerY = Float(height) * random.unit(in: 0.35...0.65)
        let bandWidth = side * random.unit(in: 0.16...0.26)
        let seeds = (
            UInt32(truncatingIfNeeded: random.next()), UInt32(truncatingIfNeeded: random.next()),
            UInt32(truncatingIfNeeded: random.next())
        )
        func band(_ x: Float, _ y: Float) -> Float {
            let distance = ((x - centerX) * normalX + (y - centerY) * normalY) / bandWidth
            return Foundation.exp(-distance * distance)
        }
        let glow = NoiseField(width: width, height: height) { u, v in
            ValueNoise.fractal(u * 3, v * 3, seed: seeds.0, octaves: 6)
        }
        let dust = NoiseField(width: width, height: height) { u, v in
            ValueNoise.fractal(u * 6, v * 6, seed: seeds.1, octaves: 5)
        }
        let tint = NoiseField(width: width, height: height, maximumColumns: 64) { u, v in
            ValueNoise.fractal(u * 1.5, v * 1.5, seed: seeds.2, octaves: 2)
        }
        let sky = Light(0.008, 0.012, 0.035)
        let warm = Light(1.0, 0.78, 0.55)
        let cool = Light(0.55, 0.66, 1.0)
        canvas.fill { x, y in
            let profile = band(Float(x), Float(y))
            let cloud = glow.sample(x, y)
            let rift = smoothstep(0.48, 0.66, dust.sample(x, y)) * profile
            let light =
                warm.mixed(with: cool, amount: tint.sample(x, y) * 1.6 - 0.3) * (profile * (0.1 + 1.1 * cloud * cloud))
            return sky + light * (1 - 0.85 * rift)
        }
        let scale = starScale(canvas)
        let count = width * height / 170
        scatterStars(on: &canvas, count: count, scale: scale, random: &random) { random in
            let x = random.unit() * Float(width)
            let y = random.unit() * Float(height)
            // Most stars lie in the band: keep each with a probability that grows towards it.
            return random.unit() < 0.2 + 0.8 * band(x, y) ? (x, y) : nil
        }
    }

    /// A glowing cloud of gas in two or three colours, folded by domain
    /// warping into wisps, cut by dark dust, with young stars inside.
    private static func paintNebula(on canvas: inout LightCanvas, random: inout SplitMix64) {
        let width = canvas.width
        let height = canvas.height
        let palettes: [(Light, Light, Light)] = [
            (Light(0.95, 0.16, 0.32), Light(0.12, 0.62, 0.78), Light(1.0, 0.72, 0.35)),  // hydrogen red, oxygen teal
            (Light(0.78, 0.22, 0.92), Light(0.20, 0.36, 1.00), Light(1.0, 0.55, 0.80)),  // violet and blue
            (Light(1.00, 0.45, 0.15), Light(0.85, 0.18, 0.25), Light(1.0, 0.88, 0.55)),  // fiery
            (Light(0.10, 0.80, 0.60), Light(0.25, 0.35, 0.95), Light(0.75, 1.0, 0.85)),  // green-blue
        ]
        let (first, second, highlight) = palettes[Int(random.next() % UInt64(palettes.count))]
        let aspect = Float(width) / Float(height)
        let unitWidth = max(aspect, 1)
        let unitHeight = max(1 / aspect, 1)
        let centerU = unitWidth * random.unit(in: 0.35...0.65)
        let centerV = unitHeight * random.unit(in: 0.35...0.65)
        let radius = random.unit(in: 0.45...0.7)
        let seeds = (0..<4).map { _ in UInt32(truncatingIfNeeded: random.next()) }
        let frequency = random.unit(in: 2.0...3.2)
        let density = NoiseField(width: width, height: height) { u, v in
            let warpX = ValueNoise.fractal(u * 2, v * 2, seed: seeds[0], octaves: 4)
            let warpY = ValueNoise.fractal(u * 2 + 5.2, v * 2 + 1.3, seed: seeds[0] &+ 1, octaves: 4)
            let cloud = ValueNoise.fractal(
                u * frequency + 1.8 * warpX,
                v * frequency + 1.8 * warpY,
                seed: seeds[1],
                octaves: 6
            )
            let du = (u - centerU) / radius
            let dv = (v - centerV) / radius
            return cloud * (0.35 + 0.85 * Foundation.exp(-(du * du + dv * dv)))
        }
        let hue = NoiseField(width: width, height: height, maximumColumns: 128) { u, v in
            ValueNoise.fractal(u * 1.6, v * 1.6, seed: seeds[2], octaves: 3)
        }
        let dust = NoiseField(width: width, height: height) { u, v in
            ValueNoise.fractal(u * 4.5, v * 4.5, seed: seeds[3], octaves: 5)
        }
        let sky = Light(0.006, 0.006, 0.02)
        canvas.fill { x, y in
            let gas = smoothstep(0.28, 0.8, density.sample(x, y))
            let colour = first.mixed(with: second, amount: smoothstep(0.35, 0.65, hue.sample(x, y)))
            let bright = gas * gas * gas
            let shade = 1 - 0.8 * smoothstep(0.52, 0.7, dust.sample(x, y)) * smoothstep(0.05, 0.4, gas)
            return sky + (colour * (1.5 * gas) + highlight * (1.6 * bright)) * shade
        }
        let scale = starScale(canvas)
        scatterStars(on: &canvas, count: width * height / 650, scale: scale, random: &random) { random in
            (random.unit() * Float(width), random.unit() * Float(height))
        }
        // A few young, hot stars lighting the cloud from inside.
        let side = Float(min(width, height))
        for _ in 0..<(3 + Int(random.next() % 4)) {
            let x = (centerU + random.unit(in: -0.3...0.3)) * side
            let y = (centerV + random.unit(in: -0.3...0.3)) * side
            canvas.addGlow(x: x, y: y, sigma: side * 0.03, color: highlight, intensity: 0.25)
            canvas.addStar(
                x: x,
                y: y,
                brightness: random.unit(in: 3...6),
                color: Light.starColor(temperature: 0.95),
                scale: scale
            )
        }
    }

    /// A spiral galaxy seen at a slant: a yellow bulge, blue-white arms on a
    /// logarithmic spiral with dust lanes along their inner edges, and pink
    /// star-forming knots.
    private static func paintGalaxy(on canvas: inout LightCanvas, random: inout SplitMix64) {
        let width = canvas.width
        let height = canvas.height
        let side = Float(min(width, height))
        let centerX = Float(width) * random.unit(in: 0.42...0.58)
        let centerY = Float(height) * random.unit(in: 0.42...0.58)
        let radius = side * random.unit(in: 0.42...0.52)
        let tilt = random.unit(in: 0.45...0.95)  // the minor axis over the major
        let rotation = random.unit(in: 0...Float.pi)
        let arms: Float = random.next() % 3 == 0 ? 3 : 2
        let winding = 1 / Foundation.tan(random.unit(in: 0.2...0.35))  // from the pitch angle
        let twist = random.unit(in: 0...(2 * Float.pi))
        let clumpSeed = UInt32(truncatingIfNeeded: random.next())
        let clumps = NoiseField(width: width, height: height) { u, v in
            ValueNoise.fractal(u * 9, v * 9, seed: clumpSeed, octaves: 4)
        }
        let (cosine, sine) = (Foundation.cos(rotation), Foundation.sin(rotation))
        let bulge = Light(1.0, 0.82, 0.55)
        let disk = Light(0.72, 0.8, 1.0)
        let sky = Light(0.004, 0.005, 0.015)

        /// The spiral phase at galaxy-plane polar coordinates: arms where it is a multiple of 2π.
        func phase(_ r: Float, _ theta: Float) -> Float {
            arms * (theta - winding * Foundation.log(r + 0.03)) + twist
        }
        canvas.fill { x, y in
            let dx = Float(x) + 0.5 - centerX
            let dy = Float(y) + 0.5 - centerY
            let u = (dx * cosine + dy * sine) / radius
            let v = (-dx * sine + dy * cosine) / (radius * tilt)
            let r = (u * u + v * v).squareRoot()
            guard r < 1.6 else { return sky }
            let clump = clumps.sample(x, y)
            let spiral = phase(r, Foundation.atan2(v, u))
            let arm = Foundation.pow(0.5 + 0.5 * Foundation.cos(spiral + 1.2 * clump), 3)
            let lane = Foundation.pow(0.5 + 0.5 * Foundation.cos(spiral - 0.9), 10)
            let diskLight = Foundation.exp(-r / 0.28) * (0.12 + 1.4 * arm * (0.15 + clump * clump * 1.6))
            let core = Foundation.exp(-r * r / 0.012) * 2.4 + Foundation.exp(-r / 0.1) * 0.5
            let dimming = 1 - 0.75 * lane * smoothstep(0.08, 0.25, r) * Foundation.exp(-r / 0.6)
            return sky + (disk * diskLight + bulge * core) * dimming
        }
        let scale = starScale(canvas)
        // Star-forming knots along the arms: pink glows with a blue star in the middle.
        for _ in 0..<(20 + Int(random.next() % 25)) {
            let r = random.unit(in: 0.18...0.85)
            let arm = Float(random.next() % UInt64(arms))
            let theta =
                (2 * Float.pi * arm - twist) / arms + winding * Foundation.log(r + 0.03) + random.unit(in: -0.15...0.15)
            let u = r * Foundation.cos(theta)
            let v = r * Foundation.sin(theta) * tilt
            let x = centerX + (u * cosine - v * sine) * radius
            let y = centerY + (u * sine + v * cosine) * radius
            canvas.addGlow(
                x: x,
                y: y,
                sigma: side * random.unit(in: 0.004...0.01),
                color: Light(1.0, 0.35, 0.6),
                intensity: 0.3
            )
            canvas.addStar(
                x: x,
                y: y,
                brightness: random.unit(in: 0.3...0.9),
                color: Light.starColor(temperature: 1),
                scale: scale
            )
        }
        scatterStars(on: &canvas, count: width * height / 900, scale: scale, random: &random) { random in
            (random.unit() * Float(width), random.unit() * Float(height))
        }
        // Far-off galaxies: small, faint smudges.
        for _ in 0..<(width * height / 40_000 + 3) {
            canvas.addGlow(
                x: random.unit() * Float(width),
                y: random.unit() * Float(height),
                sigma: side * random.unit(in: 0.002...0.006),
                color: Light(0.9, 0.8, 0.7),
                intensity: random.unit(in: 0.1...0.35)
            )
        }
    }

    /// A globular cluster: a ball of old, yellow stars that crowd into a
    /// glowing core (Plummer's profile), over a thin field of others.
    private static func paintCluster(on canvas: inout LightCanvas, random: inout SplitMix64) {
        let width = canvas.width
        let height = canvas.height
        let side = Float(min(width, height))
        let centerX = Float(width) * random.unit(in: 0.4...0.6)
        let centerY = Float(height) * random.unit(in: 0.4...0.6)
        let coreRadius = side * random.unit(in: 0.05...0.09)
        let sky = Light(0.005, 0.007, 0.02)
        let haze = Light(1.0, 0.8, 0.55)
        canvas.fill { x, y in
            let dx = Float(x) + 0.5 - centerX
            let dy = Float(y) + 0.5 - centerY
            let r2 = (dx * dx + dy * dy) / (coreRadius * coreRadius)
            // The unresolved stars of the core: Plummer's surface brightness, (1 + r²)^−2.
            return sky + haze * (0.5 / ((1 + r2) * (1 + r2)))
        }
        let scale = starScale(canvas)
        let members = Int(Float(width * height) / 90 * min(1, 250_000 / Float(width * height)).squareRoot())
        for _ in 0..<members {
            // A radius from Plummer's cumulative mass, a direction at random.
            let mass = random.unit(in: 0.001...0.97)
            let r = coreRadius / (Foundation.pow(mass, -2.0 / 3.0) - 1).squareRoot()
            let angle = random.unit() * 2 * Float.pi
            let x = centerX + r * Foundation.cos(angle)
            let y = centerY + r * Foundation.sin(angle)
            // Old stars: mostly yellow and orange, a few blue stragglers.
            let temperature = random.unit() < 0.06 ? random.unit(in: 0.8...1) : random.unit(in: 0.05...0.5)
            let u = random.unit()
            canvas.addStar(
                x: x,
                y: y,
                brightness: 0.15 + 0.9 * u * u * u + 3 * Foundation.pow(u, 250),
                color: Light.starColor(temperature: temperature),
                scale: scale
            )
        }
        scatterStars(on: &canvas, count: width * height / 1_200, scale: scale, random: &random) { random in
            (random.unit() * Float(width), random.unit() * Float(height))
        }
    }

    // MARK: Stars

    /// Stars a little larger on larger canvases, so they read at any size.
    private static func starScale(_ canvas: LightCanvas) -> Float {
        min(max((Float(min(canvas.width, canvas.height)) / 600).squareRoot(), 0.8), 1.6)
    }

    /// `count` tries at placing a star where `place` says (nil skips it):
    /// mostly faint, a few bright, in colours around a sun's white.
    private static func scatterStars(
        on canvas: inout LightCanvas,
        count: Int,
        scale: Float,
        random: inout SplitMix64,
        place: (inout SplitMix64) -> (Float, Float)?
    ) {
        for _ in 0..<count {
            guard let (x, y) = place(&random) else { continue }
            let u = random.unit()
            let brightness = 0.06 + 0.6 * u * u * u * u + 4 * Foundation.pow(u, 80)
            let temperature = 0.55 + (random.unit() + random.unit() - 1) * 0.75
            canvas.addStar(
                x: x,
                y: y,
                brightness: brightness,
                color: Light.starColor(temperature: temperature),
                scale: scale
            )
        }
    }

    /// 0 below `low`, 1 above `high`, a smooth S between.
    static func smoothstep(_ low: Float, _ high: Float, _ value: Float) -> Float {
        let t = min(max((value - low) / (high - low), 0), 1)
        return t * t * (3 - 2 * t)
    }
}

extension SplitMix64 {
    /// A number in 0..<1 with 24 random bits, a Float's precision.
    mutating func unit() -> Float {
        Float(next() >> 40) * (1 / 16_777_216)
    }

    /// A number in `range`.
    mutating func unit(in range: ClosedRange<Float>) -> Float {
        range.lowerBound + unit() * (range.upperBound - range.lowerBound)
    }
}
