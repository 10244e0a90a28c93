import Foundation
import SpacePhotosServer

/// The example server in a child process of the benchmark
/// (`baseline-benchmarks http-serve`), so that the CPU, memory and
/// allocation figures of the HTTP rows are the clients' alone, with the
/// server's threads competing for the cores from outside, as a real server's would.
///
/// The child prints `LISTENING <url>` once it accepts connections, and stops
/// when its standard input closes: when the benchmark ends, however it ends.
final class BenchmarkServerProcess {
    let baseURL: URL
    private let process: Process
    private let input: Pipe

    /// The child's process id, for reading its memory figures.
    var processIdentifier: Int32 { process.processIdentifier }

    /// Starts the child (`baseline-benchmarks <arguments>`) and waits for its address.
    init(arguments: [String] = ["http-serve"]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = arguments
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            guard !byte.isEmpty else { throw BenchmarkError.setup("the server process ended before it listened") }
            line += byte
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("LISTENING "), let url = URL(string: String(text.dropFirst("LISTENING ".count))) else {
            throw BenchmarkError.setup("the server process said \(text)")
        }
        self.baseURL = url
        self.process = process
        self.input = input
    }

    /// Closes the child's input, which ends it, and waits for it.
    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    /// Runs in the child: serves until standard input closes.
    static func serve(_ configuration: ExampleServer.Configuration = .init()) async throws -> Never {
        let server = try await ExampleServer(configuration: configuration).start()
        // Written straight to the pipe: `print` would sit in stdio's buffer.
        FileHandle.standardOutput.write(Data("LISTENING \(server.baseURL.absoluteString)\n".utf8))
        // Blocks a thread of its own, not the concurrency pool's: this
        // process only serves.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                _ = FileHandle.standardInput.readDataToEndOfFile()
                done.resume()
            }
        }
        await server.stop()
        exit(0)
    }
}
