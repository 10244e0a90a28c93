import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import SpacePhotosServer

/// The table behind `GET /favourites/live` on its own: counts, flags,
/// its bound on photos, and the bound on each connection's queue.
@Suite("FavouriteTable: counts per photo, bounded, with bounded queues")
struct FavouriteTableTests {
    /// The entries queued so far for `subscription`, once its queue has ended.
    static func drain(_ subscription: FavouriteTable.Subscription) async -> [FavouriteOutbound] {
        var entries: [FavouriteOutbound] = []
        for await entry in subscription.messages { entries.append(entry) }
        return entries
    }

    static func update(_ photo: String, _ count: Int, _ favourite: Bool) -> FavouriteOutbound {
        .update(FavouriteUpdate(photo: photo, count: count, favourite: favourite))
    }

    @Test func countsAreMembersAndFlagsArePerMember() async {
        let table = FavouriteTable()
        let astro = table.subscribe(member: "astro")
        let luna = table.subscribe(member: "luna")
        table.set(photo: "p", favourite: true, from: astro)
        table.set(photo: "p", favourite: true, from: luna)
        table.set(photo: "p", favourite: true, from: luna)
        table.set(photo: "p", favourite: false, from: astro)
        #expect(table.photoCount == 1)
        table.unsubscribe(astro)
        table.unsubscribe(luna)
        #expect(table.subscriberCount == 0)
        #expect(
            await Self.drain(astro) == [
                Self.update("p", 1, true), Self.update("p", 2, true), Self.update("p", 1, false),
            ]
        )
        // Luna's second set changed nothing: confirmed to her alone.
        #expect(
            await Self.drain(luna) == [
                Self.update("p", 1, false), Self.update("p", 2, true), Self.update("p", 2, true),
                Self.update("p", 1, true),
            ]
        )
    }

    @Test func theSnapshotHoldsEveryCountAboveZeroInIDOrder() async {
        let table = FavouriteTable()
        let astro = table.subscribe(member: "astro")
        for photo in ["m", "z", "a"] { table.set(photo: photo, favourite: true, from: astro) }
        table.set(photo: "m", favourite: false, from: astro)
        let luna = table.subscribe(member: "luna")
        table.unsubscribe(luna)
        #expect(
            await Self.drain(luna) == [
                .snapshot([
                    FavouriteUpdate(photo: "a", count: 1, favourite: false),
                    FavouriteUpdate(photo: "z", count: 1, favourite: false),
                ])
            ]
        )
        #expect(FavouriteOutbound.snapshot([]).texts().isEmpty)
    }

    @Test func aFullTableRefusesNewPhotosOnly() async {
        let table = FavouriteTable(capacity: 2)
        let astro = table.subscribe(member: "astro")
        let luna = table.subscribe(member: "luna")
        for photo in ["a", "b", "c"] { table.set(photo: photo, favourite: true, from: astro) }
        table.set(photo: "a", favourite: true, from: luna)
        #expect(table.photoCount == 2)
        table.unsubscribe(astro)
        table.unsubscribe(luna)
        let astroEntries = await Self.drain(astro)
        #expect(astroEntries.count == 4)
        guard case .error(let code, _) = astroEntries[2] else {
            Issue.record("Expected the error, got \(astroEntries[2])")
            return
        }
        #expect(code == "too_many_photos")
        // Luna never hears of the refused set.
        #expect(
            await Self.drain(luna) == [
                Self.update("a", 1, false), Self.update("b", 1, false), Self.update("a", 2, true),
            ]
        )
    }

    @Test func aConnectionThatFallsBehindIsCutOffAndOthersGoOn() async {
        let table = FavouriteTable(queueLimit: 3)
        let overflows = NIOLockedValueBox(0)
        let slow = table.subscribe(member: "luna") { overflows.withLockedValue { $0 += 1 } }
        let sender = table.subscribe(member: "astro")
        var received: [FavouriteOutbound] = []
        // The sender keeps up: it reads each message as it comes.
        var iterator = sender.messages.makeAsyncIterator()
        for index in 0..<10 {
            table.set(photo: "p\(index)", favourite: true, from: sender)
            if let entry = await iterator.next() { received.append(entry) }
        }
        #expect(received.count == 10)
        #expect(slow.hasOverflowed)
        #expect(overflows.withLockedValue { $0 } == 1)
        // The slow queue ended where it overflowed: three entries, no more.
        #expect(await Self.drain(slow).count == 3)
        table.unsubscribe(slow)
        table.unsubscribe(sender)
    }

    @Test func photoIDs() throws {
        #expect(FavouriteRequest.isValidPhotoID("pillars-of-creation_2.jpg"))
        #expect(FavouriteRequest.isValidPhotoID(String(repeating: "a", count: 64)))
        #expect(!FavouriteRequest.isValidPhotoID(String(repeating: "a", count: 65)))
        #expect(!FavouriteRequest.isValidPhotoID(""))
        #expect(!FavouriteRequest.isValidPhotoID("é"))
        #expect(!FavouriteRequest.isValidPhotoID("a b"))
        #expect(throws: FavouriteRequest.Refusal.self) { try FavouriteRequest.parse(#"{"photo":"a","favourite":1}"#) }
        #expect(
            try FavouriteRequest.parse(#"{"photo":"a","favourite":false,"extra":1}"#)
                == FavouriteRequest(photo: "a", favourite: false)
        )
    }
}
