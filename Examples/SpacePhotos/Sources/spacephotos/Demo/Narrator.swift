import Foundation

/// Prints the demo's narration: headings, steps and results.
struct Narrator: Sendable {
    func title(_ text: String) {
        print("\n== \(text)")
    }

    func section(_ text: String) {
        print("\n-- \(text)")
    }

    func step(_ text: String) {
        print("   \(text)")
    }

    func result(_ text: String) {
        print("   → \(text)")
    }

    /// A duration as the narration shows it: milliseconds under a second, else seconds.
    static func format(_ duration: Duration) -> String {
        let milliseconds = Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
        return milliseconds < 1_000
            ? String(format: "%.0f ms", milliseconds) : String(format: "%.2f s", milliseconds / 1_000)
    }
}
