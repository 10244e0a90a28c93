import Foundation
import HTTPTypes

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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
    /// - Parameters:
    ///   - request: The request; its ``Request/maximumResponseSize``, if set,
    ///     limits the file's size (the client's does not apply to downloads).
    ///     Its response type is not used.
    ///   - destination: The file URL to write; a file already there is
    ///     replaced once the download is complete.
    ///   - progress: runs beside the download with its progress; the
    ///     sequence ends when the download does, and the download returns
    ///     once `progress` has.
    /// - Returns: the response, whose value is `destination`. Its `body` is
    ///   empty: the bytes are in the file.
    /// - Throws: ``HTTPClientError`` (``HTTPClientError/fileFailure(path:underlying:)``
    ///   when the file cannot be written), or `CancellationError`. Nothing is
    ///   left behind on failure.
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
        reporting reporter: TransferProgressUpdates.Continuation
    ) async throws -> Response<URL> {
        let startDate = Date()
        let start = ContinuousClock.now
        let response = try await stream(request)
        let firstByte = ContinuousClock.now - start
        let total = response.body.knownLength.map(Int64.init)
        let limit = request.maximumResponseSize ?? .max
        if let total, total > limit { throw HTTPClientError.responseTooLarge(limit: limit) }

        let file = try PartialFile(for: destination)
        var received: Int64 = 0
        do {
            reporter.yield(TransferProgress(completedBytes: 0, totalBytes: total))
            try await Self.mappingErrors {
                for try await chunk in response.body {
                    received += Int64(chunk.count)
                    guard received <= limit else { throw HTTPClientError.responseTooLarge(limit: limit) }
                    try file.write(chunk)
                    reporter.yield(TransferProgress(completedBytes: received, totalBytes: total))
                }
            }
            try file.complete()
        } catch {
            file.abandon()
            throw error
        }
        let metrics = RequestMetrics(
            startDate: startDate,
            timeToFirstByte: firstByte,
            duration: ContinuousClock.now - start,
            bytesSent: 0,
            bytesReceived: Int(received)
        )
        return Response(value: destination, head: response.head, body: Data(), metrics: metrics)
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
    public func upload<Value: Decodable & Sendable>(
        _ request: Request<Value>,
        progress: @escaping @Sendable (TransferProgressUpdates) async -> Void
    ) async throws -> Response<Value> {
        try await observingUpload(progress) { try await send(request) }
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

    private func observingUpload<T>(
        _ progress: @escaping @Sendable (TransferProgressUpdates) async -> Void,
        _ operation: () async throws -> T
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

/// A download being written beside its destination, renamed over it when complete.
private final class PartialFile {
    let temporary: URL
    let destination: URL
    private let handle: FileHandle

    init(for destination: URL) throws {
        self.destination = destination
        let directory = destination.deletingLastPathComponent()
        temporary = directory.appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).download")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            throw HTTPClientError.fileFailure(path: temporary.path, underlying: CocoaError(.fileWriteNoPermission))
        }
        do {
            handle = try FileHandle(forWritingTo: temporary)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw HTTPClientError.fileFailure(path: temporary.path, underlying: error)
        }
    }

    func write(_ chunk: Data) throws {
        do {
            try handle.write(contentsOf: chunk)
        } catch {
            throw HTTPClientError.fileFailure(path: temporary.path, underlying: error)
        }
    }

    /// Flushes to disk and renames into place, replacing what was there.
    func complete() throws {
        do {
            try handle.synchronize()
            try handle.close()
        } catch {
            abandon()
            throw HTTPClientError.fileFailure(path: temporary.path, underlying: error)
        }
        guard rename(temporary.path, destination.path) == 0 else {
            let error = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            abandon()
            throw HTTPClientError.fileFailure(path: destination.path, underlying: error)
        }
    }

    func abandon() {
        try? handle.close()
        try? FileManager.default.removeItem(at: temporary)
    }
}
