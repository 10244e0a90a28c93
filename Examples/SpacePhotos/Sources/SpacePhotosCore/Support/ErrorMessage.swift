import BaselineHTTP
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// `nonisolated` for an app target whose default isolation is the main actor:
// effects word their errors off the main actor.

/// The one line a person reads for an error, wherever the app or the CLI
/// shows one: "Could not connect to 127.0.0.1:1 (connection refused)",
/// "404 Not Found: No photo for 2024-13-01", never an `NSError` dump.
///
/// `HTTPClientError` describes itself in such a line; this puts errors that
/// reach the app in other ways (a bare `URLError` or `DecodingError`, an
/// `NSError`) in the same words, and keeps every message on one line.
public nonisolated enum ErrorMessage {
    /// The line for `error`.
    public static func line(for error: any Error) -> String {
        oneLine(text(for: error))
    }

    /// `context` and the line for `error`: "The catalog could not be loaded:
    /// Could not connect to …".
    public static func line(_ context: String, _ error: any Error) -> String {
        "\(context): \(line(for: error))"
    }

    private static func text(for error: any Error) -> String {
        switch error {
        case let error as HTTPClientError: error.description
        case is CancellationError: "Cancelled"
        case let error as URLError: HTTPClientError.transport(underlying: error).description
        case let error as DecodingError: HTTPClientError.decodingFailed(underlying: error, bodyExcerpt: "").description
        case let error as TransportFailure: error.description
        case let error as LocalizedError where error.errorDescription != nil: error.errorDescription ?? ""
        case let error as CustomStringConvertible: error.description
        default: (error as NSError).localizedDescription
        }
    }

    /// Newlines and runs of spaces folded into single spaces.
    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .joined(separator: " ")
    }
}
