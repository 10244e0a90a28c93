import HTTPTypes

extension HTTPResponse {
    /// A response head for a transport to return, which shares its status
    /// with every other head of the same status.
    ///
    /// An `HTTPResponse` keeps its status in a storage object of its own, so
    /// making one costs an allocation. For the common statuses with their
    /// usual reason phrase, this starts from a head made once and only sets
    /// the fields; copy-on-write keeps the heads independent.
    ///
    /// ```swift
    /// let head = HTTPResponse(sharingStatus: 200, reasonPhrase: "OK", headerFields: fields)
    /// ```
    ///
    /// - Parameters:
    ///   - code: The status code: three digits (0–999), as
    ///     `HTTPResponse.Status` requires.
    ///   - reasonPhrase: The reason phrase the server sent; `nil` when the
    ///     transport does not know it, for the code's usual one (an empty
    ///     phrase for a code without a usual one).
    ///   - headerFields: The response's header fields.
    public init(sharingStatus code: Int, reasonPhrase: String? = nil, headerFields: HTTPFields) {
        if let shared = SharedStatuses.heads[code],
            reasonPhrase == nil || reasonPhrase == shared.status.reasonPhrase
        {
            self = shared
            self.headerFields = headerFields
        } else if let reasonPhrase {
            self.init(status: .init(code: code, reasonPhrase: reasonPhrase), headerFields: headerFields)
        } else {
            self.init(status: .init(code: code), headerFields: headerFields)
        }
    }
}

/// One head per common status, with its usual reason phrase, made on first use.
private enum SharedStatuses {
    static let heads: [Int: HTTPResponse] = {
        let statuses: [HTTPResponse.Status] = [
            .ok, .created, .accepted, .noContent, .partialContent, .movedPermanently, .found, .seeOther,
            .notModified, .temporaryRedirect, .permanentRedirect, .badRequest, .unauthorized, .forbidden, .notFound,
            .methodNotAllowed, .notAcceptable, .requestTimeout, .conflict, .gone, .preconditionFailed,
            .contentTooLarge, .unsupportedMediaType, .rangeNotSatisfiable, .unprocessableContent, .tooManyRequests,
            .internalServerError, .notImplemented, .badGateway, .serviceUnavailable, .gatewayTimeout,
        ]
        return Dictionary(uniqueKeysWithValues: statuses.map { ($0.code, HTTPResponse(status: $0)) })
    }()
}
