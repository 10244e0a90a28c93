// A child process for the sync crash test: one device's sync, run once
// against the example server, and held (waiting to be killed) at the point
// its last argument names. The test SIGKILLs it there, then checks what the
// device's database was left with.
//
//   SyncCrashProbe DATABASE SERVER_URL TOKEN POINT
//
// POINT is where the probe stops and waits, having printed "HELD":
//   before-push   a push is about to be sent (the server never sees it)
//   after-push    the server applied a push; its answer is not acknowledged
//   after-pull    a page arrived; it is not applied, the cursor not moved
//   mid-apply     inside the transaction applying a page, as a pulled item
//                 is inserted (the test's other device adds one every round)
//   none          nowhere: the test kills it after a random line
//
// Every request prints a line as it goes and as its answer comes, and
// "SYNCED" ends a cycle that ran to its end. Batches are small, so one
// cycle is many pushes, pages and transactions for a kill to land in.

import BaselineConcurrency
import BaselineHTTP
import BaselinePersistence
import BaselineSync
import Foundation
import GRDB
import HTTPTypes
import SpacePhotosCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a line straight to standard output: a pipe would buffer `print`,
/// and the test acts on each line as it comes.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Never returns: the probe waits here for its SIGKILL.
func hold() async {
    say("HELD")
    let (never, keep) = AsyncStream.makeStream(of: Void.self)
    for await _ in never {}
    keep.finish()
}

/// Sends the member's token, and says (and maybe holds) at each step.
struct Probe: HTTPMiddleware {
    var token: String
    var point: String

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        next: @escaping Next
    ) async throws -> (HTTPResponse, HTTPBody) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        let kind = (request.path ?? "").hasPrefix("/sync/push") ? "push" : "pull"
        say("\(kind) sending")
        if point == "before-\(kind)" { await hold() }
        let (response, answer) = try await next(request, body)
        // The whole answer, so that "after" means the server's part is done.
        let bytes = try await answer.collect(upTo: 16 * 1_048_576)
        say("\(kind) answered \(response.status.code)")
        if point == "after-\(kind)" { await hold() }
        return (response, HTTPBody(bytes))
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 4, let server = URL(string: arguments[1]) else {
    FileHandle.standardError.write(Data("usage: SyncCrashProbe DATABASE SERVER_URL TOKEN POINT\n".utf8))
    exit(2)
}
var storage = GRDB.Configuration()
// The test's own connection to this file may be reading as the probe starts.
storage.busyMode = .timeout(5)
let database = try await SQLiteDatabase.open(
    at: URL(fileURLWithPath: arguments[0]),
    migrator: TodoSchema.migrator,
    configuration: storage
)
if arguments[3] == "mid-apply" {
    // A trigger of this connection only: the first item a page inserts calls
    // a function that never returns, inside the page's transaction. The
    // probe writes no item of its own: every insert here is a pulled one.
    try await database.write { db in
        db.add(
            function: DatabaseFunction("probe_hold", argumentCount: 0, pure: false) { _ in
                say("HELD")
                while true { pause() }
            }
        )
        try db.execute(
            sql: "CREATE TEMP TRIGGER probe_mid_apply AFTER INSERT ON main.todo BEGIN SELECT probe_hold(); END"
        )
    }
}
var configuration = SyncEngine.Configuration()
configuration.pushLimit = 4
configuration.pullLimit = 4
let engine = SyncEngine(
    database: database,
    schema: TodoSchema.sync,
    server: HTTPSyncServer(
        client: HTTPClient(
            baseURL: server,
            middleware: [Probe(token: arguments[2], point: arguments[3])]
        ),
        usesLiveChannel: false
    ),
    configuration: configuration
)
try await engine.syncOnce()
say("SYNCED")
try await database.close()
