import Foundation

/// Where the command-line app keeps its files, following the XDG base
/// directories: databases under the data home, re-downloadable images under
/// the cache home.
enum AppDirectories {
    /// `$XDG_DATA_HOME/spacephotos`, or `~/.local/share/spacephotos`.
    static var data: URL { base("XDG_DATA_HOME", default: ".local/share") }

    /// `$XDG_CACHE_HOME/spacephotos`, or `~/.cache/spacephotos`.
    static var cache: URL { base("XDG_CACHE_HOME", default: ".cache") }

    private static func base(_ variable: String, default relative: String) -> URL {
        let environment = ProcessInfo.processInfo.environment
        // The XDG spec ignores relative paths.
        let root =
            environment[variable].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(relative)
        return root.appendingPathComponent("spacephotos")
    }
}
