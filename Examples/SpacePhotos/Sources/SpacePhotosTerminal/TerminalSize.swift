#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The size of the terminal standard output is shown in.
public struct TerminalSize: Sendable, Equatable {
    /// Characters per line.
    public var columns: Int
    /// Lines on the screen.
    public var rows: Int

    public init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
    }

    /// The terminal's size from the kernel; when standard output is not a
    /// terminal (a pipe, a file), `$COLUMNS` and `$LINES`, else 80 × 24.
    public static func current() -> TerminalSize {
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            return TerminalSize(columns: Int(size.ws_col), rows: Int(size.ws_row))
        }
        #endif
        let environment = ProcessInfo.processInfo.environment
        return TerminalSize(
            columns: environment["COLUMNS"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil } ?? 80,
            rows: environment["LINES"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil } ?? 24
        )
    }
}
