import Foundation
import GRDB
import GeoSpend

/// Writes a vector tile set as an MBTiles 1.3 file (https://github.com/mapbox/mbtiles-spec/blob/master/1.3/spec.md):
/// `metadata(name, value)` and `tiles(zoom_level, tile_column, tile_row, tile_data)` with rows
/// in TMS order (flipped y) and gzip-compressed MVT data, as GDAL's MBTiles driver writes and
/// reads it (https://gdal.org/drivers/vector/mbtiles.html). The file gets MBTiles' SQLite
/// application id, 0x4d504258 ("MPBX"), which the CLI uses to recognise a file it may replace.
public enum MBTilesWriter {
    public static let applicationID: Int32 = 0x4D50_4258

    /// Writes into `path`, a new or empty file (the CLI's temporary file, renamed when done):
    /// no rollback journal, since a failed file is thrown away whole.
    /// - Parameter progress: tiles written and the total, every 256 tiles and at the end.
    public static func write(
        _ set: VectorTileSet, name: String, to path: String, progress: ExportProgress? = nil
    ) throws {
        var config = Configuration()
        config.journalMode = .default
        let queue = try DatabaseQueue(path: path, configuration: config)
        try queue.writeWithoutTransaction { db in
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = OFF")
            try db.execute(sql: "PRAGMA application_id = \(applicationID)")
            try db.inTransaction {
                try db.execute(sql: """
                    CREATE TABLE metadata (name text, value text);
                    CREATE UNIQUE INDEX name ON metadata (name);
                    CREATE TABLE tiles (zoom_level integer, tile_column integer, tile_row integer, tile_data blob);
                    CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);
                    """)
                for (key, value) in set.metadata(name: name) {
                    try db.execute(sql: "INSERT INTO metadata (name, value) VALUES (?, ?)", arguments: [key, value])
                }
                let insert = try db.makeStatement(
                    sql: "INSERT INTO tiles (zoom_level, tile_column, tile_row, tile_data) VALUES (?, ?, ?, ?)")
                let total = set.tileCount
                var written = 0
                try set.forEachTile { id, mvt in
                    try insert.execute(arguments: [id.z, id.x, id.tmsRow, Data(Gzip.compress(mvt))])
                    written += 1
                    if written % 256 == 0 { progress?(written, total) }
                }
                progress?(written, total)
                return .commit
            }
        }
        try queue.close()
    }

    /// Whether the file at `path` is an MBTiles file (its SQLite header's application id).
    public static func isMBTiles(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 72), head.count == 72 else { return false }
        let id = head[68..<72].reduce(Int32(0)) { $0 << 8 | Int32($1) }
        return Array(head.prefix(16)) == Array("SQLite format 3\0".utf8) && id == applicationID
    }
}
