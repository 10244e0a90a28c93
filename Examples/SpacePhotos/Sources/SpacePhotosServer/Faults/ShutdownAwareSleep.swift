import ServiceLifecycle

/// Waits `duration`, unless the server starts shutting down (or the task is
/// cancelled) first, which throws `CancellationError`.
///
/// Handlers that wait on purpose (slow answers, paced streams) use it, so
/// stopping the server does not wait for them: a graceful shutdown finishes
/// the requests in flight, and would otherwise sit out every sleep.
func sleepUnlessShuttingDown(for duration: Duration) async throws {
    try await cancelWhenGracefulShutdown {
        try await Task.sleep(for: duration)
    }
    // A shutdown ends the sleep early without an error: report it as one.
    if Task.isShuttingDownGracefully || Task.isCancelled { throw CancellationError() }
}
