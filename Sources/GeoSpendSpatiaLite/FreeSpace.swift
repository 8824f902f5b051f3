import Foundation

/// Free disk space where the database lives, for the checks that must look before (or after)
/// SQLite runs out: a first open's build (`FirstOpen`) and a deletion's rewrite (`PendingScrub`).
enum FreeSpace {
    /// Bytes an unprivileged process may still write in `folder`'s file system (`f_bavail`),
    /// or nil when `statvfs` cannot tell.
    static func bytes(in folder: String) -> Int64? {
        var fs = statvfs()
        guard statvfs(folder, &fs) == 0 else { return nil }
        return Int64(fs.f_bavail) * Int64(fs.f_frsize)
    }

    /// The folder holding the database file `path` (where its -wal and SQLite's copies go).
    static func folder(of path: String) -> String { URL(fileURLWithPath: path).deletingLastPathComponent().path }

    /// Less than 1 MiB free: a failed build of a 7 MB file had then run out of space (SpatiaLite
    /// swallows SQLite's SQLITE_FULL, so the disk is what tells). Unknown counts as not full.
    static func isNearlyExhausted(_ folder: String) -> Bool {
        guard let free = bytes(in: folder) else { return false }
        return free < 1 << 20
    }
}
