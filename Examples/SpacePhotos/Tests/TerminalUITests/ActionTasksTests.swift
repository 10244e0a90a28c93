import Testing

@testable import TerminalUI

@MainActor
@Suite("ActionTasks: what quitting does to the work keys started", .timeLimit(.minutes(2)))
struct ActionTasksTests {
    /// A task that waits until `release` is resumed, then says whether it was cancelled.
    final class Gate {
        var release: CheckedContinuation<Void, Never>?
        var started: CheckedContinuation<Void, Never>?
        var wasCancelled: Bool?
    }

    func startHeld(_ tasks: ActionTasks, onQuit: ActionTasks.OnQuit) async -> Gate {
        let gate = Gate()
        await withCheckedContinuation { started in
            gate.started = started
            tasks.start(onQuit: onQuit) {
                await withCheckedContinuation { release in
                    gate.release = release
                    gate.started?.resume()
                }
                gate.wasCancelled = Task.isCancelled
            }
        }
        return gate
    }

    @Test func cancelAllCancelsTheCancellableAndLetsWritesFinish() async {
        let tasks = ActionTasks()
        let load = await startHeld(tasks, onQuit: .cancel)
        let write = await startHeld(tasks, onQuit: .finish)
        tasks.cancelAll()
        load.release?.resume()
        write.release?.resume()
        await tasks.waitForAll()
        #expect(load.wasCancelled == true)
        #expect(write.wasCancelled == false)
        #expect(tasks.count == 0)
    }
}
