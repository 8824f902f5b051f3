import Foundation
import GeoSpend
import GRDB
import GRDBSQLite

/// Store names and positions already read, per read connection, for as long as the file has not
/// changed: insights label every store a user visited, and looking 17 of them up
/// (`json_each`, the id index, a table seek each) was a sixth of "insights per store, one user"
/// (161k of 925k instructions a call, callgrind, 100k bench file).
///
/// A connection's labels are trusted only while SQLite's data version for its file
/// (`SQLITE_FCNTL_DATA_VERSION`, https://www.sqlite.org/c3ref/c_fcntl_begin_atomic_write.html#sqlitefcntldataversion)
/// is what it was when they were read: it changes with every commit, by this process or another.
/// The version is read only inside a read transaction that has taken its snapshot
/// (`sqlite3_txn_state` is `SQLITE_TXN_READ`); anything else (no snapshot yet, a write
/// transaction) reads from the file and caches nothing.
final class StoreLabelCache: @unchecked Sendable {
    typealias Label = (name: String, coordinate: Coordinate)

    /// One connection's labels. `connection` is weak: a connection opened later at the same
    /// address does not inherit them.
    private final class Entry {
        weak var connection: Database?
        var version: UInt32
        var labels: [ExactText: Label] = [:]

        init(_ connection: Database, version: UInt32) {
            self.connection = connection
            self.version = version
        }
    }

    /// Labels kept per connection at most; past it the connection's labels start over.
    static let limit = 65_536

    private let lock = NSLock()
    private var entries: [ObjectIdentifier: Entry] = [:]

    /// The labels of `ids` (nil for an id with no store), from the cache where the snapshot
    /// allows and from `read` for the rest.
    func labels(_ ids: [String], _ db: Database, read: ([String]) throws -> [Label?]) throws -> [Label?] {
        guard let version = Self.snapshotVersion(db) else { return try read(ids) }
        let entry = lock.withLock {
            let key = ObjectIdentifier(db)
            if let entry = entries[key], entry.connection === db {
                if entry.version != version || entry.labels.count > Self.limit {
                    entry.version = version
                    entry.labels = [:]
                }
                return entry
            }
            let entry = Entry(db, version: version)
            entries = entries.filter { $0.value.connection != nil }
            entries[key] = entry
            return entry
        }
        // Only this connection's scope touches its entry (GRDB runs one scope per connection at a time).
        // Keyed by UTF-8 bytes: two ids equal as Swift strings (é composed and decomposed) are two stores.
        let keys = ids.map(ExactText.init)
        var labels = keys.map { entry.labels[$0] }
        let missing = ids.indices.filter { labels[$0] == nil }
        guard !missing.isEmpty else { return labels }
        let found = try read(missing.map { ids[$0] })
        for (k, label) in zip(missing, found) {
            labels[k] = label
            // Ids with no store are looked up again next time: they are rare.
            if let label { entry.labels[keys[k]] = label }
        }
        return labels
    }

    /// The data version of the snapshot this connection reads, when it is in a read transaction
    /// that has one.
    private static func snapshotVersion(_ db: Database) -> UInt32? {
        guard sqlite3_txn_state(db.sqliteConnection, "main") == SQLITE_TXN_READ else { return nil }
        var version: UInt32 = 0
        guard sqlite3_file_control(db.sqliteConnection, "main", SQLITE_FCNTL_DATA_VERSION, &version) == SQLITE_OK else { return nil }
        return version
    }
}
