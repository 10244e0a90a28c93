import ArgumentParser
import Foundation
import Logging
import SpacePhotosServer

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the example server alone, until Ctrl-C."
    )

    @Option(help: "The port to listen on (0 picks a free one).")
    var port: Int = 8080

    @Option(help: "The address to bind.")
    var host: String = "127.0.0.1"

    @Option(help: "Seconds a connection may sit idle before the server closes it.")
    var idleTimeout: Int = 60

    @Option(help: "The seed for photo days when a request names none: every app gets the same catalog.")
    var photoSeed: UInt64?

    func run() async throws {
        var logger = Logger(label: "spacephotos.server")
        logger.logLevel = .info
        // Paced event streams, so people can watch the counts change.
        let server = ExampleServer(
            configuration: .init(
                host: host,
                port: port,
                eventInterval: .milliseconds(200),
                photoDateSeed: photoSeed,
                idleTimeout: .seconds(max(1, idleTimeout)),
                logger: logger
            )
        )
        try await server.run { port in
            print("Serving on http://\(host):\(port) — demo login: \(DemoUser.demo.id) / \(DemoUser.demo.password)")
            // A script reading the address through a pipe gets it now, not at exit.
            fflush(nil)
        }
    }
}
