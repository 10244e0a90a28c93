/// Where the ``RenderLoop`` sends frames: a ``TerminalSession``, or an
/// in-memory terminal in tests.
public protocol TerminalOutput: Sendable {
    /// The screen's size now.
    var size: TerminalSize { get }
    /// What colours the terminal shows.
    var colors: FrameEncoder.ColorSupport { get }
    /// Writes one frame's bytes in one write.
    func write(_ bytes: [UInt8])
    /// Gives the terminal back and stops the process until it is continued (Ctrl-Z).
    func suspend()
}

extension TerminalSession: TerminalOutput {
    /// 24-bit colour when `COLORTERM` says `truecolor` or `24bit`, else the 256
    /// indexed colours.
    public var colors: FrameEncoder.ColorSupport {
        FrameEncoder.ColorSupport.from(environment: ProcessEnvironment.variables)
    }
}
