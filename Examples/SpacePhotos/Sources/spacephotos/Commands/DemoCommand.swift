import ArgumentParser
import Foundation
import Logging
import SpacePhotosServer

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "A narrated tour of the example app against its embedded server."
    )

    @Option(help: "Log messages at this level and above are shown.")
    var logLevel: String = "notice"

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .notice
        // One stream for narration and logs, so they appear in order.
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardOutput(label: label)
            handler.logLevel = level
            return handler
        }
        let server = try await ExampleServer().start()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "spacephotos-demo-\(UUID().uuidString)"
        )
        let narrator = Narrator()
        narrator.title("SpacePhotos demo — embedded server at \(server.baseURL.absoluteString)")
        do {
            try await LoginDemo(baseURL: server.baseURL, dataDirectory: scratch, narrator: narrator).run()
            try await HTTPTourDemo(baseURL: server.baseURL, dataDirectory: scratch, narrator: narrator).run()
            try await TodoDemo(dataDirectory: scratch, narrator: narrator).run()
            try await FactCounterDemo(baseURL: server.baseURL, dataDirectory: scratch, narrator: narrator).run()
            try await CatalogDemo(baseURL: server.baseURL, dataDirectory: scratch, narrator: narrator).run()
        } catch {
            await server.stop()
            try? FileManager.default.removeItem(at: scratch)
            throw error
        }
        await server.stop()
        try? FileManager.default.removeItem(at: scratch)
        narrator.title("Done.")
    }
}
