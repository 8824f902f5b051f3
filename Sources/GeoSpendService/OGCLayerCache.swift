import Foundation
import GeoSpend
import Synchronization

/// OGC collections already built, so that paging through a layer does not build the whole layer
/// again for every page, and a layer that takes longer than the time limit is still finished
/// and kept for the client's next try (issue 35, item 24: GDAL asked `density/items?limit=10`
/// of a user with expenses on five continents and got nothing in 120 s).
///
/// - One build per key at a time: requests for a layer being built wait for that build, with
///   their own time limit; a request that gives up (503) leaves the build running, and its
///   answer is kept.
/// - Fresh as `TileCache`: the store's change version is read first, and a version change drops
///   everything. A layer is kept under the version read before it was built.
/// - Bounded: `maxLayers` layers, the oldest dropped first.
/// - Without change watching (PostgreSQL) nothing is kept: every page builds its layer.
public final class OGCLayerCache: Sendable {
    struct Key: Hashable, Sendable {
        let user: String
        let collection: OGCCollection
        let from: Timestamp?
        let to: Timestamp?
    }

    private struct State {
        var version: Int64?
        var layers: [Key: Build] = [:]
        var order: [Key] = []
    }

    private let watcher: (any ChangeWatcher)?
    private let state = Mutex(State())
    private let counts = Mutex((started: 0, finished: 0))
    static let maxLayers = 16

    public init(store: any Backend) {
        watcher = try? (store as? any ChangeWatching)?.changeWatcher()
    }

    /// Layers whose build started, and ended, so far (tests: a page must not build again).
    public var builds: (started: Int, finished: Int) { counts.withLock { $0 } }

    /// The layer for `key`: kept, being built (waited for), or built now by `make`.
    func features(_ key: Key, make: @escaping @Sendable () async throws -> [OGCFeature]) async throws -> [OGCFeature] {
        guard let watcher else { return try await make() }
        let version = try await watcher.version()
        let build: Build = state.withLock { s in
            if s.version != version { s = State(version: version) }
            if let running = s.layers[key] { return running }
            counts.withLock { $0.started += 1 }
            let build = Build { [self] in
                defer { counts.withLock { $0.finished += 1 } }
                return try await make()
            }
            s.layers[key] = build
            s.order.append(key)
            if s.order.count > Self.maxLayers { s.layers[s.order.removeFirst()] = nil }
            return build
        }
        do {
            return try await build.value()
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // A failed build is not kept: the next request tries again.
            state.withLock { s in if s.layers[key] === build { s.layers[key] = nil } }
            throw error
        }
    }
}

/// A layer being built in a task of its own, which no single request's cancellation stops;
/// each waiter can give up on its own.
final class Build: Sendable {
    private enum Phase {
        case running([UInt64: CheckedContinuation<[OGCFeature], any Error>])
        case done(Result<[OGCFeature], any Error>)
    }
    private let phase = Mutex(Phase.running([:]))
    private let nextWaiter = Atomic<UInt64>(0)

    init(_ make: @escaping @Sendable () async throws -> [OGCFeature]) {
        Task.detached { [self] in
            let result = await Result(awaiting: make)
            let waiters: [CheckedContinuation<[OGCFeature], any Error>] = phase.withLock { p in
                guard case .running(let waiting) = p else { return [] }
                p = .done(result)
                return Array(waiting.values)
            }
            for w in waiters { w.resume(with: result) }
        }
    }

    /// The layer once built; `CancellationError` at once when the waiting task is cancelled.
    func value() async throws -> [OGCFeature] {
        let id = nextWaiter.wrappingAdd(1, ordering: .relaxed).newValue
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready: Result<[OGCFeature], any Error>? = phase.withLock { p in
                    switch p {
                    case .done(let result): return result
                    case .running(var waiting):
                        if Task.isCancelled { return .failure(CancellationError()) }
                        waiting[id] = continuation
                        p = .running(waiting)
                        return nil
                    }
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let gone: CheckedContinuation<[OGCFeature], any Error>? = phase.withLock { p in
                guard case .running(var waiting) = p, let c = waiting.removeValue(forKey: id) else { return nil }
                p = .running(waiting)
                return c
            }
            gone?.resume(throwing: CancellationError())
        }
    }
}

extension Result where Failure == any Error {
    init(awaiting body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
