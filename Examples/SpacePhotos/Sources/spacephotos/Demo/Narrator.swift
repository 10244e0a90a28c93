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
}
