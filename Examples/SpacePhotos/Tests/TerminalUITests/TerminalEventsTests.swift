import CTerminalSupport
import Testing

@testable import TerminalUI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The reader on a real pseudo-terminal: bytes written to its other end
/// arrive as the app's input.
@Suite("TerminalEvents", .timeLimit(.minutes(2)))
struct TerminalEventsTests {
    /// A pseudo-terminal pair: the test writes to `leader`, the session
    /// reads and writes `follower`.
    final class PseudoTerminal {
        let leader: Int32
        let follower: Int32

        init() throws {
            var leader: Int32 = -1
            var follower: Int32 = -1
            try #require(baseline_terminal_open_pseudo_terminal(&leader, &follower) == 0, "errno \(errno)")
            self.leader = leader
            self.follower = follower
        }

        func type(_ bytes: [UInt8]) {
            _ = bytes.withUnsafeBytes { write(leader, $0.baseAddress, $0.count) }
        }

        deinit {
            close(follower)
            close(leader)
        }
    }

    static func nextInput(_ events: inout AsyncStream<TerminalEvent>.Iterator) async -> [InputEvent]? {
        while let event = await events.next() {
            if case let .input(input, _) = event { return input }
        }
        return nil
    }

    /// A lone ESC is the Escape key once the input stays quiet, without
    /// waiting for the next key: a key typed after it is a key of its own,
    /// not Alt and that key.
    @Test func aLoneEscapeIsTheEscapeKeyBeforeTheNextKeyComes() async throws {
        let terminal = try PseudoTerminal()
        let session = try TerminalSession(input: terminal.follower, output: terminal.follower)
        defer { session.restore() }
        var events = TerminalEvents(session: session).makeAsyncIterator()
        terminal.type([0x1B])
        #expect(await Self.nextInput(&events) == [.key(.escape)])
        terminal.type(Array("q".utf8))
        #expect(await Self.nextInput(&events) == [.key(.character("q"))])
        // Sent together, they are Alt-q, as terminals send it.
        terminal.type([0x1B] + Array("q".utf8))
        #expect(await Self.nextInput(&events) == [.key(.character("q"), .alt)])
    }
}
