import Foundation
import GRDB

/// The clean-up a user's deletion owes the file once its transaction has committed: `VACUUM`
/// (stale copies of the rows in unused page space) and a `wal_checkpoint(TRUNCATE)` (old pages in
/// the write-ahead log). Either can fail after the commit — a full disk — so the deletion records
/// a flag in `geospend_pending_scrub` inside its own transaction, and only a finished clean-up
/// clears it; `doctor` reports a set flag and `doctor --repair` finishes the job. The flag names
/// no user: it would otherwise keep the very id the deletion removed.
extension SpatiaLiteStore {
    static let pendingScrubTable = "geospend_pending_scrub"

    /// Sets the flag, inside the deletion's transaction, and counts one more deletion
    /// (`generation`): a clean-up clears the flag only when no deletion came after the one it read
    /// before its rewrite (`scrubAfterDeletion`).
    static func markPendingScrub(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS \(pendingScrubTable) (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                since TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
                generation INTEGER NOT NULL DEFAULT 1
            )
            """)
        // `since` stays the first deletion's time.
        try db.execute(sql: """
            INSERT INTO \(pendingScrubTable) (id) VALUES (1) ON CONFLICT (id) DO UPDATE SET generation = generation + 1
            """)
    }

    /// The deletions counted so far while the flag is set, or nil when no clean-up is owed.
    static func pendingScrubGeneration(_ db: Database) throws -> Int64? {
        guard try db.tableExists(pendingScrubTable) else { return nil }
        return try Int64.fetchOne(db, sql: "SELECT generation FROM \(pendingScrubTable) WHERE id = 1")
    }

    /// When a deletion's clean-up is still owed: the time of the first such deletion, else nil.
    static func pendingScrub(_ db: Database) throws -> String? {
        guard try db.tableExists(pendingScrubTable) else { return nil }
        return try String.fetchOne(db, sql: "SELECT since FROM \(pendingScrubTable) WHERE id = 1")
    }

    public func pendingScrubSince() throws -> String? {
        try readDatabase { db in try Self.pendingScrub(db) }
    }

    public func rewriteOwed() async throws -> Bool {
        try await translatingErrors { try await pool.read { db in try Self.pendingScrub(db) } } != nil
    }

    /// Refuses, before a deletion changes anything, when the disk cannot hold the rewrite: `VACUUM`
    /// in WAL mode writes every page of the file into the write-ahead log beside it.
    static func checkSpaceToRewrite(_ db: Database, path: String, what: String) throws {
        let pages = try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0
        let pageSize = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
        let wal = ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? NSNumber)?.int64Value ?? 0
        let needed = pages * pageSize + wal
        guard let free = FreeSpace.bytes(in: FreeSpace.folder(of: path)) else { return }  // cannot tell: let VACUUM try
        if free < needed { throw StoreError.notEnoughSpaceToScrub(path: path, what: what, neededBytes: needed, freeBytes: free) }
    }

    /// The clean-up: `VACUUM` (when `rewrite`), then the log emptied; the flag is cleared only
    /// when the file was rewritten and the log emptied, and only if no deletion was flagged since
    /// the rewrite began: another process's `users delete --no-vacuum` committed between this
    /// `VACUUM` and the clearing is not covered by it, and its flag stays for `doctor`.
    /// - Parameter afterRewrite: run between the rewrite and the clearing (tests: the interleaving).
    /// - Returns: whether the write-ahead log could be emptied (false: a reader held it).
    /// - Throws: `ScrubFailure` naming the step that failed.
    func scrubAfterDeletion(rewrite: Bool, afterRewrite: () throws -> Void = {}) throws -> Bool {
        var covered: Int64?
        if rewrite {
            do {
                try pool.writeWithoutTransaction { db in
                    // Read before the rewrite: a deletion another process commits between this
                    // read and VACUUM is rewritten too, but its flag stays (a clean-up reported
                    // once too often, never one lost).
                    covered = try Self.pendingScrubGeneration(db)
                    try db.execute(sql: "VACUUM")
                }
            } catch {
                throw ScrubFailure(step: "rewrite the file (VACUUM)", error: error)
            }
        }
        try afterRewrite()
        var emptied = try emptyWriteAheadLog()
        if rewrite && emptied, let covered {
            do {
                try pool.writeWithoutTransaction { db in
                    try db.execute(sql: "DELETE FROM \(Self.pendingScrubTable) WHERE generation = ?", arguments: [covered])
                }
            } catch {
                throw ScrubFailure(step: "clear the pending clean-up flag", error: error)
            }
            emptied = try emptyWriteAheadLog()
        }
        return emptied
    }

    /// `PRAGMA wal_checkpoint(TRUNCATE)`: copies the log into the file and empties it.
    /// - Returns: false when a reader kept it from completing.
    private func emptyWriteAheadLog() throws -> Bool {
        do {
            return try pool.writeWithoutTransaction { db in
                let r = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
                return (r?[0] as Int?) == 0
            }
        } catch {
            throw ScrubFailure(step: "empty the write-ahead log (checkpoint)", error: error)
        }
    }

    /// A step of the clean-up that failed, with SQLite's reason in words.
    struct ScrubFailure: Error {
        let step: String
        let error: any Error

        var reason: String {
            if let e = error as? DatabaseError, e.resultCode == .SQLITE_FULL { return "\(step): disk full" }
            if let e = error as? DatabaseError { return "\(step): \(e.message ?? "SQLite error \(e.extendedResultCode.rawValue)")" }
            return "\(step): \(error)"
        }
    }
}
