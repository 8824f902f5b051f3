import GeoSpend
import GRDB

extension SpatiaLiteStore: ChangeWatching {
    /// SQLite's `PRAGMA data_version` on a read-only connection of its own
    /// (https://www.sqlite.org/pragma.html#pragma_data_version): it changes whenever another
    /// connection commits — this store's writer, another process — and this connection never
    /// writes, so every commit counts.
    public func changeWatcher() throws -> any ChangeWatcher {
        var config = Configuration()
        config.readonly = true
        config.label = "geospend-changes"
        config.busyMode = .timeout(busyTimeout)
        return try translatingErrors { DataVersionWatcher(queue: try DatabaseQueue(path: path, configuration: config)) }
    }
}

private struct DataVersionWatcher: ChangeWatcher {
    let queue: DatabaseQueue

    func version() async throws -> Int64 {
        // The pragma reads the file's current state itself; no transaction needed around it.
        try await queue.unsafeRead { db in try Int64.fetchOne(db, sql: "PRAGMA data_version") ?? 0 }
    }
}
