/// An endpoint for a ``DependencyKey/testValue`` that fails the test which
/// calls it without overriding it, then throws ``UnimplementedDependency``.
///
/// ```swift
/// static let testValue = FactClient(fetch: unimplemented("FactClient.fetch"))
/// ```
public func unimplemented<each Argument, Result>(
    _ name: String,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line
) -> @Sendable (repeat each Argument) async throws -> Result {
    { (_: repeat each Argument) in
        DependencyValues.current.reportUnimplemented("Unimplemented: \(name) was called", fileID, filePath, line)
        throw UnimplementedDependency(name: name)
    }
}

/// An endpoint that fails the test which calls it without overriding it,
/// then returns `placeholder`: for endpoints that cannot throw.
///
/// ```swift
/// static let testValue = Clock(now: unimplemented("Clock.now", placeholder: .distantPast))
/// ```
public func unimplemented<each Argument, Result: Sendable>(
    _ name: String,
    placeholder: Result,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line
) -> @Sendable (repeat each Argument) -> Result {
    { (_: repeat each Argument) in
        DependencyValues.current.reportUnimplemented("Unimplemented: \(name) was called", fileID, filePath, line)
        return placeholder
    }
}

/// Thrown by an ``unimplemented(_:fileID:filePath:line:)`` endpoint after it reported the call.
public struct UnimplementedDependency: Error, Sendable, Equatable {
    /// The endpoint that was called.
    public let name: String
}
