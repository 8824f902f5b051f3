import Foundation
import GeoSpend

/// The bulk writer's map-rollup sums, added on a thread of their own while the writer inserts.
/// Summing on the write thread (`MapRollup.Changes.add`: six H3 cells and a dictionary of up to
/// 2M keys per row) was 17 % of a 1M import's samples there, and the write thread is the one
/// the import waits for (perf, session 15); the other core had only the parser to run.
///
/// The writer hands each inserted positioned row over (`add`), 4,096 at a time; the sums are
/// added on a serial queue in the order handed over. Before storing, the writer asks for them
/// sorted in the table's key order (`startSorting`, then `takeSorted`, which waits): the sort
/// too runs on the queue, while the writer builds indexes. Integer sums, so the order they are
/// added in changes nothing: the rows stored are the same as when the writer summed them itself.
final class RollupSummer: @unchecked Sendable {
    /// What the rollups need of an inserted row.
    private struct Point: Sendable {
        let userID: String, kind: String, currency: String
        let latitude: Double, longitude: Double
        let amountMinor: Int64
    }

    private static let batchSize = 4096
    private let queue = DispatchQueue(label: "geospend.rollup-sums")
    // Touched on `queue` only.
    private var changes = MapRollup.Changes()
    private var sorted: MapRollup.Changes.Sorted?
    // The writer's side only.
    private var batch: [Point] = []
    private var sorting = false
    /// Keys held after the last batch summed (the writer stores them past a bound). It lags
    /// behind by the batches still queued: the bound is a memory bound, not an exact one.
    private var held = 0
    private let heldLock = NSLock()

    init() { batch.reserveCapacity(Self.batchSize) }

    /// Keys held, as of the last batch summed.
    var count: Int { heldLock.withLock { held } }

    /// Counts an inserted expense in (nothing when it has no position).
    func add(_ expense: Expense) {
        guard let c = expense.location?.coordinate else { return }
        batch.append(Point(
            userID: expense.userID, kind: expense.kind.rawValue, currency: expense.amount.currency.code,
            latitude: c.latitude, longitude: c.longitude, amountMinor: expense.amount.minorUnits))
        if batch.count == Self.batchSize { handOver() }
    }

    private func handOver() {
        guard !batch.isEmpty else { return }
        let points = batch
        batch = []
        batch.reserveCapacity(Self.batchSize)
        queue.async {
            for p in points {
                self.changes.add(
                    userID: p.userID, kind: p.kind, currency: p.currency, latitude: p.latitude, longitude: p.longitude,
                    amountMinor: p.amountMinor, sign: 1)
            }
            let count = self.changes.count
            self.heldLock.withLock { self.held = count }
        }
    }

    /// Waits until every row handed over is summed (tests: `count` is then exact).
    func waitUntilSummed() {
        handOver()
        queue.sync {}
    }

    /// Sorts the sums of every row added so far, on the queue; the writer goes on meanwhile.
    func startSorting() {
        guard !sorting else { return }
        handOver()
        sorting = true
        queue.async {
            self.sorted = self.changes.sorted()
            self.changes = MapRollup.Changes()
            self.heldLock.withLock { self.held = 0 }
        }
    }

    /// The sums of every row added so far in key order, once summed and sorted; the summer is
    /// empty after.
    func takeSorted() -> MapRollup.Changes.Sorted {
        startSorting()
        sorting = false
        return queue.sync {
            defer { sorted = nil }
            return sorted!
        }
    }
}
