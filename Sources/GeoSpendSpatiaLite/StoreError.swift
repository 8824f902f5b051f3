import Foundation
import GRDB

/// Why the SpatiaLite store could not do what was asked. SQLite failures a user can act on
/// (locked, full disk, read-only, damaged file) become cases naming the database file; other
/// `DatabaseError`s pass through unwrapped where SQLite's own message is the truth.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    case notAGeoSpendDatabase(path: String, reason: String)
    case notFound(what: String, id: String)
    case corruptSpatialIndex(table: String, node: Int64)
    /// Another process held the write lock for longer than the busy timeout.
    case locked(path: String, waitedSeconds: Double)
    /// SQLite could not grow the file or its temporary files (`SQLITE_FULL`): a disk, or the
    /// file's page limit, is full.
    case diskFull(path: String)
    /// The file or its folder cannot be written (`SQLITE_READONLY`, `SQLITE_CANTOPEN`, `SQLITE_PERM`).
    case readOnly(path: String, reason: String)
    /// SQLite found the file damaged (`SQLITE_CORRUPT`) or failed to read or write it (`SQLITE_IOERR`).
    case damaged(path: String, reason: String)
    /// Written by a newer GeoSpend: migrations this version does not know.
    case newerSchema(path: String, unknown: [String])
    /// The path is a folder, a device or another non-file (SQLite calls it a disk I/O error).
    case notAFile(path: String, what: String, hint: String)
    /// `users delete` (or `expenses delete`) would need more free space to rewrite the file than there is: nothing was deleted.
    case notEnoughSpaceToScrub(path: String, what: String, neededBytes: Int64, freeBytes: Int64)
    /// The user's rows were deleted and committed, but the write-ahead log could not be emptied or
    /// the file rewritten afterwards: fragments may remain until `doctor --repair` finishes the job.
    case deletedButNotScrubbed(path: String, what: String, rows: Int, reason: String)
    /// `doctor --repair` could not finish a deletion's owed clean-up (`VACUUM`, checkpoint): the
    /// file is not damaged, the clean-up is still owed and the next `--repair` tries again.
    case cleanUpNotFinished(path: String, reason: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): return "\(path): cannot open the database: \(reason)"
        case .notAGeoSpendDatabase(let path, let reason): return "\(path): not a GeoSpend database: \(reason)"
        case .notFound(let what, let id): return "no \(what) with id \"\(id)\""
        case .corruptSpatialIndex(let table, let node):
            return "the spatial index of \(table) is damaged (R*Tree node \(node) is missing or truncated); "
                + "repair it with `geospend doctor --repair`"
        case .locked(let path, let waited):
            return "\(path): the database is locked by another process that is writing to it; gave up after waiting "
                + String(format: "%.1f s", waited) + " (set GEOSPEND_BUSY_TIMEOUT=SECONDS to wait longer)"
        case .diskFull(let path):
            return "\(path): disk full: the database file, or SQLite's temporary files (in SQLITE_TMPDIR, else TMPDIR, "
                + "else /var/tmp), could not grow; nothing of this command was written. Free some space and run it again"
        case .readOnly(let path, let reason):
            return "\(path): \(reason); GeoSpend writes the file, and SQLite its -wal and -shm files beside it, even to read"
        case .damaged(let path, let reason):
            return "\(path): the database file is damaged (\(reason)); `geospend doctor` checks it, or restore a backup"
        case .newerSchema(let path, let unknown):
            return "\(path): written by a newer GeoSpend (schema \(unknown.joined(separator: ", "))); upgrade geospend"
        case .notAFile(let path, let what, let hint):
            return "\(path): \(what), not a database file; \(hint)"
        case .notEnoughSpaceToScrub(let path, let what, let needed, let free):
            return "\(path): not enough free disk space to delete \(what) and then rewrite the file "
                + "(VACUUM needs about \(megabytes(needed)), \(megabytes(free)) free); nothing was deleted. "
                + "Free some space and run it again, or pass --no-vacuum (fragments of the deleted rows may then stay "
                + "in unused page space until `geospend doctor --repair` rewrites the file)"
        case .deletedButNotScrubbed(let path, let what, let rows, let reason):
            return "\(path): deleted \(what) (\(rows) rows, committed), but could not then \(reason): "
                + "fragments of the deleted rows may remain in the write-ahead log or unused page space. "
                + "Free some disk space and run `geospend doctor --repair` to finish the job"
        case .cleanUpNotFinished(let path, let reason):
            return "\(path): could not finish the clean-up after a user's deletion: could not \(reason). The file is "
                + "not damaged, and the repairs before the clean-up are done; fragments of the deleted rows may remain "
                + "in the write-ahead log or unused page space. Free disk space (about the file's size, in its folder "
                + "and SQLite's temporary folder) and run `geospend doctor --repair` again"
        }
    }

    private func megabytes(_ bytes: Int64) -> String { String(format: "%.1f MB", Double(bytes) / 1_000_000) }

    /// The user-facing error for a SQLite failure on `path`, or nil when SQLite's own error is the
    /// clearest thing to show (constraints, SQL mistakes).
    /// - Parameter waited: how long this store's busy handler had waited for locks.
    static func translating(_ error: DatabaseError, path: String, waited: TimeInterval) -> StoreError? {
        let sqlite = error.message ?? "SQLite error \(error.extendedResultCode.rawValue)"
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED: return .locked(path: path, waitedSeconds: waited)
        case .SQLITE_FULL: return .diskFull(path: path)
        case .SQLITE_READONLY, .SQLITE_PERM:
            return .readOnly(path: path, reason: "the file or its folder is read-only (SQLite: \(sqlite))")
        case .SQLITE_CANTOPEN:
            return .cannotOpen(path: path, reason: "\(sqlite); check that the folder exists and is writable")
        case .SQLITE_NOTADB: return .notAGeoSpendDatabase(path: path, reason: "the file is not an SQLite database")
        case .SQLITE_IOERR where FreeSpace.isNearlyExhausted(FreeSpace.folder(of: path)):
            // A disk with no room left fails the shared-memory file or the log with an I/O error
            // before any SQLITE_FULL: "damaged … restore a backup" sent users to their backups.
            return .diskFull(path: path)
        case .SQLITE_CORRUPT, .SQLITE_IOERR: return .damaged(path: path, reason: sqlite)
        default: return nil
        }
    }
}
