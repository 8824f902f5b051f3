import Foundation

/// One `geospend geotag` run (or `POST /api/v1/geotag`): reads a user's history and expenses
/// from the store, decides with `Geotagger`, and — unless it is a dry run — writes the
/// placements with their provenance. The same for the CLI and the service.
///
/// ```swift
/// let run = GeotagRun(userID: "ann", timeZone: TimeZone(identifier: "Europe/Helsinki")!)
/// let report = try await run.run(on: store)   // placed, ambiguous, unplaced
/// ```
public struct GeotagRun: Sendable {
    public var userID: String
    /// Expenses from `from` on and before `to` (nil: unbounded), as `ExpenseFilter` reads a
    /// window: a bare date bound compares local days (`to` inclusive), an instant compares
    /// instants (`to` exclusive).
    public var from: Timestamp?
    public var to: Timestamp?
    /// The user's zone: bare dates are local days in it.
    public var timeZone: TimeZone
    /// Placements below this confidence are not written: a store candidate becomes ambiguous,
    /// a spot alone unplaced (`GeotagReport.filtered`).
    public var minimumConfidence: Double = 0
    /// Decide and report, write nothing.
    public var dryRun = false

    /// How far before the first expense the history is read: a date-only booking looks at the
    /// day before (card payments book late), and a stay may start the evening before.
    public static let historyLeadMilliseconds: Int64 = 2 * 86_400_000
    /// And after the last: a day, for stays that end the next morning.
    public static let historyTrailMilliseconds: Int64 = 86_400_000

    public init(userID: String, from: Timestamp? = nil, to: Timestamp? = nil, timeZone: TimeZone, minimumConfidence: Double = 0, dryRun: Bool = false) {
        self.userID = userID
        self.from = from
        self.to = to
        self.timeZone = timeZone
        self.minimumConfidence = minimumConfidence
        self.dryRun = dryRun
    }

    /// Runs it. Placements the store refused because the expense got a position meanwhile are
    /// left out of the report's `placed`. A run that writes and leaves expenses ambiguous raises
    /// `geotag.review_waiting` (`GeotagReviewEvent`) in the placements' transaction.
    public func run(on store: some ExpenseStore & PositionStore) async throws -> GeotagReport {
        // A bare date's instant is its midnight in UTC: a day more on each side covers every zone.
        let input = try await store.geotagInput(
            userID: userID, from: from.map { $0.epochMilliseconds &- Self.historyLeadMilliseconds &- 86_400_000 },
            to: to.map { $0.epochMilliseconds &+ Self.historyTrailMilliseconds &+ 2 * 86_400_000 })
        let candidates = GeotagExpense.prepare(input.expenses).filter { inWindow($0.occurredAt) }
        guard !candidates.isEmpty else { return GeotagReport([]) }
        let stores = try await store.read { try $0.allStores(kind: nil) }
        var report = Geotagger(history: input.history, stores: stores, timeZone: timeZone).geotag(candidates)
            .filtered(minimumConfidence: minimumConfidence)
        // Expenses left ambiguous wait for `geotag review`: their event commits with the placements.
        let waiting = dryRun ? nil : GeotagReviewEvent.event(report, userID: userID)
        guard !dryRun, !report.placed.isEmpty || waiting != nil else { return report }
        let written = try await store.place(report.placed.map(ExpensePlacement.init), userID: userID, events: waiting.map { [$0] } ?? [])
        report.placed = zip(report.placed, written).filter(\.1).map(\.0)
        return report
    }

    /// Whether an instant or day is in the window, by `ExpenseFilter`'s rules.
    func inWindow(_ t: Timestamp) -> Bool {
        if let from {
            if from.isDateOnly ? t.localDate < from.localDate : t.epochMilliseconds < from.epochMilliseconds { return false }
        }
        if let to {
            if to.isDateOnly ? t.localDate > to.localDate : t.epochMilliseconds >= to.epochMilliseconds { return false }
        }
        return true
    }
}

extension GeotagReport {
    /// What `geotag review` shows: the undecided ones alone.
    public var forReview: GeotagReport {
        var r = self
        r.placed = []
        r.unplaced = []
        return r
    }
}

/// The JSON of a geotag run (issue 36): `{"placed": [...], "ambiguous": [...], "unplaced": [...]}`
/// with every field the issue names, plus `evidence` and `detail` in words, and `counts`.
public enum GeotagJSON {
    public static func report(_ r: GeotagReport, dryRun: Bool) -> JSONOutput {
        .object([
            ("dry_run", .bool(dryRun)),
            ("placed", .array(r.placed.map { p in
                .object([
                    ("id", .string(p.id)), ("lat", .degrees(p.coordinate.latitude)), ("lon", .degrees(p.coordinate.longitude)),
                    ("accuracy_m", .number(p.accuracyMeters, decimals: 1)), ("store_id", .text(p.storeID)),
                    ("confidence", .number(p.confidence, decimals: 3)), ("source", .string(p.source.rawValue)),
                    ("evidence", .string(p.evidence)),
                ])
            })),
            ("ambiguous", .array(r.ambiguous.map { a in
                .object([
                    ("id", .string(a.id)),
                    ("candidates", .array(a.candidates.map { c in
                        .object([
                            ("store_id", .string(c.storeID)), ("lat", .degrees(c.coordinate.latitude)),
                            ("lon", .degrees(c.coordinate.longitude)), ("score", .number(c.score, decimals: 3)),
                        ])
                    })),
                    ("evidence", .string(a.evidence)),
                ])
            })),
            ("unplaced", .array(r.unplaced.map { u in
                .object([("id", .string(u.id)), ("reason", .string(u.reason.rawValue)), ("detail", .string(u.detail))])
            })),
            ("counts", .object([
                ("placed", .integer(Int64(r.placed.count))), ("ambiguous", .integer(Int64(r.ambiguous.count))),
                ("unplaced", .integer(Int64(r.unplaced.count))),
            ])),
        ])
    }
}
