import ArgumentParser
import BaselineAsyncHTTPClient
import BaselinePersistence
import Foundation
import Logging
import SpacePhotosCore
import SpacePhotosServer
import SpacePhotosTerminal
import TerminalUI

/// The app itself: every screen in the terminal, on the same store a
/// SwiftUI app would bind to.
struct AppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app",
        abstract:
            "The SpacePhotos app in the terminal: log in, photos, saved photos, to-dos, the counter, your profile."
    )

    @OptionGroup var options: AppOptions

    func run() async throws {
        let (server, logFile, slowFact) = (options.server, options.logFile, options.slowFact)
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            printError("The app needs a terminal. Without one, try `spacephotos demo`.")
            throw ExitCode.failure
        }
        TextWidth.prepareLocale()
        if let logFile {
            try FileLogHandler.bootstrap(path: logFile)
        } else {
            LoggingSystem.bootstrap { _ in SwiftLogNoOpLogHandler() }
        }
        let dataDirectory = AppDirectories.data
        try AppDirectories.createPrivate(dataDirectory)
        let embedded = try await Self.embeddedServerConfiguration(dataDirectory: dataDirectory)
        try await server.withServer(configuration: embedded) { baseURL in
            try await Self.runApp(
                serverURL: baseURL,
                dataDirectory: dataDirectory,
                // With the embedded server, whose address changes at every
                // launch, nothing kept on disk would be found again.
                imageCache: server.server == nil ? nil : AppDirectories.cache.appendingPathComponent("images"),
                responseCache: server.server == nil ? nil : AppDirectories.cache.appendingPathComponent("responses"),
                slowFact: slowFact
            )
        }
    }

    @MainActor
    static func runApp(
        serverURL: URL,
        dataDirectory: URL,
        imageCache: URL?,
        responseCache: URL?,
        slowFact: Int?
    ) async throws {
        // The live favourites' WebSocket runs on SwiftNIO: Linux's URLSession
        // has none, and one transport for both platforms keeps the CLI simple.
        let webSockets = AsyncHTTPClientTransport()
        do {
            try await runApp(
                serverURL: serverURL,
                dataDirectory: dataDirectory,
                imageCache: imageCache,
                responseCache: responseCache,
                webSocketTransport: webSockets,
                slowFact: slowFact
            )
            try await webSockets.shutdown()
        } catch {
            try? await webSockets.shutdown()
            throw error
        }
    }

    @MainActor
    private static func runApp(
        serverURL: URL,
        dataDirectory: URL,
        imageCache: URL?,
        responseCache: URL?,
        webSocketTransport: AsyncHTTPClientTransport,
        slowFact: Int?
    ) async throws {
        var dependencies = try await AppDependencies.live(
            serverURL: serverURL,
            dataDirectory: dataDirectory,
            imageCache: imageCache,
            responseCache: responseCache,
            webSocketTransport: webSocketTransport
        )
        if let slowFact {
            // A test knob: the fact about this number takes the server 10 s,
            // so that a refresh can be cancelled by hand (and by the end-to-end test).
            let facts = dependencies.facts
            let slow = FactClient.live(
                client: .init(baseURL: serverURL),
                serverOptions: [URLQueryItem(name: "delay", value: "10000")]
            )
            dependencies.facts = FactClient { number in
                try await (number == slowFact ? slow : facts).fetch(number)
            }
        }
        let program = SpacePhotosProgram(dependencies: dependencies)
        let latencyLog = ProcessInfo.processInfo.environment["SPACEPHOTOS_LATENCY_LOG"]
        try await withTerminal { terminal in
            let loop = RenderLoop(program: program, output: terminal, events: TerminalEvents(session: terminal))
            loop.recordsLatency = latencyLog != nil
            await loop.run()
            if let latencyLog {
                let lines = loop.latencies.map { duration in
                    String(
                        Int(duration.components.seconds) * 1_000_000
                            + Int(duration.components.attoseconds / 1_000_000_000_000)
                    )
                }
                try? (lines.joined(separator: "\n") + "\n").write(toFile: latencyLog, atomically: true, encoding: .utf8)
            }
        }
        await program.finish()
    }

    /// The embedded server signs tokens with a key kept in the data
    /// directory, so a login outlives the run: the next start goes straight in.
    static func embeddedServerConfiguration(dataDirectory: URL) async throws -> ExampleServer.Configuration {
        let keyStore = SecureValueStore<Data>(fileURL: dataDirectory.appendingPathComponent("embedded-server-key.json"))
        let key: Data
        if let stored = try? await keyStore.load(), stored.count >= 32 {
            key = stored
        } else {
            key = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
            try await keyStore.save(key)
        }
        var configuration = ExampleServer.Configuration()
        configuration.tokenSigner = TokenSigner(secret: key, lifetime: .seconds(3600))
        configuration.refreshTokenFile = dataDirectory.appendingPathComponent("embedded-server-refresh-tokens.json")
        return configuration
    }
}

/// The app's options, shared by `spacephotos app` and `spacephotos` alone
/// on a terminal (which runs the app with them).
struct AppOptions: ParsableArguments {
    @OptionGroup var server: ServerOptions

    @Option(help: "Write the app's log here (the screen is the app's; by default nothing is logged).")
    var logFile: String?

    /// For the end-to-end test: the fact about this number takes the server
    /// 10 s, so that a refresh can be cancelled.
    @Option(help: .hidden)
    var slowFact: Int?
}
