import GeoSpend
import PostgresNIO

/// A user's location history and the positions geotagging gives their expenses on PostgreSQL
/// (migration v8, `PostGISSchema.positions`), with the file's rules
/// (Sources/GeoSpendSpatiaLite/PositionStorage.swift): every statement names the user, each call
/// is one transaction (writes under the writers' lock), `geotagInput` one snapshot.
///
/// Round trips: an import sends its fixes with `COPY` (batches of `copyBatch` rows): straight
/// into `positions` when the user has none stored in the file's time span, else into a
/// temporary table, added with one `INSERT … SELECT … ON CONFLICT DO NOTHING` whose returned
/// rows are the ones added; `place` sends its placements the same way and updates them with one
/// `UPDATE … FROM`. So neither costs a round trip per row.
extension PostGISStore: PositionStore {
    /// Rows per `COPY` message: the buffer of one batch stays a few MiB.
    static let copyBatch = 65_536

    public func addLocationHistory(_ history: LocationHistory, userID: String) async throws -> PositionImportCount {
        let user = Identity.normalized(userID)
        let recorded = history.visits.filter { $0.source != nil }  // detected stays: found again from the fixes
        for v in recorded {
            if let column = CopyText.columnWithNUL(["place_name": v.placeName, "place_id": v.placeID]) {
                throw EditError.invalid(field: column, reason: "contains a NUL character (U+0000), which PostgreSQL cannot store; remove it")
            }
        }
        return try await editing { r in
            try Self.ensureUser(r, user)
            let positionsAdded = try Self.add(
                history.positions, to: "positions", user: user, r, span: ("t_ms", Self.span(history.positions.map(\.epochMilliseconds))),
                columns: [("t_ms", "bigint"), ("lat", "double precision"), ("lon", "double precision"), ("source", "text"), ("accuracy_m", "double precision")],
                sameKey: { a, b in
                    a.epochMilliseconds == b.epochMilliseconds && a.coordinate == b.coordinate && a.source == b.source
                }
            ) { text, p in
                text.integer(p.epochMilliseconds); text.double(p.coordinate.latitude); text.double(p.coordinate.longitude)
                text.text(p.source.rawValue); text.double(p.accuracyMeters)
            }
            let visitsAdded = try Self.add(
                recorded, to: "visits", user: user, r, span: ("start_ms", Self.span(recorded.map(\.startEpochMilliseconds))),
                columns: [
                    ("start_ms", "bigint"), ("end_ms", "bigint"), ("lat", "double precision"), ("lon", "double precision"), ("source", "text"),
                    ("radius_m", "double precision"), ("place_name", "text"), ("place_id", "text"), ("probability", "double precision"),
                ],
                sameKey: { a, b in
                    (a.startEpochMilliseconds, a.endEpochMilliseconds, a.source) == (b.startEpochMilliseconds, b.endEpochMilliseconds, b.source)
                        && a.centre == b.centre
                }
            ) { text, v in
                text.integer(v.startEpochMilliseconds); text.integer(v.endEpochMilliseconds); text.double(v.centre.latitude)
                text.double(v.centre.longitude); text.text(v.source?.rawValue); text.double(v.radiusMeters); text.text(v.placeName)
                text.text(v.placeID); text.double(v.probability)
            }
            return PositionImportCount(
                positionsAdded: positionsAdded, positionsUnchanged: history.positions.count - positionsAdded,
                visitsAdded: visitsAdded, visitsUnchanged: recorded.count - visitsAdded)
        }
    }

    /// Adds `rows` to `table` (whose key is the user and the columns `sameKey` compares) and
    /// returns how many were new. `rows` come sorted by that key, as `LocationHistory` keeps
    /// them, so rows of one key are neighbours: the first of them is sent and the others count
    /// as unchanged, as on the file, whose row-by-row insert keeps the first. So the rows sent
    /// never conflict among themselves and their order does not matter to the outcome.
    ///
    /// `span` is the key's first column and the range of its values in `rows`. When the user has
    /// no row stored in that span, none can equal a row sent (writers run one at a time), and
    /// the rows go by `COPY` straight into `table`: a file's first import. Otherwise by `COPY`
    /// into a temporary table, then into `table` with one `INSERT … ON CONFLICT DO NOTHING`, whose
    /// returned rows are the added ones. Measured on 1M fixes (docs/POSTGIS.md § Location
    /// history): the straight `COPY` takes about a third of the two steps' time.
    static func add<Row>(
        _ rows: [Row], to table: String, user: String, _ r: PostGISReader, span: (column: String, range: ClosedRange<Int64>?),
        columns: [(name: String, type: String)], sameKey: (Row, Row) -> Bool, encode: (inout CopyText, Row) -> Void
    ) throws -> Int {
        guard !rows.isEmpty, let range = span.range else { return 0 }
        let names = columns.map(\.name)
        let isNeighbour = { (i: Int) in i > 0 && sameKey(rows[i - 1], rows[i]) }
        var stored = PostgresQuery(unsafeSQL: "SELECT EXISTS (SELECT 1 FROM \(table) WHERE user_id = $1 AND \(span.column) BETWEEN $2 AND $3)")
        stored.binds.append(user)
        stored.binds.append(range.lowerBound)
        stored.binds.append(range.upperBound)
        if try !r.rows(stored)[0].decode(Bool.self) {
            var sent = 0
            try copy(rows, into: table, ["user_id"] + names, r, skipping: isNeighbour) { text, _, row in
                text.text(user)
                encode(&text, row)
                sent += 1
            }
            return sent
        }
        _ = try r.rows(PostgresQuery(unsafeSQL: """
            CREATE TEMPORARY TABLE \(table)_in (\(columns.map { "\($0.name) \($0.type)" }.joined(separator: ", "))) ON COMMIT DROP
            """))
        try copy(rows, into: "\(table)_in", names, r, skipping: isNeighbour) { text, _, row in encode(&text, row) }
        let list = names.joined(separator: ", ")
        var insert = PostgresQuery(unsafeSQL: """
            WITH added AS (
                INSERT INTO \(table) (user_id, \(list)) SELECT $1, \(list) FROM \(table)_in ON CONFLICT DO NOTHING RETURNING 1)
            SELECT count(*) FROM added
            """)
        insert.binds.append(user)
        return Int(try r.rows(insert)[0].decode(Int64.self))
    }

    /// The smallest and largest of `values`; nil for none.
    static func span(_ values: [Int64]) -> ClosedRange<Int64>? {
        guard let low = values.min(), let high = values.max() else { return nil }
        return low...high
    }

    /// Sends `rows` into `table` with one `COPY` per `copyBatch` rows, but those at the indexes
    /// `skipping` names; `encode` writes one row's fields (its first argument the row's index).
    private static func copy<Row>(
        _ rows: [Row], into table: String, _ columns: [String], _ r: PostGISReader, skipping: (Int) -> Bool = { _ in false },
        _ encode: (inout CopyText, Int, Row) -> Void
    ) throws {
        var start = 0
        while start < rows.count {
            let end = min(start + copyBatch, rows.count)
            var text = CopyText()
            for i in start..<end where !skipping(i) {
                encode(&text, i, rows[i])
                text.endRow()
            }
            try r.copy(table, columns, text)
            start = end
        }
    }

    /// The columns `position(_:)` decodes, in its order.
    static let positionColumns = "t_ms, lat, lon, accuracy_m, source"
    /// The columns `visit(_:)` decodes, in its order.
    static let visitColumns = "start_ms, end_ms, lat, lon, radius_m, place_name, place_id, probability, source"

    /// A row of `positionColumns`; nil for a source this GeoSpend does not know (skipped, as on the file).
    static func position(_ row: PostgresRow) throws -> Position? {
        let (t, lat, lon, accuracy, source) = try row.decode((Int64, Double, Double, Double?, String).self)
        guard let format = LocationHistoryFormat(rawValue: source) else { return nil }
        return Position(epochMilliseconds: t, coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon), accuracyMeters: accuracy, source: format)
    }

    /// A row of `visitColumns`.
    static func visit(_ row: PostgresRow) throws -> Visit {
        let (start, end, lat, lon, radius, name, placeID, probability, source) = try row.decode(
            (Int64, Int64, Double, Double, Double?, String?, String?, Double?, String).self)
        return Visit(
            startEpochMilliseconds: start, endEpochMilliseconds: end, centre: Coordinate(uncheckedLatitude: lat, longitude: lon),
            radiusMeters: radius, placeName: name, placeID: placeID, probability: probability, source: LocationHistoryFormat(rawValue: source))
    }

    /// The user's fixes with instants in `[from, to)` and the recorded visits overlapping it, in
    /// the key's order (`LocationHistory` sorts them again).
    static func history(_ r: PostGISReader, user: String, from: Int64?, to: Int64?) throws -> LocationHistory {
        let lower = from ?? .min, upper = to ?? .max
        let positions = try r.rows("""
            SELECT \(unescaped: positionColumns) FROM positions
            WHERE user_id = \(user) AND t_ms >= \(lower) AND t_ms < \(upper) ORDER BY t_ms, lat, lon, source
            """).compactMap(position)
        let visits = try r.rows("""
            SELECT \(unescaped: visitColumns) FROM visits
            WHERE user_id = \(user) AND end_ms > \(lower) AND start_ms < \(upper) ORDER BY start_ms, end_ms, lat, lon, source
            """).map(visit)
        return LocationHistory(positions: positions, visits: visits)
    }

    /// Deletes in one transaction, then `VACUUM`s both tables (as `expenses delete` does), so
    /// the rows' space is reusable; what PostgreSQL keeps beyond that (WAL, archives, replicas,
    /// backups) a client cannot erase (`PostGISUserData`).
    public func deletePositions(userID: String, before: Int64?) async throws -> PositionDeletion {
        let user = Identity.normalized(userID)
        let upper = before ?? .max
        let deletion = try await editing { r in
            let positions = try r.rows("""
                WITH gone AS (DELETE FROM positions WHERE user_id = \(user) AND t_ms < \(upper) RETURNING 1) SELECT count(*) FROM gone
                """)[0].decode(Int64.self)
            let visits = try r.rows("""
                WITH gone AS (DELETE FROM visits WHERE user_id = \(user) AND start_ms < \(upper) RETURNING 1) SELECT count(*) FROM gone
                """)[0].decode(Int64.self)
            return PositionDeletion(positions: Int(positions), visits: Int(visits))
        }
        if deletion.positions + deletion.visits > 0 { _ = try await vacuum(["positions", "visits"], true) }
        return deletion
    }

    /// One `UPDATE … FROM` over the placements sent with `COPY`. The first placement of an
    /// expense decides it; a later one finds it placed (false), as on the file, which places
    /// them in order.
    public func place(_ placements: [ExpensePlacement], userID: String, events: [NewNotificationEvent]) async throws -> [Bool] {
        let user = Identity.normalized(userID)
        var seen = Set<String>()
        // An id holding a NUL names no stored expense (PostgreSQL's text cannot hold one).
        let firsts = placements.indices.filter {
            !placements[$0].expenseID.utf8.contains(0) && seen.insert(placements[$0].expenseID).inserted
        }
        guard !firsts.isEmpty else {
            if !events.isEmpty { _ = try await editing { r in try Self.raise(r, events) } }
            return placements.map { _ in false }
        }
        let placed = try await editing { r in
            _ = try r.rows("""
                CREATE TEMPORARY TABLE placements_in (
                    n bigint, id text COLLATE "C", lat double precision, lon double precision, accuracy_m double precision,
                    source text COLLATE "C", confidence double precision, store_id text COLLATE "C", inferred boolean
                ) ON COMMIT DROP
                """)
            let columns = ["n", "id", "lat", "lon", "accuracy_m", "source", "confidence", "store_id", "inferred"]
            try Self.copy(firsts, into: "placements_in", columns, r) { text, _, i in
                let p = placements[i]
                text.integer(Int64(i)); text.text(p.expenseID); text.double(p.location.coordinate.latitude)
                text.double(p.location.coordinate.longitude); text.double(p.location.accuracyMeters); text.text(p.source.rawValue)
                text.double(p.confidence); text.text(p.storeID.flatMap { $0.utf8.contains(0) ? nil : $0 })
                text.boolean(p.source.isInferred)
            }
            // The store is linked only where the expense has none and the store exists; the
            // content hash stays the import's (a re-import of the statement is still a no-op).
            let rows = try r.rows("""
                WITH placed AS (
                    UPDATE expenses AS e SET lat = p.lat, lon = p.lon, accuracy_m = p.accuracy_m, position_source = p.source,
                        position_confidence = p.confidence,
                        store_id = CASE WHEN e.store_id IS NULL AND s.id IS NOT NULL THEN s.id ELSE e.store_id END,
                        store_inferred = CASE WHEN e.store_id IS NULL AND s.id IS NOT NULL THEN p.inferred ELSE e.store_inferred END
                    FROM placements_in AS p LEFT JOIN stores AS s ON s.id = p.store_id
                    WHERE e.user_id = \(user) AND e.id = p.id AND e.lat IS NULL
                    RETURNING p.n AS n, e.local_date AS local_date, e.kind = 'expense' AS is_expense)
                SELECT n, local_date, is_expense FROM placed
                """).map { try $0.decode((Int64, String, Bool).self) }
            // An expense placed in a zone budget's area can cross it (issue 39), in this transaction.
            var touched = TouchedDays()
            for (_, day, isExpense) in rows where isExpense { touched.add(userID: user, localDate: day) }
            try Self.raiseBudgetEvents(r, touched: touched)
            _ = try Self.raise(r, events)
            return Set(rows.map { Int($0.0) })
        }
        return placements.indices.map { placed.contains($0) }
    }

    public func unplace(userID: String, expenseID: String?) async throws -> [String] {
        let user = Identity.normalized(userID)
        let inferred = PositionSource.allCases.filter(\.isInferred).map(\.rawValue)
        return try await editing { r in
            try r.rows("""
                WITH restored AS (
                    UPDATE expenses SET lat = NULL, lon = NULL, accuracy_m = NULL, position_source = NULL, position_confidence = NULL,
                        store_id = CASE WHEN store_inferred THEN NULL ELSE store_id END, store_inferred = false
                    WHERE user_id = \(user) AND (\(expenseID)::text IS NULL OR id = \(expenseID)) AND position_source = ANY(\(inferred))
                    RETURNING id)
                SELECT id FROM restored ORDER BY id COLLATE "C"
                """).map { try $0.decode(String.self) }
        }
    }
}

/// The history reads of a read scope, on its connection and snapshot.
extension PostGISReader: PositionReader {
    public func locationHistory(userID: String, from: Int64?, to: Int64?) throws -> LocationHistory {
        try PostGISStore.history(self, user: Identity.normalized(userID), from: from, to: to)
    }

    public func geotagInput(userID: String, from: Int64?, to: Int64?) throws -> GeotagInput {
        let user = Identity.normalized(userID)
        let history = try PostGISStore.history(self, user: user, from: from, to: to)
        let expenses = try rows("""
            SELECT \(unescaped: PostGISRows.expenseColumns) FROM expenses AS e \(unescaped: PostGISRows.categoryJoin)
            WHERE e.user_id = \(user) ORDER BY e.id
            """).map { try PostGISRows.expense($0.makeRandomAccess()) }
        return GeotagInput(history: history, expenses: expenses)
    }
}
