/// The `geotag.review_waiting` event (issue 39): a geotag run that writes (`geotag`, `POST
/// /api/v1/geotag?apply=true`, `import expenses --geotag`) left expenses ambiguous — several
/// stores fit, and `geotag review` / `geotag confirm` wait for the user. One event per run, in
/// the transaction of the run's placements (`PositionStore.place`).
///
/// Location history is the most private data a user gives GeoSpend, and a webhook is a copy
/// sent elsewhere: the payload holds counts and expense ids, never a position, a store
/// candidate or a score (those stay behind `geotag review`, which the token gates).
///
/// ```json
/// {"waiting":2,"expense_ids":["e7","e9"],"message":"2 expenses wait for your review (geospend geotag review)"}
/// ```
public enum GeotagReviewEvent {
    /// Ids in a payload at most: the count says how many more there are.
    public static let maxIDs = 100

    /// The event for `report`'s ambiguous expenses of `userID`; nil when none wait.
    ///
    /// Its key is the set of waiting ids: a run from cron that finds the same expenses still
    /// waiting does not notify again, one that finds a new one does.
    /// - Complexity: O(n log n) in the ambiguous expenses.
    public static func event(_ report: GeotagReport, userID: String) -> NewNotificationEvent? {
        guard !report.ambiguous.isEmpty else { return nil }
        let ids = Array(Set(report.ambiguous.map(\.id))).sorted()
        // Length-prefixed, so no id's bytes can imitate a boundary between two.
        var hash = FNV1a.offsetBasis
        for id in ids { hash = FNV1a.hash(Array("\(id.utf8.count):\(id)".utf8), from: hash) }
        let count = Int64(ids.count)
        let noun = count == 1 ? "expense waits" : "expenses wait"
        return NewNotificationEvent(
            userID: userID, type: NotificationType.geotagReviewWaiting, key: "geotag_review:\(count):\(String(hash, radix: 16))",
            payload: .object([
                ("waiting", .integer(count)), ("expense_ids", .array(ids.prefix(maxIDs).map(JSONOutput.string))),
                ("message", .string("\(count) \(noun) for your review (geospend geotag review)")),
            ]))
    }
}
