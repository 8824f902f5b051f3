import GRDB

/// Fills an empty 2-D SQLite R*Tree (SpatiaLite's `idx_<table>_<column>`) with points in one pass,
/// by writing its three shadow tables (`_node`, `_rowid`, `_parent`) directly.
///
/// Inserting through the virtual table costs one R*Tree insertion per row, ~10 µs each and more
/// than a third of an import's time; packing the tree once costs little more than a sort. The nodes are packed Sort-Tile-Recursive
/// (Leutenegger, Lopez & Edgington 1997), the approach of GDAL's and SpatiaLite 5.1's R*Tree bulk
/// loaders. The layout is SQLite's own (`ext/rtree/rtree.c`, "Database Format of R-Tree Tables"):
/// a node is `depth` (root only) and a cell count as big-endian 16-bit integers, then cells of a
/// big-endian 64-bit id and the float bounds `xmin, xmax, ymin, ymax`, each a big-endian 32-bit
/// float rounded outwards exactly as the R*Tree module rounds them. SQLite's `rtreecheck()` and
/// SpatiaLite's `CheckSpatialIndex()` accept the result.
///
/// ```swift
/// var load = RTreeBulkLoad(index: "idx_expenses_geom")
/// load.add(id: pk, x: longitude, y: latitude)
/// try load.write(into: db)  // only when `RTreeBulkLoad.isEmpty("idx_expenses_geom", in: db)`
/// ```
struct RTreeBulkLoad {
    /// The R*Tree virtual table, e.g. `idx_expenses_geom`.
    let index: String
    private var cells: [Cell] = []

    private struct Cell {
        var id: Int64
        var xmin, xmax, ymin, ymax: Float
        var centerX: Float { xmin / 2 + xmax / 2 }
        var centerY: Float { ymin / 2 + ymax / 2 }
    }

    init(index: String) {
        self.index = index
    }

    /// Whether the R*Tree holds no entry and no node but its root: the only state `write` may fill.
    static func isEmpty(_ index: String, in db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: """
            SELECT NOT EXISTS (SELECT 1 FROM \(quoted(index, "rowid")))
                AND (SELECT count(*) FROM \(quoted(index, "node"))) = 1
            """) ?? false
    }

    /// Adds a point entry (`id` is the row's rowid; `x` longitude, `y` latitude).
    mutating func add(id: Int64, x: Double, y: Double) {
        let (x0, x1) = (Self.down(x), Self.up(x)), (y0, y1) = (Self.down(y), Self.up(y))
        cells.append(Cell(id: id, xmin: x0, xmax: x1, ymin: y0, ymax: y1))
    }

    /// Writes the packed tree into the empty R*Tree.
    /// - Complexity: O(n log n) for n points.
    func write(into db: Database) throws {
        guard !cells.isEmpty else { return }
        let nodeSize = try Int.fetchOne(db, sql: "SELECT length(data) FROM \(Self.quoted(index, "node")) WHERE nodeno = 1") ?? 0
        let capacity = min(51, (nodeSize - 4) / 24)  // RTREE_MAXCELLS; 24 bytes a 2-D cell
        guard capacity >= 3 else { throw StoreError.cannotOpen(path: index, reason: "unexpected R*Tree node size \(nodeSize)") }

        let insertNode = RawStatement(try db.cachedStatement(sql: "INSERT INTO \(Self.quoted(index, "node")) (nodeno, data) VALUES (?, ?)"))
        let insertParent = RawStatement(try db.cachedStatement(
            sql: "INSERT INTO \(Self.quoted(index, "parent")) (nodeno, parentnode) VALUES (?, ?)"))
        let insertRowid = RawStatement(try db.cachedStatement(sql: "INSERT INTO \(Self.quoted(index, "rowid")) (rowid, nodeno) VALUES (?, ?)"))
        let updateRoot = RawStatement(try db.cachedStatement(sql: "UPDATE \(Self.quoted(index, "node")) SET data = ? WHERE nodeno = 1"))

        var level = cells
        var depth = 0
        var nextNode: Int64 = 2  // node 1 is the root, which SQLite created
        var leafOf: [(rowid: Int64, node: Int64)] = []
        leafOf.reserveCapacity(cells.count)
        func link(_ children: some Collection<Cell>, to node: Int64) throws {
            for child in children {
                if depth == 0 {
                    leafOf.append((child.id, node))
                } else {
                    insertParent.reset()
                    insertParent.bind(1, child.id); insertParent.bind(2, node)
                    _ = try insertParent.step(db)
                }
            }
        }
        while level.count > capacity {
            var parents: [Cell] = []
            for group in Self.tiles(level, capacity: capacity) {
                let node = nextNode
                nextNode += 1
                insertNode.reset()
                insertNode.bind(1, node); insertNode.bind(2, bytes: Self.encode(group, depth: 0, size: nodeSize))
                _ = try insertNode.step(db)
                try link(group, to: node)
                parents.append(Self.bounds(of: group, id: node))
            }
            level = parents
            depth += 1
        }
        updateRoot.reset()
        updateRoot.bind(1, bytes: Self.encode(level, depth: depth, size: nodeSize))
        _ = try updateRoot.step(db)
        try link(level, to: 1)
        // In rowid order the rowid table's B-tree is appended to, not split at random.
        leafOf.sort { $0.rowid < $1.rowid }
        for entry in leafOf {
            insertRowid.reset()
            insertRowid.bind(1, entry.rowid); insertRowid.bind(2, entry.node)
            _ = try insertRowid.step(db)
        }
    }

    /// Sort-Tile-Recursive grouping: vertical slices by x, each cut into runs of `capacity` by y.
    private static func tiles(_ cells: [Cell], capacity: Int) -> [ArraySlice<Cell>] {
        let nodes = (cells.count + capacity - 1) / capacity
        let slices = Int(Double(nodes).squareRoot().rounded(.up))
        let sliceSize = slices * capacity
        let byX = cells.sorted { $0.centerX < $1.centerX }
        var groups: [ArraySlice<Cell>] = []
        groups.reserveCapacity(nodes)
        for start in stride(from: 0, to: byX.count, by: sliceSize) {
            let slice = byX[start..<min(start + sliceSize, byX.count)].sorted { $0.centerY < $1.centerY }
            for s in stride(from: 0, to: slice.count, by: capacity) {
                groups.append(slice[s..<min(s + capacity, slice.count)])
            }
        }
        return groups
    }

    private static func bounds(of group: ArraySlice<Cell>, id: Int64) -> Cell {
        var b = Cell(id: id, xmin: .infinity, xmax: -.infinity, ymin: .infinity, ymax: -.infinity)
        for c in group {
            b.xmin = min(b.xmin, c.xmin); b.xmax = max(b.xmax, c.xmax)
            b.ymin = min(b.ymin, c.ymin); b.ymax = max(b.ymax, c.ymax)
        }
        return b
    }

    private static func encode(_ cells: some Collection<Cell>, depth: Int, size: Int) -> [UInt8] {
        var data = [UInt8](repeating: 0, count: size)
        // Stored in place (an array of the four bounds per cell was most of the encoding).
        data.withUnsafeMutableBytes { out in
            func put<T: FixedWidthInteger>(_ value: T, at offset: Int) {
                out.storeBytes(of: value.bigEndian, toByteOffset: offset, as: T.self)
            }
            put(UInt16(depth), at: 0)
            put(UInt16(cells.count), at: 2)
            var offset = 4
            for c in cells {
                put(c.id, at: offset)
                put(c.xmin.bitPattern, at: offset + 8); put(c.xmax.bitPattern, at: offset + 12)
                put(c.ymin.bitPattern, at: offset + 16); put(c.ymax.bitPattern, at: offset + 20)
                offset += 24
            }
        }
        return data
    }

    // The R*Tree module's rounding (rtreeValueDown/Up): a float bound never inside the value.
    private static let towardZero = 1.0 - 1.0 / 8_388_608, awayFromZero = 1.0 + 1.0 / 8_388_608

    static func down(_ d: Double) -> Float {
        let f = Float(d)
        return Double(f) > d ? Float(d * (d < 0 ? awayFromZero : towardZero)) : f
    }

    static func up(_ d: Double) -> Float {
        let f = Float(d)
        return Double(f) < d ? Float(d * (d < 0 ? towardZero : awayFromZero)) : f
    }

    private static func quoted(_ index: String, _ shadow: String) -> String {
        "\(index)_\(shadow)".quotedDatabaseIdentifier
    }
}
