/// The node blob of a 2-D SQLite R*Tree (the `<index>_node` shadow table), as SQLite's
/// `ext/rtree/rtree.c` lays it out ("Database Format of R-Tree Tables" there): the tree depth
/// (meaningful in the root, node 1, only) and the cell count as big-endian 16-bit integers,
/// then cells of a big-endian 64-bit id (a child node number, or the row's id in a leaf) and
/// four big-endian 32-bit floats `xmin xmax ymin ymax`. Whatever follows the last cell is
/// unused. The one codec: `RTreeBulkLoad` writes nodes with it; nearest stores, the centre
/// hint and `RTreeScrub` read them with it.
package enum RTreeNode {
    package static let headerSize = 4
    /// A 2-D cell: 8 bytes of id and four 4-byte bounds.
    package static let cellSize = 24

    package struct Cell: Equatable, Sendable {
        package var id: Int64
        package var xmin, xmax, ymin, ymax: Float

        package init(id: Int64, xmin: Float, xmax: Float, ymin: Float, ymax: Float) {
            (self.id, self.xmin, self.xmax, self.ymin, self.ymax) = (id, xmin, xmax, ymin, ymax)
        }
    }

    /// The tree depth the root records (0: the root is a leaf). Needs `hasHeader`.
    package static func depth(_ node: UnsafeRawBufferPointer) -> Int { Int(node.bigEndianUInt16(at: 0)) }

    /// The number of cells in use. Needs `hasHeader`.
    package static func count(_ node: UnsafeRawBufferPointer) -> Int { Int(node.bigEndianUInt16(at: 2)) }

    /// Whether `node` is long enough for its header.
    package static func hasHeader(_ node: UnsafeRawBufferPointer) -> Bool { node.count >= headerSize }

    /// Whether the header and every cell it counts fit in `node`.
    package static func isWhole(_ node: UnsafeRawBufferPointer) -> Bool {
        hasHeader(node) && headerSize + count(node) * cellSize <= node.count
    }

    /// The bytes the header and the counted cells take, at most the blob's length. Needs `hasHeader`.
    package static func usedSize(_ node: UnsafeRawBufferPointer) -> Int {
        min(node.count, headerSize + count(node) * cellSize)
    }

    /// Cell `i`; `i` < `count(node)` of a node that `isWhole`.
    package static func cell(_ i: Int, of node: UnsafeRawBufferPointer) -> Cell {
        let at = headerSize + i * cellSize
        return Cell(
            id: Int64(bitPattern: node.bigEndianUInt64(at: at)),
            xmin: node.bigEndianFloat(at: at + 8), xmax: node.bigEndianFloat(at: at + 12),
            ymin: node.bigEndianFloat(at: at + 16), ymax: node.bigEndianFloat(at: at + 20))
    }

    /// A node of `size` bytes (the R*Tree's node size) holding `cells`, zeroes after the last.
    package static func encode(_ cells: some Collection<Cell>, depth: Int, size: Int) -> [UInt8] {
        var data = [UInt8](repeating: 0, count: size)
        // Stored in place (an array of the four bounds per cell was most of the encoding).
        data.withUnsafeMutableBytes { out in
            func put<T: FixedWidthInteger>(_ value: T, at offset: Int) {
                out.storeBytes(of: value.bigEndian, toByteOffset: offset, as: T.self)
            }
            put(UInt16(depth), at: 0)
            put(UInt16(cells.count), at: 2)
            var offset = headerSize
            for c in cells {
                put(c.id, at: offset)
                put(c.xmin.bitPattern, at: offset + 8); put(c.xmax.bitPattern, at: offset + 12)
                put(c.ymin.bitPattern, at: offset + 16); put(c.ymax.bitPattern, at: offset + 20)
                offset += cellSize
            }
        }
        return data
    }
}

extension UnsafeRawBufferPointer {
    fileprivate func bigEndianUInt16(at offset: Int) -> UInt16 { UInt16(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self)) }
    fileprivate func bigEndianUInt64(at offset: Int) -> UInt64 { UInt64(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
    fileprivate func bigEndianFloat(at offset: Int) -> Float {
        Float(bitPattern: UInt32(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
    }
}
