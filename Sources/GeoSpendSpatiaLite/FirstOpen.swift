import Foundation
import GRDB

/// Creates a new database file all at once: the schema is built in a temporary file beside the
/// target (same folder, so same file system), synced, and hard-linked to the target's name only if
/// nothing is there yet. `link(2)` fails with `EEXIST` atomically, so the target path either does
/// not exist or holds a complete, migrated file — whatever a full disk or a kill does half-way —
/// and of two processes creating the same file at once, one links its file and the other finds
/// it there and opens it. (Before, a first open on a nearly full disk left a half-initialised
/// file that no command, `doctor --repair` included, could open; two at once, one failed.)
enum FirstOpen {
    /// Creates `path` with the current schema unless it exists by the time the file is ready.
    /// - Parameter configuration: the store's connection setup (SpatiaLite, busy handler).
    /// - Throws: `StoreError` naming `path` (disk full, folder missing or read-only, …).
    static func create(at path: String, configuration: Configuration) throws {
        let target = URL(fileURLWithPath: path)
        let folder = target.deletingLastPathComponent().path
        // Hidden, and unique per attempt: a kill leaves at most this file behind, never `path`.
        let temporary = folder + "/.\(target.lastPathComponent).creating-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer {
            for suffix in ["", "-journal", "-wal", "-shm"] { unlink(temporary + suffix) }
        }
        do {
            var config = configuration
            config.journalMode = .default
            let queue = try DatabaseQueue(path: temporary, configuration: config)
            try queue.inDatabase { db in
                try db.inTransaction(.immediate) {
                    try Schema.applyPending(db)
                    return .commit
                }
                // Switched here, where no other process can hold the file open; the target is
                // then WAL from its first byte, as every later open expects.
                guard try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") == "wal" else {
                    throw StoreError.cannotOpen(path: path, reason: "SQLite could not switch the new file to WAL mode")
                }
            }
            try queue.close()  // checkpoints and removes the temporary -wal
        } catch let error as DatabaseError {
            throw StoreError.translating(error, path: path, waited: 0) ?? error
        }
        try sync(temporary, path: path)
        if link(temporary, path) != 0 {
            let failure = errno
            switch failure {
            case EEXIST:
                return  // another process created it first: it is complete, open that one
            case EPERM, ENOTSUP, EOPNOTSUPP, ENOSYS:
                // A file system without hard links (FAT, some network mounts): rename, checking
                // first — a second process creating the same file in between is the one race left.
                guard !FileManager.default.fileExists(atPath: path) else { return }
                guard rename(temporary, path) == 0 else { throw creationFailed(path, errno) }
            default:
                throw creationFailed(path, failure)
            }
        }
        try sync(folder, path: path)  // the new name itself survives a power cut
    }

    /// `fsync` of a file or folder.
    private static func sync(_ file: String, path: String) throws {
        let fd = open(file, O_RDONLY)
        guard fd >= 0 else { throw creationFailed(path, errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw creationFailed(path, errno) }
    }

    private static func creationFailed(_ path: String, _ code: Int32) -> StoreError {
        switch code {
        case ENOSPC, EDQUOT: return .diskFull(path: path)
        case EACCES, EROFS: return .readOnly(path: path, reason: "cannot create the file: \(String(cString: strerror(code))); check that its folder is writable")
        default: return .cannotOpen(path: path, reason: "cannot create the file: \(String(cString: strerror(code)))")
        }
    }
}
