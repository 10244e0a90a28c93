/// Which coding to answer with, given a request's `Accept-Encoding`.
enum ContentNegotiation {
    /// The coding a server that offers gzip and deflate picks: gzip when
    /// acceptable, then deflate, else none. A coding with `q=0` is refused;
    /// `*` stands for any coding not named (RFC 9110 §12.5.3).
    static func coding(forAcceptEncoding value: String?) -> String? {
        guard let value else { return nil }
        var weights: [String: Double] = [:]
        for item in value.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let name = parts.first, !name.isEmpty else { continue }
            var weight = 1.0
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                weight = Double(parameter.dropFirst(2)) ?? 0
            }
            weights[name] = weight
        }
        for coding in ["gzip", "deflate"] {
            if let weight = weights[coding] ?? (coding == "gzip" ? weights["x-gzip"] : nil) ?? weights["*"],
                weight > 0
            {
                return coding
            }
        }
        return nil
    }
}
