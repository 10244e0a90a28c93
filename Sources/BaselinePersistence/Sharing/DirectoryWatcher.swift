import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Signals when anything in a directory changes: a file created, replaced,
/// written or removed, by this process or another. What changed is left to
/// the reader, which loads again and compares.
///
/// Linux uses inotify; Apple platforms a dispatch source on the directory,
/// which reports entries added, removed and renamed (an atomic replace), not
/// writes inside an existing file.
enum DirectoryWatcher {
    /// The directory's changes, one signal for a burst (the newest is kept
    /// while the reader is busy), until the stream is dropped. A directory
    /// that cannot be watched gives a stream that ends at once.
    static func changes(in directory: URL) -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        guard let source = makeSource(directory: directory, signal: { continuation.yield() }) else {
            continuation.finish()
            return stream
        }
        let watch = Watch(source)
        continuation.onTermination = { _ in watch.source.cancel() }
        source.resume()
        return stream
    }

    /// The source, for the stream's end to cancel.
    // A dispatch source is thread-safe, and only `cancel()` is called on it here.
    private final class Watch: @unchecked Sendable {  // safety: see above
        let source: any DispatchSourceProtocol
        init(_ source: any DispatchSourceProtocol) { self.source = source }
    }

    #if os(Linux) || os(Android)
    private static func makeSource(directory: URL, signal: @escaping @Sendable () -> Void) -> (any DispatchSourceRead)?
    {
        let fd = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        let mask =
            UInt32(IN_MODIFY) | UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO) | UInt32(IN_MOVED_FROM)
            | UInt32(IN_CREATE) | UInt32(IN_DELETE)
        guard inotify_add_watch(fd, directory.path, mask) >= 0 else {
            close(fd)
            return nil
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler {
            // Drain the events: which file it was does not matter.
            var buffer = [UInt8](repeating: 0, count: 4096)
            while buffer.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }) > 0 {}
            signal()
        }
        source.setCancelHandler { close(fd) }
        return source
    }
    #else
    private static func makeSource(
        directory: URL,
        signal: @escaping @Sendable () -> Void
    ) -> (any DispatchSourceFileSystemObject)? {
        let fd = open(directory.path, O_EVTONLY)
        guard fd >= 0 else { return nil }
        let source = DispatchSource.makeFileSystemObjectSource(
            fileDescriptor: fd,
            eventMask: [.write, .rename, .delete],
            queue: queue
        )
        source.setEventHandler { signal() }
        source.setCancelHandler { close(fd) }
        return source
    }
    #endif

    private static let queue = DispatchQueue(label: "baseline.directory-watcher")
}
