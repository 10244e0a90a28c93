import BaselineConcurrency
import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The events of a ``TerminalSession``: keys and pastes decoded from its
/// input, resizes (SIGWINCH), and the signals that end the app (SIGTERM,
/// SIGHUP, SIGINT).
///
/// Reading is event-driven (a dispatch read source; no thread blocks on the
/// terminal between keys). A lone Escape is told apart from the start of a
/// sequence by a quiet time of ``escapeDelay`` after it, waited for with
/// poll(2) on the reader's queue, as terminal apps do.
///
/// On SIGTERM, SIGHUP and SIGINT the terminal is restored at once, from the
/// signal's queue, before the app hears of it: whatever the app does next,
/// the user's shell gets its terminal back.
///
/// Iterate it once. Stopping the iteration (or releasing the iterator)
/// stops reading and puts the signals' previous handling back.
public struct TerminalEvents: AsyncSequence, Sendable {
    /// What the sequence yields: input, resizes, suspension and termination.
    public typealias Element = TerminalEvent

    private let session: TerminalSession
    /// How long input must stay quiet after a lone `ESC` for it to be the Escape key.
    public let escapeDelay: Duration

    /// The events of `session`'s terminal; nothing is read until iteration starts.
    public init(session: TerminalSession, escapeDelay: Duration = .milliseconds(50)) {
        self.session = session
        self.escapeDelay = escapeDelay
    }

    /// Starts reading and handling the signals; ending the iteration stops both.
    public func makeAsyncIterator() -> AsyncStream<TerminalEvent>.Iterator {
        let (stream, continuation) = AsyncStream.makeStream(of: TerminalEvent.self, bufferingPolicy: .unbounded)
        let reader = Reader(session: session, escapeDelay: escapeDelay, continuation: continuation)
        reader.start()
        continuation.onTermination = { _ in reader.stop() }
        return stream.makeAsyncIterator()
    }

    /// The read and signal sources, on one serial queue.
    final class Reader: @unchecked Sendable {  // safety: every mutable property is touched only on `queue`
        private let session: TerminalSession
        private let escapeDelay: Duration
        private let continuation: AsyncStream<TerminalEvent>.Continuation
        private let queue = DispatchQueue(label: "baseline.terminal.input")

        private var decoder = InputDecoder()
        private var sources: [any DispatchSourceProtocol] = []
        private var previousHandlers: [(signal: Int32, handler: SignalHandler?)] = []

        private static let endingSignals: [Int32] = [SIGTERM, SIGHUP, SIGINT]

        init(session: TerminalSession, escapeDelay: Duration, continuation: AsyncStream<TerminalEvent>.Continuation) {
            self.session = session
            self.escapeDelay = escapeDelay
            self.continuation = continuation
        }

        func start() {
            queue.async { [self] in
                let read = DispatchSource.makeReadSource(fileDescriptor: session.input, queue: queue)
                read.setEventHandler { [self] in readAvailable() }
                sources = [read]
                for signalNumber in [SIGWINCH, SIGTSTP] + Self.endingSignals {
                    // Ignored by the process, so that only the source sees them.
                    previousHandlers.append((signalNumber, signal(signalNumber, SIG_IGN)))
                    let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
                    source.setEventHandler { [self] in received(signalNumber) }
                    sources.append(source)
                }
                for source in sources { source.resume() }
            }
        }

        func stop() {
            queue.async { [self] in
                for source in sources { source.cancel() }
                sources = []
                for (signalNumber, handler) in previousHandlers {
                    signal(signalNumber, handler)
                }
                previousHandlers = []
            }
        }

        private func readAvailable() {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { read(session.input, $0.baseAddress, $0.count) }
            if count == 0 {
                continuation.yield(.terminate(reason: "the terminal closed"))
                continuation.finish()
                return
            }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { return }  // the source fires again
                // EIO and the like: the terminal is gone (a level-triggered
                // source would otherwise fire forever).
                continuation.yield(
                    .terminate(reason: "the terminal cannot be read (\(String(cString: strerror(errno))))")
                )
                continuation.finish()
                return
            }
            let receivedAt = ContinuousClock.now
            let events = decoder.decode(buffer[0..<count])
            if !events.isEmpty { continuation.yield(.input(events, receivedAt: receivedAt)) }
            if decoder.hasPendingBytes {
                flushIfQuiet(for: escapeDelay) { $0.flush() }
            } else if decoder.isInPaste {
                // A paste whose end marker never comes must not swallow every
                // key after it (Ctrl-C included).
                flushIfQuiet(for: .seconds(1)) { $0.endPaste() }
            }
        }

        /// Waits up to `delay` for more input: if none comes, what waits in
        /// the decoder is complete (a pending ESC is the Escape key, an
        /// unfinished paste is a paste); if some does, the read source reads it.
        ///
        /// poll(2) on this queue, as terminal libraries wait for an escape
        /// sequence, rather than a timer: on Linux a dispatch timer (or a
        /// task's sleep) armed from this read handler was seen to fire only
        /// with the next read, turning a lone Escape and the key after it
        /// into one Alt-key. The wait holds this queue alone, and only while
        /// bytes are pending.
        private func flushIfQuiet(for delay: Duration, _ flush: (inout InputDecoder) -> [InputEvent]) {
            let (seconds, attoseconds) = delay.components
            let milliseconds = Int32(clamping: seconds * 1_000 + attoseconds / 1_000_000_000_000_000)
            var descriptor = pollfd(fd: session.input, events: Int16(POLLIN), revents: 0)
            var ready: Int32
            repeat {
                ready = poll(&descriptor, 1, milliseconds)
            } while ready < 0 && errno == EINTR
            guard ready == 0 else { return }
            let events = flush(&decoder)
            if !events.isEmpty { continuation.yield(.input(events, receivedAt: .now)) }
        }

        private func received(_ signalNumber: Int32) {
            if signalNumber == SIGWINCH {
                continuation.yield(.resize(session.size))
                return
            }
            if signalNumber == SIGTSTP {
                continuation.yield(.suspend)
                return
            }
            session.restore()
            let name = signalNumber == SIGTERM ? "SIGTERM" : signalNumber == SIGHUP ? "SIGHUP" : "SIGINT"
            continuation.yield(.terminate(reason: name))
        }
    }
}

/// A signal handler as `signal(2)` takes and returns it (`sighandler_t` on
/// Linux, `sig_t` on Darwin).
typealias SignalHandler = @convention(c) (Int32) -> Void
