// A child process for the end-to-end test of the crash handler: it takes the
// terminal over as the app does, shows a line, then crashes the way its
// argument says. The test checks that the terminal comes back as it was.
//
//   TerminalCrashProbe trap    a Swift runtime trap (fatalError: SIGILL or SIGTRAP)
//   TerminalCrashProbe abort   abort() (SIGABRT)

import TerminalUI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let how = CommandLine.arguments.dropFirst().first ?? "trap"
let session = try TerminalSession()
var buffer = ScreenBuffer(width: session.size.columns, height: session.size.rows)
buffer.write("THE PROBE IS ABOUT TO CRASH (\(how))", at: 0, 0)
session.write(FrameEncoder(colors: .indexed256).encode(buffer, over: nil))
// Wait for a key, so the test reads the line first.
var byte: UInt8 = 0
_ = read(STDIN_FILENO, &byte, 1)
switch how {
case "abort":
    abort()
default:
    fatalError("on purpose, to see the terminal restored")
}
