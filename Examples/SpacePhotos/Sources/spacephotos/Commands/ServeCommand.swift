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

    @Option(
        help: """
            Where the synced rows are kept across restarts: an SQLite file (made if missing), or a PostgreSQL \
            URL (postgres://user:password@host:port/database), which several servers can share. Default: in memory.
            """
    )
    var syncDatabase: String?

    @Option(
        help: """
            A file with the key that signs ID tokens (32 random bytes, written if missing): servers started \
            with the same file accept each other's tokens, and a restart keeps members logged in. \
            Default: a new key each start.
            """
    )
    var tokenKeyFile: String?

    func run() async throws {
        var logger = Logger(label: "spacephotos.server")
        logger.logLevel = .info
        let storage: SyncStorage
        do {
            storage = try syncDatabase.map { value throws(SyncStorageError) in try SyncStorage.parse(value) } ?? .memory
        } catch {
            throw ValidationError(error.description)
        }
        // Paced event streams, so people can watch the counts change.
        let server = ExampleServer(
            configuration: .init(
                host: host,
                port: port,
                tokenSigner: try tokenKeyFile.map { try Self.signer(keyFile: URL(fileURLWithPath: $0)) }
                    ?? .random(lifetime: .seconds(3600)),
                eventInterval: .milliseconds(200),
                photoDateSeed: photoSeed,
                idleTimeout: .seconds(max(1, idleTimeout)),
                syncStorage: storage,
                logger: logger
            )
        )
        try await server.run { port in
            print("Serving on http://\(host):\(port) — demo login: \(DemoUser.demo.id) / \(DemoUser.demo.password)")
            // A script reading the address through a pipe gets it now, not at exit.
            fflush(nil)
        }
    }

    /// A signer whose key is kept in `keyFile`, made (mode 0600) if missing.
    static func signer(keyFile: URL) throws -> TokenSigner {
        if let key = try? Data(contentsOf: keyFile), key.count >= 32 {
            return TokenSigner(secret: key, lifetime: .seconds(3600))
        }
        var key = Data(count: 32)
        for index in key.indices { key[index] = UInt8.random(in: 0...255) }
        _ = FileManager.default.createFile(atPath: keyFile.path, contents: key, attributes: [.posixPermissions: 0o600])
        guard (try? Data(contentsOf: keyFile)) == key else {
            throw ValidationError("Cannot write the token key file \(keyFile.path).")
        }
        return TokenSigner(secret: key, lifetime: .seconds(3600))
    }
}
