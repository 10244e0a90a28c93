import Foundation

/// The process's environment, read once.
enum ProcessEnvironment {
    static let variables = ProcessInfo.processInfo.environment
}
