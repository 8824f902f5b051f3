import Foundation
import GeoSpend
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
        // Hidden, and unique per attempt: a kill leaves at most this file behind, never `path`;
        // the next first open of the same target (or `doctor --repair`) removes it.
        removeLeftovers(of: path)
        let temporary = folder + "/" + leftoverPrefix(target.lastPathComponent) + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer {
            for suffix in ["", "-journal", "-wal", "-shm"] { unlink(temporary + suffix) }
        }
        do {
            var config = configuration
            config.journalMode = .default  // the journal mode is set below, before any write
            let queue = try DatabaseQueue(path: temporary, configuration: config)
            try queue.inDatabase { db in
                // WAL from the first byte, as every later open expects (switched here, where no
                // other process can hold the file open). A transaction a full disk breaks off
                // leaves its frames in the log, so the disk is still full when we look.
                guard try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") == "wal" else {
                    throw StoreError.cannotOpen(path: path, reason: "SQLite could not switch the new file to WAL mode")
                }
                try db.inTransaction(.immediate) {
                    // Quietly: SpatiaLite prints its SQL errors (AddGeometryColumn's trigger
                    // updates on a full disk) to stderr besides returning them; ours say it once.
                    do { try SpatiaLiteExtension.quietly { try Schema.applyPending(db) } } catch {
                        // SpatiaLite swallows SQLite's SQLITE_FULL (its functions return 0 and the
                        // transaction is aborted): look at the disk while the log still fills it.
                        if FreeSpace.isNearlyExhausted(folder) { throw StoreError.diskFull(path: path) }
                        throw error
                    }
                    return .commit
                }
                // Into the file itself before it is linked: the committed pages are still in the
                // log, and a checkpoint that finds the disk full must not pass unnoticed (closing
                // ignores it; the linked file was then "malformed" without its log).
                let r = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
                guard r?[0] as Int? == 0, r?[1] as Int? == r?[2] as Int? else {
                    if FreeSpace.isNearlyExhausted(folder) { throw StoreError.diskFull(path: path) }
                    throw StoreError.cannotOpen(path: path, reason: "SQLite could not write the new file's log into it")
                }
            }
            try queue.close()  // checkpoints and removes the temporary -wal
        } catch {
            if let error = error as? DatabaseError { throw StoreError.translating(error, path: path, waited: 0) ?? error }
            throw error
        }
        let log = (try? FileManager.default.attributesOfItem(atPath: temporary + "-wal"))?[.size] as? NSNumber
        guard (log?.intValue ?? 0) == 0 else { throw StoreError.diskFull(path: path) }  // never link a file that needs its log
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

    /// `.NAME.creating-`: the temporary files' names up to the process id.
    static func leftoverPrefix(_ name: String) -> String { LeftoverFiles.prefix(target: name, kind: "creating") }

    /// Removes the temporary files (and their -wal/-shm/-journal) that killed first opens of
    /// `path` left, those whose process is gone (`LeftoverFiles`). Only the process id tells:
    /// a first open takes seconds, but one may be running in a process that has run for days.
    /// - Returns: the names removed.
    @discardableResult
    static func removeLeftovers(of path: String) -> [String] {
        let target = URL(fileURLWithPath: path)
        return LeftoverFiles.removeStale(
            in: target.deletingLastPathComponent().path, prefixes: [leftoverPrefix(target.lastPathComponent)])
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
