import Foundation
import GRDB
import GeoSpendSpatiaLite
import Testing

/// `RTreeNode`, the one codec of R*Tree node blobs, against SQLite's own R*Tree module: nodes
/// SQLite wrote decode to the rows SQLite returns, and nodes the codec wrote read back through
/// SQLite's debugging functions `rtreenode(2, blob)` and `rtreedepth(blob)` (ext/rtree/rtree.c),
/// which print a node's cells as "{id xmin xmax ymin ymax}" and its root depth.
@Suite struct RTreeNodeTests {
    /// Points with bounds no float holds exactly, so SQLite's outward rounding shows.
    static func points(_ n: Int) -> [(id: Int64, x: Double, y: Double)] {
        (0..<n).map { i -> (id: Int64, x: Double, y: Double) in
            let x: Double = 24.9 + Double(i) * 0.001_234_567
            let y: Double = 60.1 + Double(i % 13) * 0.000_765_432_1
            return (Int64(1000 + 7 * i), x, y)
        }
    }

    @Test(arguments: [1, 40, 400])
    func decodesTheNodesSQLiteWrites(points: Int) throws {
        let db = try DatabaseQueue()
        try db.write { db in
            try db.execute(sql: "CREATE VIRTUAL TABLE t USING rtree(id, x0, x1, y0, y1)")
            for p in Self.points(points) {
                try db.execute(sql: "INSERT INTO t VALUES (?, ?, ?, ?, ?)", arguments: [p.id, p.x, p.x, p.y, p.y])
            }
        }
        try db.read { db in
            // What SQLite returns for each row: its stored float bounds, widened to Double.
            var rows: [Int64: [Double]] = [:]
            for r in try Row.fetchAll(db, sql: "SELECT id, x0, x1, y0, y1 FROM t") { rows[r[0]] = [r[1], r[2], r[3], r[4]] }
            var leafCells: [RTreeNode.Cell] = []
            for r in try Row.fetchAll(db, sql: "SELECT nodeno, data, rtreedepth(data) FROM t_node") {
                let nodeno: Int64 = r[0], blob: Data = r[1]
                try blob.withUnsafeBytes { node in
                    try #require(RTreeNode.isWhole(node))
                    if nodeno == 1 { #expect(RTreeNode.depth(node) == r[2] as Int) }
                    let cells = (0..<RTreeNode.count(node)).map { RTreeNode.cell($0, of: node) }
                    #expect(RTreeNode.usedSize(node) == RTreeNode.headerSize + cells.count * RTreeNode.cellSize)
                    // A leaf's cells are rows (their ids are in t_rowid), an inner node's are nodes.
                    let leafIDs = try Set(Int64.fetchAll(db, sql: "SELECT rowid FROM t_rowid WHERE nodeno = ?", arguments: [nodeno]))
                    if !leafIDs.isEmpty {
                        #expect(Set(cells.map(\.id)) == leafIDs)
                        leafCells += cells
                    }
                }
            }
            #expect(leafCells.count == points)
            for c in leafCells {
                #expect(rows[c.id] == [Double(c.xmin), Double(c.xmax), Double(c.ymin), Double(c.ymax)], "cell \(c.id)")
            }
        }
    }

    @Test func encodesNodesSQLiteReads() throws {
        let cells = Self.points(51).map { p in
            RTreeNode.Cell(id: p.id, xmin: Float(p.x), xmax: Float(p.x) + 0.5, ymin: Float(p.y) - 0.25, ymax: Float(p.y))
        }
        let blob = RTreeNode.encode(cells, depth: 3, size: 1228)
        #expect(blob.count == 1228)
        #expect(blob[(RTreeNode.headerSize + 51 * RTreeNode.cellSize)...].allSatisfy { $0 == 0 })
        let (text, depth) = try DatabaseQueue().read { db in
            let row = try #require(try Row.fetchOne(db, sql: "SELECT rtreenode(2, ?), rtreedepth(?)", arguments: [Data(blob), Data(blob)]))
            return (row[0] as String, row[1] as Int)
        }
        #expect(depth == 3)
        // "{id xmin xmax ymin ymax}" per cell, the floats printed with %g (6 significant digits).
        let printed = text.split(separator: "}").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " {")) }.filter { !$0.isEmpty }
        try #require(printed.count == cells.count, "\(text)")
        for (line, cell) in zip(printed, cells) {
            let fields = line.split(separator: " ")
            #expect(Int64(fields[0]) == cell.id)
            let bounds = fields.dropFirst().map { Double($0)! }
            for (read, wrote) in zip(bounds, [cell.xmin, cell.xmax, cell.ymin, cell.ymax]) {
                #expect(abs(read - Double(wrote)) <= abs(Double(wrote)) * 1e-5, "\(line)")
            }
        }
        RTreeNode.encode([], depth: 0, size: 8).withUnsafeBytes { node in
            #expect(RTreeNode.isWhole(node) && RTreeNode.count(node) == 0 && RTreeNode.depth(node) == 0)
        }
    }

    @Test func refusesBlobsTooShortForTheirCells() {
        var blob = RTreeNode.encode([RTreeNode.Cell(id: 1, xmin: 0, xmax: 1, ymin: 0, ymax: 1)], depth: 0, size: 28)
        blob.withUnsafeBytes { #expect(RTreeNode.isWhole($0)) }
        blob[3] = 2  // two cells claimed, one fits
        blob.withUnsafeBytes { #expect(!RTreeNode.isWhole($0) && RTreeNode.usedSize($0) == 28) }
        [UInt8](repeating: 0, count: 3).withUnsafeBytes { #expect(!RTreeNode.hasHeader($0) && !RTreeNode.isWhole($0)) }
    }
}
