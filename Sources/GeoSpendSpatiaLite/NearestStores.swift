import GeoSpend
import GRDB

/// Nearest stores by a best-first walk of SpatiaLite's own R*Tree (`idx_stores_geom`), the
/// k-nearest-neighbour search of Hjaltason & Samet (1999), which SQLite's `rtree` module does not
/// offer in SQL.
///
/// A queue holds R*Tree nodes, index entries and measured stores, ordered by a lower bound on
/// their distance: `LatLonBox.minimumDistance` for nodes and entries (their 32-bit float boxes
/// are rounded outwards, so they contain the exact positions), the exact geodesic for stores.
/// Whatever is taken first from the queue is nearer than everything still in it, so stores come
/// out nearest first, and the walk stops once `limit` stores are out and nothing left can tie.
/// Each query reads a few nodes of ~50 entries however far the nearest store is, where growing
/// a search box from the centre read thousands of stores for a point between towns.
///
/// Node layout: `RTreeNode` (a leaf cell's id is `stores.pk`).
extension SpatiaLiteReader {
    public func nearestStores(to center: Coordinate, limit: Int, maxDistance: Distance?, kind: String?) throws -> [StoreHit] {
        guard limit > 0 else { return [] }
        let cap = maxDistance?.meters ?? .infinity
        return try read { db in
            let nodeStatement = RawStatement(try db.cachedStatement(sql: "SELECT data FROM idx_stores_geom_node WHERE nodeno = ?1"))
            let position = RawStatement(try db.cachedStatement(
                sql: "SELECT lat, lon FROM stores WHERE pk = ?1" + (kind == nil ? "" : " AND kind = ?2")))
            let row = RawStatement(try db.cachedStatement(sql: "SELECT \(StoredRows.storeColumns) FROM stores AS s WHERE s.pk = ?1"))
            defer { nodeStatement.reset(); position.reset(); row.reset() }

            var queue = SearchQueue()
            queue.push(.init(distance: 0, id: 1, level: SearchQueue.Item.rootLevel))
            var found: [(distance: Double, pk: Int64)] = []
            while let item = queue.pop() {
                if item.distance > cap { break }
                if found.count >= limit && item.distance > found[limit - 1].distance { break }  // nothing left can tie
                switch item.level {
                case SearchQueue.Item.store:
                    found.append((item.distance, item.id))
                case SearchQueue.Item.entry:
                    position.reset()
                    position.bind(1, item.id)
                    if let kind { position.bind(2, kind) }
                    if try position.step(db) {
                        let d = Geodesic.distance(
                            latitude1: center.latitude, longitude1: center.longitude,
                            latitude2: position.double(0), longitude2: position.double(1))
                        queue.push(.init(distance: d, id: item.id, level: SearchQueue.Item.store))
                    }
                default:
                    nodeStatement.reset()
                    nodeStatement.bind(1, item.id)
                    guard try nodeStatement.step(db) else { throw StoreError.corruptSpatialIndex(table: "stores", node: item.id) }
                    try nodeStatement.withBlob(0) { node in
                        guard RTreeNode.isWhole(node) else { throw StoreError.corruptSpatialIndex(table: "stores", node: item.id) }
                        let level = item.level == SearchQueue.Item.rootLevel ? RTreeNode.depth(node) : Int(item.level)
                        for e in 0..<RTreeNode.count(node) {
                            let cell = RTreeNode.cell(e, of: node)
                            let box = LatLonBox(
                                south: Double(cell.ymin), west: Double(cell.xmin), north: Double(cell.ymax), east: Double(cell.xmax))
                            queue.push(.init(
                                distance: box.minimumDistance(from: center), id: cell.id,
                                level: level == 0 ? SearchQueue.Item.entry : Int16(level - 1)))
                        }
                    }
                }
            }
            // The winners plus any store tying with the last of them; ties go by id.
            let hits = try found.map { hit in
                row.reset()
                row.bind(1, hit.pk)
                _ = try row.step(db)
                return StoreHit(store: StoredRows.decodeStore(row), distanceMeters: hit.distance)
            }
            return Array(hits.sorted { ($0.distanceMeters, $0.store.id) < ($1.distanceMeters, $1.store.id) }.prefix(limit))
        }
    }

    /// The same walk without a count: it stops at the first queue item beyond the radius, so it
    /// reads the index around the circle only, however many stores are in it.
    public func stores(within radius: Distance, of center: Coordinate, kind: String?) throws -> [StoreHit] {
        try nearestStores(to: center, limit: .max, maxDistance: radius, kind: kind)
    }
}

/// A binary min-heap of search items by distance.
struct SearchQueue {
    struct Item {
        /// `level` ≥ 0: an R*Tree node at that height (0 = leaf node); or one of these.
        static let rootLevel: Int16 = -1, entry: Int16 = -2, store: Int16 = -3
        var distance: Double
        var id: Int64
        var level: Int16
    }

    private var items: [Item] = []

    mutating func push(_ item: Item) {
        items.append(item)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].distance < items[parent].distance else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> Item? {
        guard let top = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < items.count && items[left].distance < items[smallest].distance { smallest = left }
                if right < items.count && items[right].distance < items[smallest].distance { smallest = right }
                if smallest == parent { break }
                items.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return top
    }
}
