import GeoSpend
import Logging

/// The file rewrite that expense deletions over HTTP owe, run once for every deletion of a few
/// seconds. A `VACUUM` per `DELETE` rewrote the whole file each time (2–3 s on 282 MB) and held
/// every writer meanwhile; the row itself is zeroed at once (`DeletionRewrite.batched`), and
/// what only a rewrite removes — a stale copy of the row left in a page's unused space, about
/// one deletion in two hundred — is gone within `delay` (docs/RELIABILITY.md § 9.8).
///
/// A rewrite owed when the service starts (a deletion before a kill) runs `delay` after the
/// start; one owed when it stops runs before it exits (`finish`).
public actor BatchedRewrite {
    let delay: Duration
    private let store: any ExpenseEditing
    private let logger: Logger
    private var scheduled: Task<Void, Never>?
    /// How many rewrites ran (tests: one for a burst of deletions).
    public private(set) var runs = 0

    public init(store: any ExpenseEditing, delay: Duration = .seconds(10), logger: Logger = Logger(label: "geospend")) {
        self.store = store
        self.delay = delay
        self.logger = logger
    }

    /// A deletion committed: a rewrite runs within `delay`, for it and every one after it until then.
    public func deletionCommitted() {
        guard scheduled == nil else { return }
        scheduled = Task { [delay] in
            try? await Task.sleep(for: delay)
            await self.run()
        }
    }

    /// Schedules the rewrite a deletion before this start still owes (a killed service, `--no-vacuum`).
    public func start() async {
        do {
            if try await store.rewriteOwed() { deletionCommitted() }
        } catch {
            logger.error("could not tell whether a rewrite after deletions is owed: \(error)")
        }
    }

    /// Runs a rewrite still owed, now: when the service stops.
    public func finish() async {
        guard let task = scheduled else { return }
        task.cancel()  // ends the wait; the rewrite itself runs, in a task of its own
        await task.value
    }

    private func run() async {
        // Cleared first: a deletion committed while this rewrite runs schedules the next one.
        scheduled = nil
        do {
            // Its own task: `finish()` cancels the wait, and a cancelled caller's store call ends at once.
            let notes = try await Task { [store] in try await store.rewriteAfterDeletions() }.value
            runs += 1
            for note in notes { logger.notice("rewrite after deletions: \(note)") }
        } catch {
            // The flag stays set: the next deletion, the next start or `doctor --repair` tries again.
            logger.error("rewrite after deletions failed: \(error)")
        }
    }
}
