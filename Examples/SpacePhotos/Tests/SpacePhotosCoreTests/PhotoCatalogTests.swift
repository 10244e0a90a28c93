import BaselineConcurrency
import BaselineStore
import BaselineTesting
import Foundation
import SpacePhotosCore
import Testing

@MainActor
@Suite("PhotoCatalog", .timeLimit(.minutes(2)))
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
    func catalog(_ batches: [[Date]], width: Int = 4) -> TestStore<PhotoCatalog.State, PhotoCatalog.Action> {
        let loads = LockedValue(batches[...])
        let photo = self.photo
        let source = PhotoSource(
            randomDates: { _ in PhotoSource.Days(loads.withLock { $0.popFirst() ?? [] }) },
            photo: { date in try await photo(date) }
        )
        return Self.store(
            PhotoCatalog(source: source, count: batches.first?.count ?? 0, maximumConcurrentFetches: width)
        )
    }

    /// A test store of `catalog` that checks only what a test states: the
    /// tests look at the state a load leaves, not at each progress step.
    static func store(_ catalog: PhotoCatalog) -> TestStore<PhotoCatalog.State, PhotoCatalog.Action> {
        let store = TestStore(initialState: PhotoCatalog.State()) { catalog }
        store.exhaustivity = .off
        return store
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
        let load = await catalog.send(.updateItems)
        let calls = try await calls(4)
        #expect(catalog.state.isLoading)
        for call in calls.reversed() { call.resume(returning: Self.photo(for: call.arguments)) }
        await load.finish()
        catalog.skipReceivedActions()
        #expect(catalog.state.items.map(\.date) == days)
        #expect(catalog.state.failedCount == 0)
        #expect(catalog.state.isLoading == false)
    }

    @Test func skipsFailedPhotosAndSaysHowManyFailed() async throws {
        let days = (1...5).map(Self.day)
        let catalog = catalog([days], width: 5)
        let load = await catalog.send(.updateItems)
        for call in try await calls(5) {
            if call.arguments == Self.day(2) || call.arguments == Self.day(4) {
                call.resume(throwing: URLError(.badServerResponse))
            } else {
                call.resume(returning: Self.photo(for: call.arguments))
            }
        }
        await load.finish()
        catalog.skipReceivedActions()
        #expect(catalog.state.items.map(\.date) == [Self.day(1), Self.day(3), Self.day(5)])
        #expect(catalog.state.failedCount == 2)
        #expect(catalog.state.errorMessage == nil)
    }

    @Test func runsAtMostTheConfiguredNumberOfRequestsAtOnce() async throws {
        let days = (1...6).map(Self.day)
        let catalog = catalog([days], width: 2)
        let load = await catalog.send(.updateItems)
        var pending = try await calls(2)
        for answered in 1...days.count {
            let call = pending.removeFirst()
            call.resume(returning: Self.photo(for: call.arguments))
            // Each answer lets exactly one more request start, while any remain.
            if answered <= days.count - 2 { pending.append(try await photo.nextCall()) }
            #expect(photo.callCount - answered <= 2, "started minus answered never exceeds the width")
        }
        await load.finish()
        catalog.skipReceivedActions()
        #expect(catalog.state.items.map(\.date) == days)
    }

    @Test func cancellingCancelsTheOutstandingRequestsAndKeepsTheList() async throws {
        let first = (1...2).map(Self.day)
        let catalog = catalog([first, (3...6).map(Self.day)], width: 2)
        let initial = await catalog.send(.updateItems)
        for call in try await calls(2) { call.resume(returning: Self.photo(for: call.arguments)) }
        await initial.finish()
        catalog.skipReceivedActions()

        let load = await catalog.send(.updateItems)
        let calls = try await calls(2)
        await catalog.send(.cancel)
        await load.finish()
        catalog.skipReceivedActions()
        #expect(calls.allSatisfy { $0.isCancelled })
        #expect(photo.callCount == 4, "no request starts after the cancellation")
        #expect(catalog.state.items.map(\.date) == first)
        #expect(catalog.state.isLoading == false)
        #expect(catalog.state.failedCount == 0)
    }

    @Test func aRefreshDuringALoadSupersedesIt() async throws {
        let first = (1...2).map(Self.day)
        let second = (3...4).map(Self.day)
        let catalog = catalog([first, second])
        let load = await catalog.send(.updateItems)
        let firstCalls = try await calls(2)

        let refresh = await catalog.send(.updateItems)
        await load.finish()
        catalog.skipReceivedActions()
        #expect(firstCalls.allSatisfy { $0.isCancelled }, "the superseded load's requests are cancelled")
        #expect(catalog.state.items.isEmpty, "nothing of the superseded load is shown")
        #expect(catalog.state.isLoading, "the refresh is still running")

        let secondCalls = try await calls(2)
        for call in secondCalls { call.resume(returning: Self.photo(for: call.arguments)) }
        await refresh.finish()
        catalog.skipReceivedActions()
        #expect(catalog.state.items.map(\.date) == second)
        #expect(catalog.state.isLoading == false)
    }

    @Test func aSupersededLoadThatFinishesLateChangesNothing() async throws {
        // The first load's requests ignore cancellation and answer after the refresh.
        let first = (1...2).map(Self.day)
        let second = (3...4).map(Self.day)
        let loads = LockedValue([first, second][...])
        let gate = ControllableCall<Date, SpacePhoto>()
        let source = PhotoSource(
            randomDates: { _ in PhotoSource.Days(loads.withLock { $0.popFirst() ?? [] }) },
            photo: { date in
                if first.contains(date) {
                    // Unstructured, so cancellation does not reach the double.
                    return try await Task { try await gate(date) }.value
                }
                return PhotoCatalogTests.photo(for: date)
            }
        )
        let catalog = Self.store(PhotoCatalog(source: source, count: 2))
        let load = await catalog.send(.updateItems)
        let late = [try await gate.nextCall(), try await gate.nextCall()]
        await catalog.send(.updateItems).finish()
        catalog.skipReceivedActions()
        #expect(catalog.state.items.map(\.date) == second)
        for call in late { call.resume(returning: Self.photo(for: call.arguments)) }
        await load.finish()
        catalog.skipReceivedActions()
        #expect(catalog.state.items.map(\.date) == second)
    }

    @Test func aListKeptFromAnEarlierAnswerIsMarkedOfflineUntilTheServerAnswers() async throws {
        let days = [Self.day(1)]
        let offline = LockedValue([true, false][...])
        let photo = self.photo
        let source = PhotoSource(
            randomDates: { _ in PhotoSource.Days(days, isServedWhileOffline: offline.withLock { $0.popFirst()! }) },
            photo: { date in try await photo(date) }
        )
        let catalog = TestStore(initialState: PhotoCatalog.State()) { PhotoCatalog(source: source, count: 1) }
        for isOffline in [true, false] {
            await catalog.send(.updateItems) { $0.isLoading = true }
            await catalog.receive(.progressed(LoadProgress(completed: 0, total: 1, failed: 0))) {
                $0.progress = LoadProgress(completed: 0, total: 1, failed: 0)
            }
            try await calls(1)[0].resume(returning: Self.photo(for: days[0]))
            await catalog.receive(.progressed(LoadProgress(completed: 1, total: 1, failed: 0))) {
                $0.progress = LoadProgress(completed: 1, total: 1, failed: 0)
            }
            await catalog.receive(.loaded([Self.photo(for: days[0])], failures: 0, offline: isOffline)) {
                $0.isLoading = false
                $0.progress = nil
                $0.items = [Self.photo(for: days[0])]
                $0.isOffline = isOffline
            }
        }
        await catalog.finish()
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
                return PhotoSource.Days(days)
            },
            photo: { date in try await photo(date) }
        )
        let catalog = Self.store(PhotoCatalog(source: source, count: 1))
        let load = await catalog.send(.updateItems)
        try await calls(1)[0].resume(returning: Self.photo(for: days[0]))
        await load.finish()
        catalog.skipReceivedActions()

        await catalog.send(.updateItems).finish()
        catalog.skipReceivedActions()
        #expect(catalog.state.items.map(\.date) == days)
        #expect(catalog.state.errorMessage != nil)
        #expect(catalog.state.isLoading == false)
    }

    @Test func progressCountsAnswersAndFailuresWhileLoading() async throws {
        let days = (1...3).map(Self.day)
        let catalog = catalog([days], width: 3)
        #expect(catalog.state.progress == nil)
        let load = await catalog.send(.updateItems)
        let calls = try await calls(3)
        await catalog.receive(.progressed(LoadProgress(completed: 0, total: 3, failed: 0))) {
            $0.progress = LoadProgress(completed: 0, total: 3, failed: 0)
        }
        calls[0].resume(returning: Self.photo(for: calls[0].arguments))
        await catalog.receive(.progressed(LoadProgress(completed: 1, total: 3, failed: 0))) {
            $0.progress = LoadProgress(completed: 1, total: 3, failed: 0)
        }
        calls[1].resume(throwing: URLError(.badServerResponse))
        await catalog.receive(.progressed(LoadProgress(completed: 2, total: 3, failed: 1))) {
            $0.progress = LoadProgress(completed: 2, total: 3, failed: 1)
        }
        calls[2].resume(returning: Self.photo(for: calls[2].arguments))
        await load.finish()
        catalog.skipReceivedActions()
        #expect(catalog.state.progress == nil)
        #expect(catalog.state.failedCount == 1)
    }
}
