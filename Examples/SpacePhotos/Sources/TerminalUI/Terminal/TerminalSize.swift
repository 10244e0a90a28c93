import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The size of a terminal, in character cells.
public struct TerminalSize: Sendable, Hashable {
    /// Characters per line.
    public var columns: Int
    /// Lines on the screen.
    public var rows: Int

    /// A size of `columns` × `rows` cells.
    public init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
    }

    /// The size of the terminal `descriptor` is, from the kernel; nil when
    /// it is not a terminal.
    public static func of(descriptor: Int32) -> TerminalSize? {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return nil }
        return TerminalSize(columns: Int(size.ws_col), rows: Int(size.ws_row))
    }

    /// The terminal's size from the kernel; when standard output is not a
    /// terminal (a pipe, a file), `$COLUMNS` and `$LINES`, else 80 × 24.
    public static func current() -> TerminalSize {
        if let size = of(descriptor: STDOUT_FILENO) { return size }
        let environment = ProcessInfo.processInfo.environment
        return TerminalSize(
            columns: environment["COLUMNS"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil } ?? 80,
            rows: environment["LINES"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil } ?? 24
        )
    }
}
