import BaselinePersistence
import Foundation
import GRDB
import Testing

@testable import BaselineSync

@Suite("Three devices, random edits, deletes, re-inserts and outages: all converge, nothing lost")
struct SyncConvergenceTests {
    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func randomHistoriesConverge(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let server = MemorySyncServer(schema: SyncedTodos.schema)
        var devices: [Device] = []
        for _ in 0..<3 { devices.append(try await Device(server: server)) }
        let ids = (0..<8).map { "row\($0)" }
        var made: [SyncChange] = []
        var sawNew: [Int64] = [0, 0, 0]

        for step in 0..<150 {
            let index = Int.random(in: 0..<3, using: &random)
            let device = devices[index]
            let id = ids.randomElement(using: &random)!
            let exists = try await device.rows()[id] != nil
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<3:
                if exists {
                    try await device.edit(id, "edit \(step)")
                } else {
                    try await device.insert(id, "insert \(step)")
                }
            case 3:
                if exists { try await device.delete(id) }
            case 4..<7:
                do { try await device.engine.syncOnce() } catch is MemorySyncServer.Unreachable {}
            case 7:
                server.isReachable.toggle()
            case 8:
                server.losesAnswers.toggle()
            default:
                // Delete then insert again, the same id, in one go.
                if exists {
                    try await device.delete(id)
                    try await device.insert(id, "again \(step)")
                }
            }
            // Every change a write recorded, read before anything syncs it.
            let (newest, changes) = try await device.database.read { [seen = sawNew[index]] db in
                let entries = try LocalReplica.pending(db, limit: 10_000, maximumBytes: .max).filter { $0.seq > seen }
                return (entries.map(\.seq).max() ?? seen, entries.map(\.change))
            }
            sawNew[index] = newest
            made += changes
        }

        // Quiescence: the server back, every device pushes, then every device pulls.
        server.isReachable = true
        server.losesAnswers = false
        for device in devices { try await device.engine.syncOnce() }
        for device in devices { try await device.engine.syncOnce() }

        let expected = server.liveRows.reduce(into: [String: String]()) { rows, entry in
            if case let .text(text)? = entry.value["text"] { rows[String(entry.key.dropFirst("todo/".count))] = text }
        }
        for device in devices {
            #expect(try await device.rows() == expected, "seed \(seed)")
            #expect(try await device.todos.outbox().isEmpty, "seed \(seed)")
        }

        // No acknowledged change is lost: each is what the server holds, or
        // was overtaken by a later write of the same register.
        var visible = 0
        var superseded = 0
        for change in made {
            #expect(server.appliedIDs.contains(change.id), "seed \(seed): \(change.id) never acknowledged")
            let state = try #require(server.rows["\(change.table)/\(change.row)"]?.state)
            let alive = try #require(state.alive)
            #expect(alive.timestamp >= change.timestamp)
            for (name, value) in change.fields {
                let field = try #require(state.fields[name])
                #expect(field.timestamp >= change.timestamp)
                if field.timestamp == change.timestamp {
                    #expect(field.value == value)
                    visible += 1
                } else {
                    superseded += 1
                }
            }
            if change.deleted, alive.timestamp == change.timestamp { visible += 1 }
        }
        #expect(visible > 0 && visible + superseded >= made.filter { !$0.deleted }.count)
    }
}
