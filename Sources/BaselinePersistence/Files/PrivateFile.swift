#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Files that only their owner may read, created before another library
/// (SQLite) creates them with its own, wider mode.
enum PrivateFile {
    /// Creates an empty file at `path` with mode 0600 unless one exists.
    ///
    /// An empty file is an empty database to SQLite, which would otherwise
    /// create it 0644 (less the umask), and copies the database file's mode
    /// to its `-wal` and `-shm` files.
    ///
    /// - Returns: `nil`, or the system's reason when the file could not be made.
    static func createIfMissing(atPath path: String) -> String? {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd >= 0 {
            close(fd)
            return nil
        }
        return errno == EEXIST ? nil : String(cString: strerror(errno))
    }
}
