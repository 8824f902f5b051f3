/// A store that can say cheaply whether anything was committed since it was last asked, by this
/// process or another (a CLI import into the same file while the service runs). For caches of
/// answers derived from the data (the service's vector tiles): a cache keeps its entries while
/// the version stays the same and drops them all when it changes.
public protocol ChangeWatching: Sendable {
    /// A watcher of its own (one connection for SpatiaLite), asked before each cached read.
    func changeWatcher() throws -> any ChangeWatcher
}

public protocol ChangeWatcher: Sendable {
    /// A number that differs from the previous call's whenever a transaction was committed in
    /// between. A read scope begun after this call sees at least the state it stands for, so an
    /// answer computed then may be kept under it (at worst it is newer, and dropped at the next
    /// change).
    func version() async throws -> Int64
}
