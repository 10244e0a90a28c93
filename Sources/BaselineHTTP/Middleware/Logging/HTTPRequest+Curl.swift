import Foundation
import HTTPTypes
import HTTPTypesFoundation

extension HTTPRequest {
    /// A `curl` command that sends this request, to paste into a terminal
    /// while debugging. Credentials are redacted (see ``RedactionPolicy``).
    ///
    /// ```swift
    /// print(request.curlDescription(body: jsonData))
    /// // curl -X POST 'https://api.example.com/notes' -H 'Content-Type: application/json' -H 'Authorization: <redacted>' --data-binary '{"text":"it'\''s"}'
    /// ```
    ///
    /// Arguments are single-quoted for POSIX shells, with any `'` written as
    /// `'\''`. A body that is not UTF-8 text cannot be quoted usefully and is
    /// shown as a placeholder naming its size.
    ///
    /// - Parameters:
    ///   - body: The request body, if it should be included.
    ///   - redaction: What to hide; by default the credential fields.
    public func curlDescription(body: Data? = nil, redacting redaction: RedactionPolicy = .default) -> String {
        var arguments = ["curl"]
        switch method {
        case .get where body == nil: break
        case .head: arguments.append("--head")
        default: arguments += ["-X", method.rawValue]
        }
        arguments.append(Self.shellQuoted(redaction.url(urlText)))
        for line in redaction.lines(for: headerFields) {
            arguments += ["-H", Self.shellQuoted(line)]
        }
        if let body {
            let text = String(data: body, encoding: .utf8) ?? "<binary body: \(body.count) bytes>"
            arguments += ["--data-binary", Self.shellQuoted(text)]
        }
        return arguments.joined(separator: " ")
    }

    /// The request's URL as text, from its scheme, authority and path.
    var urlText: String {
        url?.absoluteString ?? "\(scheme ?? "")://\(authority ?? "")\(path ?? "")"
    }

    /// `text` as one single-quoted POSIX shell word.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
