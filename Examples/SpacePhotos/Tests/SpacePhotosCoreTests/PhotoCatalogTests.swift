import BaselineConcurrency
import BaselineTesting
import Foundation
import SpacePhotosCore
import Testing

@MainActor
@Suite("PhotoCatalog", .timeLimit(.minutes(1)))
struct PhotoCatalogTests {
    /// The photo requests, each suspended until the test answers it.
    let photo = ControllableCall<Date, SpacePhoto>()

    nonisolated static func day(_ n: Int) -> Date { Date(timeIntervalSince1970: Double(n) * 86_400) }

    nonisolated static func photo(for date: Date) -> SpacePhoto {
        SpacePhoto(
            title: "Day \(PhotoDay.string(from: date))",
            description: "",
            date: date,
            url: URL(fileURLWithPath: "/images/\(Int(date.timeIntervalSince1970))")
        )
    }

    /// A catalog whose n-th load asks for `batches[n]`.
    func catalog(_ batches: [[Date]], width: Int = 4) -> PhotoCatalog {
        let loads = LockedValue(batches[...])
        let photo = self.photo
        let source = PhotoSource(
            randomDates: { _ in loads.withLock { $0.popFirst() ?? [] } },
            photo: { date in try await photo(date) }
        )
        return PhotoCatalog(source: source, count: batches.first?.count ?? 0, maximumConcurrentFetches: width)
    }

    /// The next `count` photo requests, in the order they started.
    func calls(_ count: Int) async throws -> [ControllableCall<Date, SpacePhoto>.Invocation] {
        var calls: [ControllableCall<Date, SpacePhoto>.Invocation] = []
        for _ in 0..<count { calls.append(try await photo.nextCall()) }
        return calls
    }

    @Test func keepsTheSourcesOrderWhateverOrderTheAnswersArriveIn() async throws {
        let days = (1...4).map(Self.day)
        let catalog = catalog([days])
        let load = Task { await catalog.updateItems() }
        let calls = try await calls(4)
        #expect(catalog.isLoading)
        for call in calls.reversed() { call.resume(returning: Self.photo(for: call.arguments)) }
        await load.value
        #expect(catalog.items.map(\.date) == days)
        #expect(catalog.failedCount == 0)
        #expect(catalog.isLoading == false)
    }

    @Test func skipsFailedPhotosAndSaysHowManyFailed() async throws {
        let days = (1...5).map(Self.day)
        let catalog = catalog([days], width: 5)
        let load = Task { await catalog.updateItems() }
        for call in try await calls(5) {
            if call.arguments == Self.day(2) || call.arguments == Self.day(4) {
                call.resume(throwing: URLError(.badServerResponse))
            } else {
                call.resume(returning: Self.photo(for: call.arguments))
            }
        }
        await load.value
        #expect(catalog.items.map(\.date) == [Self.day(1), Self.day(3), Self.day(5)])
        #expect(catalog.failedCount == 2)
        #expect(catalog.errorMessage == nil)
    }

    @Test func runsAtMostTheConfiguredNumberOfRequestsAtOnce() async throws {
        let days = (1...6).map(Self.day)
        let catalog = catalog([days], width: 2)
        let load = Task { await catalog.updateItems() }
        var pending = try await calls(2)
        for answered in 1...days.count {
            let call = pending.removeFirst()
            call.resume(returning: Self.photo(for: call.arguments))
            // Each answer lets exactly one more request start, while any remain.
            if answered <= days.count - 2 { pending.append(try await photo.nextCall()) }
            #expect(photo.callCount - answered <= 2, "started minus answered never exceeds the width")
        }
        await load.value
        #expect(catalog.items.map(\.date) == days)
    }

    @Test func cancellingTheCallerCancelsTheOutstandingRequestsAndKeepsTheList() async throws {
        let first = (1...2).map(Self.day)
        let catalog = catalog([first, (3...6).map(Self.day)], width: 2)
        let initial = Task { await catalog.updateItems() }
        for call in try await calls(2) { call.resume(returning: Self.photo(for: call.arguments)) }
        await initial.value

        let load = Task { await catalog.updateItems() }
        let calls = try await calls(2)
        load.cancel()
        await load.value
        #expect(calls.allSatisfy { $0.isCancelled })
        #expect(photo.callCount == 4, "no request starts after the cancellation")
        #expect(catalog.items.map(\.date) == first)
        #expect(catalog.isLoading == false)
        #expect(catalog.failedCount == 0)
    }

    @Test func aRefreshDuringALoadSupersedesIt() async throws {
        let first = (1...2).map(Self.day)
        let second = (3...4).map(Self.day)
        let catalog = catalog([first, second])
        let load = Task { await catalog.updateItems() }
        let firstCalls = try await calls(2)

        let refresh = Task { await catalog.updateItems() }
        await load.value
        #expect(firstCalls.allSatisfy { $0.isCancelled }, "the superseded load's requests are cancelled")
        #expect(catalog.items.isEmpty, "nothing of the superseded load is shown")
        #expect(catalog.isLoading, "the refresh is still running")

        let secondCalls = try await calls(2)
        for call in secondCalls { call.resume(returning: Self.photo(for: call.arguments)) }
        await refresh.value
        #expect(catalog.items.map(\.date) == second)
        #expect(catalog.isLoading == false)
    }

    @Test func aSupersededLoadThatFinishesLateChangesNothing() async throws {
        // The first load's requests ignore cancellation and answer after the refresh.
        let first = (1...2).map(Self.day)
        let second = (3...4).map(Self.day)
        let loads = LockedValue([first, second][...])
        let gate = ControllableCall<Date, SpacePhoto>()
        let source = PhotoSource(
            randomDates: { _ in loads.withLock { $0.popFirst() ?? [] } },
            photo: { date in
                if first.contains(date) {
                    // Unstructured, so cancellation does not reach the double.
                    return try await Task { try await gate(date) }.value
                }
                return PhotoCatalogTests.photo(for: date)
            }
        )
        let catalog = PhotoCatalog(source: source, count: 2)
        let load = Task { await catalog.updateItems() }
        let late = [try await gate.nextCall(), try await gate.nextCall()]
        await catalog.updateItems()
        #expect(catalog.items.map(\.date) == second)
        for call in late { call.resume(returning: Self.photo(for: call.arguments)) }
        await load.value
        #expect(catalog.items.map(\.date) == second)
    }

    @Test func aFailedListOfDaysKeepsTheItemsAndSaysWhy() async throws {
        let days = [Self.day(1)]
        let attempts = LockedValue(0)
        let photo = self.photo
        let source = PhotoSource(
            randomDates: { _ in
                let attempt = attempts.withLock { value in
                    value += 1
                    return value
                }
                if attempt > 1 { throw URLError(.cannotConnectToHost) }
                return days
            },
            photo: { date in try await photo(date) }
        )
        let catalog = PhotoCatalog(source: source, count: 1)
        let load = Task { await catalog.updateItems() }
        try await calls(1)[0].resume(returning: Self.photo(for: days[0]))
        await load.value

        await catalog.updateItems()
        #expect(catalog.items.map(\.date) == days)
        #expect(catalog.errorMessage != nil)
        #expect(catalog.isLoading == false)
    }

    @Test func progressCountsAnswersAndFailuresWhileLoading() async throws {
        let days = (1...3).map(Self.day)
        let catalog = catalog([days], width: 3)
        #expect(catalog.progress == nil)
        let load = Task { await catalog.updateItems() }
        let calls = try await calls(3)
        try await waitUntil(catalog) { $0.progress == LoadProgress(completed: 0, total: 3, failed: 0) }
        calls[0].resume(returning: Self.photo(for: calls[0].arguments))
        try await waitUntil(catalog) { $0.progress == LoadProgress(completed: 1, total: 3, failed: 0) }
        calls[1].resume(throwing: URLError(.badServerResponse))
        try await waitUntil(catalog) { $0.progress == LoadProgress(completed: 2, total: 3, failed: 1) }
        calls[2].resume(returning: Self.photo(for: calls[2].arguments))
        await load.value
        #expect(catalog.progress == nil)
        #expect(catalog.failedCount == 1)
    }
}
