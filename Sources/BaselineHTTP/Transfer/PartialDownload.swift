import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A download being written beside its destination, renamed over it when
/// complete, and kept when the transfer fails so that the next download to
/// the same destination can resume it.
///
/// Two files sit beside the destination while it is incomplete:
/// `.<name>.download`, the bytes received so far, and
/// `.<name>.download.resume`, a small JSON document naming the URL they came
/// from and the validator (strong `ETag`, or `Last-Modified`) that a resume
/// sends as `If-Range`. Without a validator a resume could splice two
/// versions of a file, so such a download is not kept.
final class PartialDownload {
    /// What a resume needs to know about the bytes on disk.
    struct ResumeInfo: Codable, Equatable {
        var url: String
        var validator: String
    }

    /// Where the bytes on disk came from, and how many there are.
    struct ResumePoint: Equatable {
        var offset: Int64
        var validator: String
    }

    let destination: URL
    let bytesURL: URL
    let infoURL: URL
    private var handle: FileHandle?
    private var resumable = false

    init(for destination: URL) {
        self.destination = destination
        let directory = destination.deletingLastPathComponent()
        bytesURL = directory.appendingPathComponent(".\(destination.lastPathComponent).download")
        infoURL = directory.appendingPathComponent(".\(destination.lastPathComponent).download.resume")
    }

    /// The bytes on disk from an earlier download of `url`, if any were kept
    /// with a validator. A resume document that does not parse, or names
    /// another URL, is ignored (the download starts over).
    func resumePoint(for url: URL) -> ResumePoint? {
        guard let data = try? Data(contentsOf: infoURL),
            let info = try? JSONDecoder().decode(ResumeInfo.self, from: data),
            info.url == url.absoluteString, !info.validator.isEmpty,
            let size = try? FileManager.default.attributesOfItem(atPath: bytesURL.path)[.size] as? NSNumber,
            size.int64Value > 0
        else { return nil }
        return ResumePoint(offset: size.int64Value, validator: info.validator)
    }

    /// Opens the file to write from `offset` (0 starts over), recording
    /// `validator` so that a failure keeps what arrives; with no validator a
    /// failure removes it.
    func begin(at offset: Int64, url: URL, validator: String?) throws {
        do {
            if offset == 0 {
                try? FileManager.default.removeItem(at: infoURL)
                guard FileManager.default.createFile(atPath: bytesURL.path, contents: nil) else {
                    throw CocoaError(.fileWriteNoPermission)
                }
            }
            let handle = try FileHandle(forWritingTo: bytesURL)
            self.handle = handle
            // Bytes past the offset (a write cut short) are dropped.
            try handle.truncate(atOffset: UInt64(offset))
            try handle.seekToEnd()
            if let validator {
                let info = ResumeInfo(url: url.absoluteString, validator: validator)
                try JSONEncoder().encode(info).write(to: infoURL, options: .atomic)
                resumable = true
            } else {
                try? FileManager.default.removeItem(at: infoURL)
                resumable = false
            }
        } catch {
            discard()
            throw HTTPClientError.fileFailure(path: bytesURL.path, underlying: error)
        }
    }

    func write(_ chunk: Data) throws {
        do {
            guard let handle else { throw CocoaError(.fileWriteUnknown) }
            try handle.write(contentsOf: chunk)
        } catch {
            throw HTTPClientError.fileFailure(path: bytesURL.path, underlying: error)
        }
    }

    /// Flushes to disk and renames into place, replacing what was there.
    func complete() throws {
        do {
            try handle?.synchronize()
            try handle?.close()
            handle = nil
        } catch {
            discard()
            throw HTTPClientError.fileFailure(path: bytesURL.path, underlying: error)
        }
        guard rename(bytesURL.path, destination.path) == 0 else {
            let error = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            discard()
            throw HTTPClientError.fileFailure(path: destination.path, underlying: error)
        }
        try? FileManager.default.removeItem(at: infoURL)
    }

    /// The transfer failed: keep what arrived for a resume when it has a
    /// validator and at least one byte, else remove it.
    func suspend() {
        try? handle?.close()
        handle = nil
        let size = (try? FileManager.default.attributesOfItem(atPath: bytesURL.path)[.size] as? NSNumber)?.int64Value
        if !resumable || (size ?? 0) == 0 { discard() }
    }

    /// Removes the bytes and the resume document.
    func discard() {
        try? handle?.close()
        handle = nil
        try? FileManager.default.removeItem(at: bytesURL)
        try? FileManager.default.removeItem(at: infoURL)
    }
}
