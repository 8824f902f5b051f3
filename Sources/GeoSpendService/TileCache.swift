import Foundation
import GeoSpend

/// Vector tiles already answered, so a map's tiles are not each prepared from the whole layer
/// again (`VectorTileSet.tile` reads every expense of the selection per call).
///
/// - **Key:** whose tiles (the token's user, or every user's for an admin's `all-users` tiles,
///   which are the same for every admin), the layer, z/x/y and the request's query (the CLI's
///   options), so one user's tile is never another's answer.
/// - **Fresh:** before each lookup the store's change version is read (SQLite's `data_version`,
///   which also sees another process's commits); when it moved, everything is dropped. A tile
///   is kept under the version read before its read scope began, never a later one.
///   Coarse (any commit drops every user's tiles) but simple, and never stale.
/// - **Bounded:** at most `maxBytes` of tiles and keys; the oldest entries go first.
/// - PostgreSQL: no cache (the store is not `ChangeWatching`): a cheap, race-free "did anything
///   commit" is not at hand there.
public final class TileCache: @unchecked Sendable {  // its state only under `lock`
    struct Key: Hashable, Sendable {
        let owner: String?  // nil: every user's (all-users)
        let layer: TileLayerKind
        let tile: TileID
        let query: String
    }

    private struct State {
        var version: Int64?
        var entries: [Key: [UInt8]?] = [:]
        var order: [Key] = []  // insertion order, the live part from `start`
        var start = 0
        var bytes = 0
        var hits = 0
    }

    private let watcher: any ChangeWatcher
    private let maxBytes: Int
    private let lock = NSLock()
    private var state = State()

    /// A cache over `store`'s tiles, or nil when the store cannot watch for changes or `maxBytes` is 0.
    public init?(store: any ExpenseStore, maxBytes: Int) throws {
        guard maxBytes > 0, let watching = store as? any ChangeWatching else { return nil }
        watcher = try watching.changeWatcher()
        self.maxBytes = maxBytes
    }

    /// Answers served from the cache so far.
    public var hits: Int { lock.withLock { state.hits } }

    /// The tile for `key`: from the cache if the data has not changed since it was kept,
    /// otherwise made by `make` (nil: an empty tile) and kept.
    func tile(_ key: Key, make: () async throws -> [UInt8]?) async throws -> [UInt8]? {
        let version = try await watcher.version()
        let cached: [UInt8]?? = lock.withLock {
            if state.version != version { state = State(version: version, hits: state.hits) }
            guard let entry = state.entries[key] else { return .none }
            state.hits += 1
            return .some(entry)
        }
        if let cached { return cached }
        let bytes = try await make()
        lock.withLock { keep(bytes, for: key, madeAt: version) }
        return bytes
    }

    /// Keeps a tile unless the cache was dropped meanwhile (it may be stale then); the oldest
    /// entries go while the bound is passed. Under `lock`.
    private func keep(_ bytes: [UInt8]?, for key: Key, madeAt version: Int64) {
        guard state.version == version, state.entries[key] == nil else { return }
        state.entries[key] = bytes
        state.order.append(key)
        state.bytes += Self.size(key, bytes)
        while state.bytes > maxBytes, state.start < state.order.count {
            let old = state.order[state.start]
            if let entry = state.entries.removeValue(forKey: old) { state.bytes -= Self.size(old, entry) }
            state.start += 1
        }
        if state.start * 2 > state.order.count {  // the order list stays within twice the entries
            state.order.removeFirst(state.start)
            state.start = 0
        }
    }

    /// What an entry costs: its bytes, its key's text, and ~100 bytes of bookkeeping.
    private static func size(_ key: Key, _ bytes: [UInt8]?) -> Int {
        (bytes?.count ?? 0) + key.query.utf8.count + (key.owner?.utf8.count ?? 0) + 100
    }
}
