import Foundation

/// A filled shape in unit coordinates (0…1 across the shorter side of the
/// bitmap, y down), drawn with anti-aliased edges by ``Bitmap/fill(_:with:)``.
///
/// Each shape is a signed distance: negative inside, positive outside, so
/// one formula gives both the inside test and the edge's soft coverage.
enum Shape: Sendable {
    case circle(center: Point, radius: Double)
    case ellipse(center: Point, radiusX: Double, radiusY: Double)
    /// A line segment with round ends, `radius` thick on each side.
    case capsule(from: Point, to: Point, radius: Double)
    /// The outline of a circle, `width` wide.
    case ring(center: Point, radius: Double, width: Double)

    struct Point: Sendable, Equatable {
        var x: Double
        var y: Double

        init(_ x: Double, _ y: Double) {
            self.x = x
            self.y = y
        }
    }

    /// The signed distance from `point` to the shape's edge.
    func distance(to point: Point) -> Double {
        switch self {
        case let .circle(center, radius):
            return hypot(point.x - center.x, point.y - center.y) - radius
        case let .ellipse(center, radiusX, radiusY):
            // Exact for circles, close enough near the edge of an ellipse,
            // which is all the anti-aliasing needs.
            let scaled = hypot((point.x - center.x) / radiusX, (point.y - center.y) / radiusY)
            return (scaled - 1) * min(radiusX, radiusY)
        case let .capsule(from, to, radius):
            let dx = to.x - from.x
            let dy = to.y - from.y
            let lengthSquared = dx * dx + dy * dy
            let t =
                lengthSquared == 0
                ? 0 : min(max(((point.x - from.x) * dx + (point.y - from.y) * dy) / lengthSquared, 0), 1)
            return hypot(point.x - (from.x + t * dx), point.y - (from.y + t * dy)) - radius
        case let .ring(center, radius, width):
            return abs(hypot(point.x - center.x, point.y - center.y) - radius) - width / 2
        }
    }

    /// A box the shape lies within: (minX, minY, maxX, maxY).
    var bounds: (Double, Double, Double, Double) {
        switch self {
        case let .circle(center, radius):
            return (center.x - radius, center.y - radius, center.x + radius, center.y + radius)
        case let .ellipse(center, radiusX, radiusY):
            return (center.x - radiusX, center.y - radiusY, center.x + radiusX, center.y + radiusY)
        case let .capsule(from, to, radius):
            return (
                min(from.x, to.x) - radius, min(from.y, to.y) - radius, max(from.x, to.x) + radius,
                max(from.y, to.y) + radius
            )
        case let .ring(center, radius, width):
            let outer = radius + width / 2
            return (center.x - outer, center.y - outer, center.x + outer, center.y + outer)
        }
    }

    /// The same shape reflected left to right across the unit square.
    var mirrored: Shape {
        func flip(_ point: Point) -> Point { Point(1 - point.x, point.y) }
        switch self {
        case let .circle(center, radius): return .circle(center: flip(center), radius: radius)
        case let .ellipse(center, radiusX, radiusY):
            return .ellipse(center: flip(center), radiusX: radiusX, radiusY: radiusY)
        case let .capsule(from, to, radius): return .capsule(from: flip(from), to: flip(to), radius: radius)
        case let .ring(center, radius, width): return .ring(center: flip(center), radius: radius, width: width)
        }
    }
}

extension Bitmap {
    /// The side of the centred square that unit coordinates span, and its corner.
    var unitSquare: (side: Double, originX: Double, originY: Double) {
        let side = Double(min(width, height))
        return (side, (Double(width) - side) / 2, (Double(height) - side) / 2)
    }

    /// Paints `shape` in `color`, blending its edge over about one pixel.
    mutating func fill(_ shape: Shape, with color: Color) {
        let (side, originX, originY) = unitSquare
        let (minX, minY, maxX, maxY) = shape.bounds
        let firstX = max(0, Int((minX * side + originX).rounded(.down)) - 1)
        let lastX = min(width - 1, Int((maxX * side + originX).rounded(.up)) + 1)
        let firstY = max(0, Int((minY * side + originY).rounded(.down)) - 1)
        let lastY = min(height - 1, Int((maxY * side + originY).rounded(.up)) + 1)
        guard firstX <= lastX, firstY <= lastY else { return }
        for y in firstY...lastY {
            for x in firstX...lastX {
                let point = Shape.Point((Double(x) + 0.5 - originX) / side, (Double(y) + 0.5 - originY) / side)
                let pixels = shape.distance(to: point) * side
                blend(color, atX: x, y: y, coverage: 0.5 - pixels)
            }
        }
    }
}
