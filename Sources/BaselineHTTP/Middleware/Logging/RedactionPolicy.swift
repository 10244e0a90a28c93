import HTTPTypes

/// Which header fields and query items are hidden when a request or response
/// is written out (in logs, in a cURL command).
///
/// `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie` are
/// always redacted; a policy can add more. An array literal adds header names:
///
/// ```swift
/// let logging = LoggingMiddleware(logger: logger, redacting: [HTTPField.Name("X-Api-Key")!])
/// let curl = request.curlDescription(redacting: RedactionPolicy(queryItemNames: ["api_key"]))
/// ```
public struct RedactionPolicy: Sendable, Hashable, ExpressibleByArrayLiteral {
    /// What replaces a redacted value.
    public static let placeholder = "<redacted>"

    /// The header fields every policy redacts: they carry credentials.
    public static let alwaysRedacted: Set<HTTPField.Name> = [.authorization, .proxyAuthorization, .cookie, .setCookie]

    /// Redacts the ``alwaysRedacted`` fields only.
    public static let `default` = RedactionPolicy()

    /// The header fields whose values are hidden, ``alwaysRedacted`` included.
    public let headerNames: Set<HTTPField.Name>
    /// The query items whose values are hidden (`access_token`, say), compared
    /// exactly, after percent-decoding.
    public let queryItemNames: Set<String>

    /// A policy hiding `headerNames` as well as the ``alwaysRedacted`` fields,
    /// and the values of `queryItemNames` in URLs.
    public init(headerNames: some Sequence<HTTPField.Name> = [HTTPField.Name](), queryItemNames: Set<String> = []) {
        self.headerNames = Self.alwaysRedacted.union(headerNames)
        self.queryItemNames = queryItemNames
    }

    /// A policy hiding these header fields as well as the ``alwaysRedacted`` ones.
    public init(arrayLiteral headerNames: HTTPField.Name...) {
        self.init(headerNames: headerNames)
    }

    /// The value of `field` as it may be shown.
    public func value(of field: HTTPField) -> String {
        headerNames.contains(field.name) ? Self.placeholder : field.value
    }

    /// `fields` as `Name: value` lines, redacted, in order.
    public func lines(for fields: HTTPFields) -> [String] {
        fields.map { "\($0.name): \(value(of: $0))" }
    }

    /// `url` (text) with the values of ``queryItemNames`` hidden.
    public func url(_ url: String) -> String {
        guard !queryItemNames.isEmpty, let questionMark = url.firstIndex(of: "?") else { return url }
        let fragmentStart = url[questionMark...].firstIndex(of: "#") ?? url.endIndex
        let query = url[url.index(after: questionMark)..<fragmentStart]
        let redacted = query.split(separator: "&", omittingEmptySubsequences: false).map { item -> String in
            let name = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
            let decoded = String(name).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(name)
            return queryItemNames.contains(decoded) ? "\(name)=\(Self.placeholder)" : String(item)
        }
        return String(url[...questionMark]) + redacted.joined(separator: "&") + String(url[fragmentStart...])
    }
}
