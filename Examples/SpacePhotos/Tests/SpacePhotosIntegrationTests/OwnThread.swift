import Foundation

/// Computes `work` on a thread of its own, not on Swift's cooperative pool,
/// and returns what it made for the test to check.
///
/// The pool has one thread a core: on a 2-core machine, two tests that draw
/// and compress pictures for seconds (ten times that under ThreadSanitizer)
/// would otherwise hold up every other test of the run until they end.
/// Checks stay in the test's task: `#expect` needs to know its test.
func onOwnThread<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try work() })
        }
    }
}
