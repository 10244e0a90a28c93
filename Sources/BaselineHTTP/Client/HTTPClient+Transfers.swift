import Foundation
import HTTPTypes

extension HTTPClient {
    /// Downloads the response body to `destination`, chunk by chunk, so a
    /// large file never sits in memory whole; the file appears at
    /// `destination` only once complete (written beside it, then renamed
    /// over it in one step).
    ///
    /// ```swift
    /// let saved = try await client.download(Request<Void>.get("/downloads/64MiB.bin"), to: fileURL) { progress in
    ///     for await update in progress {
    ///         print("\(Int((update.fractionCompleted ?? 0) * 100)) %")
    ///     }
    /// }
    /// ```
    ///
    /// A download that fails (a dropped connection, a cancelled task) keeps
    /// what it received beside `destination`, and the next download of the
    /// same URL to the same destination resumes it: it asks for the rest
    /// with `Range`, and with `If-Range` set to the strong `ETag` (or
    /// `Last-Modified`) of the first response, so that a file that changed
    /// meanwhile comes whole instead of being spliced. A server that ignores
    /// the range, answers 416, or sends a 206 for another range than the
    /// rest of the file gets the download started over. A 206 whose
    /// `Content-Length` is not the length of its `Content-Range` fails with
    /// ``HTTPClientError/transport(underlying:)`` (a ``TransportFailure`` of
    /// reason ``TransportFailure/Reason/malformedResponse(detail:)``) and
    /// keeps the bytes already there. Progress
    /// continues from the bytes already there. Only a response with such a
    /// validator is kept; without one a failed download leaves nothing
    /// behind. Run one download at a time per destination.
    ///
    /// Downloads ask for the bytes as stored (`Accept-Encoding: identity`),
    /// since ranges count them; a request that sets another coding is not
    /// resumed.
    ///
    /// - Parameters:
    ///   - request: The request; its ``Request/maximumResponseSize``, if set,
    ///     limits the file's size (the client's does not apply to downloads).
    ///     Its response type is not used. A request that sets `Range` itself
    ///     is sent as it is and never resumed.
    ///   - destination: The file URL to write; a file already there is
    ///     replaced once the download is complete.
    ///   - progress: runs beside the download with its progress; the
    ///     sequence ends when the download does, and the download returns
    ///     once `progress` has.
    /// - Returns: the response, whose value is `destination`: the last
    ///   response head (a 206 when the download resumed). Its `body` is
    ///   empty: the bytes are in the file.
    /// - Throws: ``HTTPClientError`` (``HTTPClientError/fileFailure(path:underlying:)``
    ///   when the file cannot be written), or `CancellationError`.
    @discardableResult
    public func download<Value>(
        _ request: Request<Value>,
        to destination: URL,
        progress: (@Sendable (TransferProgressUpdates) async -> Void)? = nil
    ) async throws -> Response<URL> {
        let (updates, reporter) = TransferProgressUpdates.makeStream(bufferingPolicy: .bufferingNewest(1))
        async let observed: Void? = progress?(updates)
        defer { reporter.finish() }
        do {
            let response = try await receive(request, to: destination, reporting: reporter)
            reporter.finish()
            await observed
            return response
        } catch {
            reporter.finish()
            await observed
            throw error
        }
    }

    private func receive<Value>(
        _ request: Request<Value>,
        to destination: URL,
        reporting reporter: TransferProgressUpdates.Continuation,
        resuming: Bool = true
    ) async throws -> Response<URL> {
        let startDate = Date()
        let start = ContinuousClock.now
        let partial = PartialDownload(for: destination)
        // The URL alone: the body, if any, is encoded once, when it is sent.
        let target = try makeHead(for: request, headerFields: [:])
        let url = target.url
        var attempt = request
        // Ranges count the bytes as stored: no compression on the fly.
        if attempt.headerFields[.acceptEncoding] == nil { attempt.headerFields[.acceptEncoding] = "identity" }
        // A request that names its own range is sent as it is, and not
        // resumed; nor is one that asks for a coding (its file holds the
        // decoded bytes, which ranges do not count).
        let resumable =
            request.headerFields[.range] == nil
            && (attempt.headerFields[.acceptEncoding]?.trimmingCharacters(in: .whitespaces).lowercased() == "identity")
        let point = resumable && resuming ? url.flatMap(partial.resumePoint(for:)) : nil
        if let point {
            attempt.headerFields[.range] = "bytes=\(point.offset)-"
            attempt.headerFields[.ifRange] = point.validator
        }
        let response: StreamingResponse
        do {
            response = try await stream(attempt)
        } catch let error as HTTPClientError where point != nil && error.status == .rangeNotSatisfiable {
            // The bytes kept are no prefix of the file as it is now.
            partial.discard()
            return try await receive(request, to: destination, reporting: reporter, resuming: false)
        }
        var offset: Int64 = 0
        // The declared length (a transport reports none below zero, but a count that was is no length).
        var total = response.body.knownLength.flatMap { $0 >= 0 ? Int64($0) : nil }
        if let point, response.status == .partialContent {
            // The rest of the same file: from the byte kept, to the end, and
            // (if the answer names one) under the validator kept.
            let validator = Self.validator(of: response.head)
            guard let range = ContentRange(response.head.headerFields[.contentRange]), range.first == point.offset,
                range.total.map({ range.end == $0 }) ?? true,
                validator == nil || validator == point.validator
            else {
                // Not the range asked for: start over rather than splice.
                response.body.discard()
                partial.discard()
                return try await receive(request, to: destination, reporting: reporter, resuming: false)
            }
            if let length = total, length != range.length {
                // The head contradicts itself: which bytes the body holds is
                // unknown, so none are written. Those kept stay for a resume.
                response.body.discard()
                throw HTTPClientError.transport(
                    underlying: TransportFailure(
                        .malformedResponse(
                            detail: "Content-Range \(range.first)-\(range.last) holds \(range.length) bytes,"
                                + " Content-Length says \(length)"
                        ),
                        server: target.authority,
                        underlying: URLError(.badServerResponse)
                    )
                )
            }
            offset = point.offset
            // The file's length, or (when the server wrote `*`) where this range ends.
            total = range.total ?? range.end
        }
        // A 200 to a resume means the server ignored the range or the file
        // changed (If-Range): the download starts over, from offset 0.
        let firstByte = ContinuousClock.now - start
        let limit = Int64(request.maximumResponseSize ?? .max)
        if let total, total > limit {
            response.body.discard()
            // Bytes kept of a file that can never fit would fail every resume the same way.
            if offset > 0 { partial.discard() }
            throw HTTPClientError.responseTooLarge(limit: Int(limit))
        }

        try partial.begin(
            at: offset,
            url: url ?? destination,
            validator: resumable && url != nil ? Self.validator(of: response.head) : nil
        )
        var received = offset
        do {
            reporter.yield(TransferProgress(completedBytes: received, totalBytes: total))
            try await Self.mappingErrors {
                for try await chunk in response.body {
                    let (sum, overflowed) = received.addingReportingOverflow(Int64(chunk.count))
                    guard !overflowed, sum <= limit else { throw HTTPClientError.responseTooLarge(limit: Int(limit)) }
                    received = sum
                    try partial.write(chunk)
                    reporter.yield(TransferProgress(completedBytes: received, totalBytes: total))
                }
            }
            if let total, received != total {
                // A body that ended early without the transport noticing.
                throw HTTPClientError.transport(
                    underlying: TransportFailure(
                        .connectionLost,
                        server: nil,
                        underlying: URLError(.networkConnectionLost)
                    )
                )
            }
            try partial.complete()
        } catch {
            if case .responseTooLarge = error as? HTTPClientError {
                // A resume could only fail the same way.
                partial.discard()
            } else {
                partial.suspend()
            }
            throw error
        }
        let metrics = RequestMetrics(
            startDate: startDate,
            timeToFirstByte: firstByte,
            duration: ContinuousClock.now - start,
            bytesSent: 0,
            // Clamped: a file beyond 2 GiB would not fit a 32-bit `Int`.
            bytesReceived: Int(clamping: received - offset)
        )
        return Response(value: destination, head: response.head, body: Data(), metrics: metrics)
    }

    /// What a resume sends as `If-Range`: a strong `ETag`, else
    /// `Last-Modified` when there is no tag at all. A weak tag may not be
    /// used there, nor a date when a tag exists (RFC 9110 §13.1.5).
    static func validator(of head: HTTPResponse) -> String? {
        if let tag = head.headerFields[.eTag] { return tag.hasPrefix("\"") ? tag : nil }
        return head.headerFields[.lastModified]
    }

    /// Sends `request` — typically with a ``RequestBody/file(_:contentType:)``
    /// or ``RequestBody/multipart(_:)`` body — and decodes the response,
    /// reporting how much of the body has been sent.
    ///
    /// ```swift
    /// let receipt = try await client.upload(.post("/uploads", body: .file(photo)) as Request<UploadReceipt>) { progress in
    ///     for await update in progress { bar.show(update) }
    /// }
    /// ```
    ///
    /// Progress comes from the transport (``UploadProgressReporting``); a
    /// transport that does not report it leaves the sequence empty.
    public nonisolated(nonsending) func upload<Value: Decodable & Sendable>(
        _ request: Request<Value>,
        progress: @escaping @Sendable (TransferProgressUpdates) async -> Void
    ) async throws -> Response<Value> {
        try await observingUpload(progress) { try await send(request) }
    }

    /// Sends `request` and decodes its JSON answer on the caller's actor,
    /// reporting how much of the request body has been sent: for a `Value`
    /// whose `Decodable` conformance is isolated to that actor (see
    /// ``send(_:)-13tyv``).
    @_disfavoredOverload
    public nonisolated(nonsending) func upload<Value: Decodable>(
        _ request: Request<Value>,
        progress: @escaping @Sendable (TransferProgressUpdates) async -> Void
    ) async throws -> Response<Value> {
        let prepared = try prepare(request)
        let received = try await observingUpload(progress) { try await self.exchange(prepared) }
        return try Response(received, value: Self.decode(Value.self, from: received.body, with: configuration.decoder))
    }

    /// Sends `request`, ignoring the response body, reporting how much of the
    /// request body has been sent.
    @discardableResult
    public func upload(
        _ request: Request<Void>,
        progress: @escaping @Sendable (TransferProgressUpdates) async -> Void
    ) async throws -> Response<Void> {
        try await observingUpload(progress) { try await send(request) }
    }

    private func observingUpload<T: Sendable>(
        _ progress: @escaping @Sendable (TransferProgressUpdates) async -> Void,
        _ operation: @Sendable () async throws -> T
    ) async throws -> T {
        let (updates, reporter) = TransferProgressUpdates.makeStream(bufferingPolicy: .bufferingNewest(1))
        async let observed: Void = progress(updates)
        let result = await Result {
            try await UploadProgressReporting.$current.withValue({ reporter.yield($0) }) {
                try await operation()
            }
        }
        reporter.finish()
        await observed
        return try result.get()
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
