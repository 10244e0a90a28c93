import Foundation
import Testing

@testable import SpacePhotosServer

/// The server's cursors: a member's `seq` marked with the epoch of the data
/// it counts in, so that a cursor from data the server lost is refused.
@Suite("SyncCursor: a seq and its data's epoch")
struct SyncCursorTests {
    @Test func aCursorReadsBackInItsEpochOnly() throws {
        let epoch = SyncCursor.epochs.upperBound
        for seq in [1, 2, 1_000, SyncCursor.maximumSeq] as [Int64] {
            let raw = SyncCursor(seq: seq, epoch: epoch).rawValue
            #expect(raw > 0, "a cursor stays a positive Int64")
            #expect(SyncCursor(raw, epoch: epoch)?.seq == seq)
            #expect(SyncCursor(raw, epoch: 1) == nil, "another epoch's")
        }
        // A bare seq, as servers gave before epochs, or a negative number.
        #expect(SyncCursor(5, epoch: 1) == nil)
        #expect(SyncCursor(-1, epoch: 1) == nil)
        #expect(SyncCursor(.min, epoch: 1) == nil)
    }

    @Test func nothingYetIsZeroInEveryEpoch() {
        #expect(SyncCursor(seq: 0, epoch: 77).rawValue == 0)
        #expect(SyncCursor(0, epoch: 1)?.seq == 0)
        #expect(SyncCursor(0, epoch: SyncCursor.epochs.upperBound)?.seq == 0)
    }

    @Test func aStoreInMemoryDrawsANewEpochAndAFileKeepsItsOwn() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-epoch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("sync.sqlite")

        let stored = try SQLiteSyncStore(file: file)
        let epoch = stored.epoch
        try stored.close()
        #expect(SyncCursor.epochs.contains(epoch))
        let reopened = try SQLiteSyncStore(file: file)
        #expect(reopened.epoch == epoch, "the file's data, the file's epoch")
        try reopened.close()

        // Two stores in memory are two sets of data. Epochs are drawn, so
        // two could match by chance: one in 8 million. Three draws that all
        // match would mean they are not drawn.
        let epochs = try (0..<3).map { _ in
            let store = try SQLiteSyncStore()
            defer { try? store.close() }
            return store.epoch
        }
        #expect(Set(epochs + [epoch]).count > 1)
        #expect(epochs.allSatisfy(SyncCursor.epochs.contains))
    }
}
