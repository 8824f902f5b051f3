import GRDB

/// Zeroes what an SQLite R*Tree node keeps behind its last cell.
///
/// The R*Tree removes a cell by moving the later cells down one slot and lowering the count
/// (`nodeDeleteCell` in SQLite's ext/rtree/rtree.c); the freed slot at the end keeps its bytes:
/// a deleted row's id and float bounds, i.e. where that expense was, to about a metre. Measured
/// with sqlite3 3.40.1: after deleting two of three points from an R*Tree the node blob still held
/// the last one's bounds twice. `PRAGMA secure_delete` cannot help, it only zeroes space that
/// SQLite's B-tree frees, and the node blob is rewritten whole.
enum RTreeScrub {
    /// Rewrites every node of `index` (e.g. `idx_expenses_geom`) whose bytes after its last cell
    /// are not all zero. Run inside the write transaction that deleted the rows.
    /// - Returns: how many nodes were rewritten.
    /// - Complexity: reads every node once (one 4 KB blob per ~50 entries).
    @discardableResult
    static func zeroUnusedCells(of index: String, in db: Database) throws -> Int {
        let table = "\(index)_node".quotedDatabaseIdentifier
        var dirty: [(node: Int64, data: [UInt8])] = []
        let nodes = RawStatement(try db.cachedStatement(sql: "SELECT nodeno, data FROM \(table)"))
        nodes.reset()
        defer { nodes.reset() }
        while try nodes.step(db) {
            try nodes.withBlob(1) { blob in
                guard RTreeNode.hasHeader(blob) else { throw StoreError.corruptSpatialIndex(table: index, node: nodes.int64(0)) }
                let used = RTreeNode.usedSize(blob)
                guard blob[used...].contains(where: { $0 != 0 }) else { return }
                var data = [UInt8](repeating: 0, count: blob.count)
                data.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: blob[..<used])) }
                dirty.append((nodes.int64(0), data))
            }
        }
        let update = RawStatement(try db.cachedStatement(sql: "UPDATE \(table) SET data = ?2 WHERE nodeno = ?1"))
        for (node, data) in dirty {
            update.reset()
            update.bind(1, node)
            update.bind(2, bytes: data)
            _ = try update.step(db)
        }
        update.reset()
        return dirty.count
    }
}
