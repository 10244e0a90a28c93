import Foundation

/// Where the command-line app keeps its files, following the XDG base
/// directories: databases under the data home, re-downloadable images under
/// the cache home.
enum AppDirectories {
    /// `$XDG_DATA_HOME/spacephotos`, or `~/.local/share/spacephotos`.
    static var data: URL { base("XDG_DATA_HOME", default: ".local/share") }

    /// `$XDG_CACHE_HOME/spacephotos`, or `~/.cache/spacephotos`.
    static var cache: URL { base("XDG_CACHE_HOME", default: ".cache") }

    /// Creates `directory` (and missing parents) readable by the user only,
    /// and takes the other users' access away from one an earlier version
    /// made world-readable: it holds the session's tokens and databases.
    static func createPrivate(_ directory: URL) throws {
        try FileManager.default.createDirectory(
            at: directory,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
    }

    private static func base(_ variable: String, default relative: String) -> URL {
        let environment = ProcessInfo.processInfo.environment
        // The XDG spec ignores relative paths.
        let root =
            environment[variable].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(relative)
        return root.appendingPathComponent("spacephotos")
    }
}
