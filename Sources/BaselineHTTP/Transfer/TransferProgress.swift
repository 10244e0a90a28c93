/// How far an upload or a download has come.
public struct TransferProgress: Sendable, Equatable {
    /// Bytes transferred so far.
    public var completedBytes: Int64
    /// Bytes in all, when known.
    public var totalBytes: Int64?

    /// Creates a progress value.
    public init(completedBytes: Int64, totalBytes: Int64?) {
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
    }

    /// The fraction done, from 0 to 1, when the total is known.
    public var fractionCompleted: Double? {
        guard let totalBytes, totalBytes > 0 else { return totalBytes == 0 ? 1 : nil }
        return min(1, Double(completedBytes) / Double(totalBytes))
    }
}

/// The progress of one transfer, as an `AsyncSequence`: it ends when the
/// transfer does. Values that arrive faster than they are read are dropped,
/// except the newest, so a slow progress bar never holds up the transfer.
public typealias TransferProgressUpdates = AsyncStream<TransferProgress>

/// Where a transport reports upload progress.
///
/// The client sets ``current`` while an upload it was asked to observe runs
/// (``HTTPClient/upload(_:progress:)-6u2tw``); a transport that can see request body
/// bytes leave reports them here. `URLSessionTransport` does; so should other
/// transports.
public enum UploadProgressReporting {
    /// The reporter for the request being sent, if anyone listens.
    @TaskLocal public static var current: (@Sendable (TransferProgress) -> Void)?
}
