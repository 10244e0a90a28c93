/// An 8-bit RGBA colour.
struct Color: Sendable, Equatable {
    var red: UInt8
    var green: UInt8
    var blue: UInt8
    var alpha: UInt8 = 255

    static let clear = Color(red: 0, green: 0, blue: 0, alpha: 0)

    /// The colour `amount` (0…1) of the way from this one to `other`.
    func mixed(with other: Color, amount: Double) -> Color {
        let t = min(max(amount, 0), 1)
        func mix(_ a: UInt8, _ b: UInt8) -> UInt8 {
            UInt8((Double(a) + (Double(b) - Double(a)) * t).rounded())
        }
        return Color(
            red: mix(red, other.red),
            green: mix(green, other.green),
            blue: mix(blue, other.blue),
            alpha: mix(alpha, other.alpha)
        )
    }

    /// This colour with its alpha scaled by `opacity` (0…1).
    func withOpacity(_ opacity: Double) -> Color {
        var color = self
        color.alpha = UInt8((Double(alpha) * min(max(opacity, 0), 1)).rounded())
        return color
    }
}
