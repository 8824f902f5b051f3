import GeoSpend
import GRDB

extension ExpenseFilter {
    /// One user's rows, not narrowed to stores: what the rowid paths serve.
    var readsOneUser: Bool { userID != nil && storeIDs.isEmpty }
}

/// The spending rows behind insights, summaries, reports and the points layer: lean rows, bound
/// and decoded directly.
extension SpatiaLiteReader {
    /// Runs one cached statement on a pooled read connection and decodes every row.
    func fetchAll<T>(_ sql: String, bind: (RawStatement) -> Void = { _ in }, decode: (RawStatement) throws -> T) throws -> [T] {
        try read { db in
            let s = RawStatement(try db.cachedStatement(sql: sql))
            defer { s.reset() }
            s.reset()
            bind(s)
            var rows: [T] = []
            while try s.step(db) { rows.append(try decode(s)) }
            return rows
        }
    }

    public func forEachSpendingPointBatch(
        _ filter: ExpenseFilter, geotaggedOnly: Bool, _ body: ([SpendingPoint]) throws -> Void
    ) throws {
        try forEachSpendingPointBatch(filter, geotaggedOnly: geotaggedOnly, access: nil, body)
    }

    /// `access` nil: the one `spendingRowAccess` picks (tests force each, with a user for
    /// `.rowidRuns`).
    func forEachSpendingPointBatch(
        _ filter: ExpenseFilter, geotaggedOnly: Bool, access forced: SpendingRowAccess?, _ body: ([SpendingPoint]) throws -> Void
    ) throws {
        var decoder = SpendingPointDecoder(filter: filter)
        var batch = Batch<SpendingPoint>()
        try forEachSpendingRow(filter, geotaggedOnly: geotaggedOnly, access: forced) { s, lookup in
            try batch.add(decoder.point(s, lookup), to: body)
        }
        try batch.flush(to: body)
    }

    public func spendingColumns(_ filter: ExpenseFilter) throws -> SpendingColumns {
        try spendingColumns(filter, access: nil)
    }

    /// Each row's timestamp text and local date come with it (first and last visits need no
    /// lookup by id: two index seeks each, a fifth of insights' time per 100-expense user). One
    /// user's rows come from `expenses_user_time` alone, which holds every column read (v15):
    /// no probe chooses a path, no table seek per row. They stay in the index's order (instant,
    /// then the other columns it holds, id last): it depends on the user's rows alone, as rowid
    /// order does, and insights need no other (putting 100k rows back in rowid order was 8.7 % of
    /// a heavy user's instructions, callgrind). `access` nil: that path for one user,
    /// `spendingRowAccess`'s otherwise (tests force each).
    func spendingColumns(_ filter: ExpenseFilter, access forced: SpendingRowAccess?) throws -> SpendingColumns {
        try read { db in
            let access = try forced ?? (filter.readsOneUser ? .index : Self.spendingRowAccess(filter, db))
            var decoder = SpendingColumnsDecoder()
            guard let ranges = try Self.rowidRanges(filter, access: access, db) else {
                try Self.stepSpendingRows(filter, geotaggedOnly: false, access: access, forColumns: true, db) { try decoder.add($0, $1) }
                return decoder.columns
            }
            try Self.stepSpendingRows(filter, geotaggedOnly: false, inRowidRanges: ranges, forColumns: true, db) { try decoder.add($0, $1) }
            return decoder.columns
        }
    }

    /// Steps `spendingPointQuery` over every matching row in one read transaction, handing each
    /// to `body` with a way to look up category names on the same connection.
    private func forEachSpendingRow(
        _ filter: ExpenseFilter, geotaggedOnly: Bool, access forced: SpendingRowAccess?,
        _ body: (RawStatement, CategoryNameLookup) throws -> Void
    ) throws {
        try read { db in
            try Self.stepSpendingRows(filter, geotaggedOnly: geotaggedOnly, access: forced ?? Self.spendingRowAccess(filter, db), db, body)
        }
    }

    /// `forEachSpendingRow` on a connection already reading.
    private static func stepSpendingRows(
        _ filter: ExpenseFilter, geotaggedOnly: Bool, access: SpendingRowAccess, forColumns: Bool = false, _ db: Database,
        _ body: (RawStatement, CategoryNameLookup) throws -> Void
    ) throws {
        if access == .rowidRuns, let user = filter.userID {
            let runs = try SpatiaLiteStore.rowidRuns(of: user, within: OccurredWindow(filter), db)
            return try stepSpendingRows(filter, geotaggedOnly: geotaggedOnly, inRowidRanges: runs, forColumns: forColumns, db, body)
        }
        let (sql, arguments, _) = spendingPointQuery(filter, geotaggedOnly: geotaggedOnly, access: access, forColumns: forColumns)
        let s = RawStatement(try db.cachedStatement(sql: sql))
        let lookup = try CategoryNameLookup(db)
        defer { s.reset(); lookup.statement.reset() }
        s.reset()
        for apply in arguments { apply(s) }
        while try s.step(db) { try body(s, lookup) }
    }

    /// The matching rows within these ranges of rowids, range by range (the `.rowidRuns` form).
    static func stepSpendingRows(
        _ filter: ExpenseFilter, geotaggedOnly: Bool, inRowidRanges ranges: [ClosedRange<Int64>], forColumns: Bool = false,
        _ db: Database, _ body: (RawStatement, CategoryNameLookup) throws -> Void
    ) throws {
        let (sql, arguments, runBounds) = spendingPointQuery(filter, geotaggedOnly: geotaggedOnly, access: .rowidRuns, forColumns: forColumns)
        let s = RawStatement(try db.cachedStatement(sql: sql))
        let lookup = try CategoryNameLookup(db)
        defer { s.reset(); lookup.statement.reset() }
        s.reset()
        for apply in arguments { apply(s) }
        for range in ranges {
            s.rewind()  // the filter's bindings stay
            s.bind(runBounds, range.lowerBound)
            s.bind(runBounds + 1, range.upperBound)
            while try s.step(db) { try body(s, lookup) }
        }
    }

    /// The lowest and highest rowid of the table, as two subqueries: each reads one end of the
    /// B-tree, where `min(rowid), max(rowid)` in one SELECT scans every row (SQLite's min/max
    /// shortcut takes a lone aggregate); that scan was 15 ms for 100k rows.
    static let tableEndsSQL = "SELECT (SELECT min(rowid) FROM expenses), (SELECT max(rowid) FROM expenses)"

    /// The rowids to read one user's rows by, when the access path reads ranges of them: the
    /// user's runs, or the whole table's span. Nil for the index path and for all users.
    static func rowidRanges(_ filter: ExpenseFilter, access: SpendingRowAccess, _ db: Database) throws -> [ClosedRange<Int64>]? {
        guard filter.readsOneUser, let user = filter.userID else { return nil }
        switch access {
        case .index: return nil
        case .rowidRuns: return try SpatiaLiteStore.rowidRuns(of: user, within: OccurredWindow(filter), db)
        case .tableScan:
            let s = RawStatement(try db.cachedStatement(sql: tableEndsSQL))
            defer { s.reset() }
            s.reset()
            guard try s.step(db), !s.isNull(0) else { return [] }
            return [s.int64(0)...s.int64(1)]
        }
    }

    /// How `forEachSpendingPoint` reaches its rows.
    enum SpendingRowAccess {
        /// The whole table in order: for all users (reading it beats hopping to it from the
        /// partial (user_id, lat, …) index row by row: 65 vs 84 ms per 100k rows measured), or
        /// for a user who holds most of it.
        case tableScan
        /// Through an index SQLite picks: a store filter's, or one user's `expenses_user_time`
        /// entries, which hold every column but the merchant (v15): a table seek per row only
        /// for the points layer's merchant.
        case index
        /// By ranges of rowids (`rowidRuns`): a user whose rows lie close together, read almost
        /// as a scan.
        case rowidRuns
    }

    /// Two probes of a few dozen rows each (RowidRuns.swift) choose a user's access path.
    static func spendingRowAccess(_ filter: ExpenseFilter, _ db: Database) throws -> SpendingRowAccess {
        guard filter.storeIDs.isEmpty else { return .index }
        guard let user = filter.userID else { return .tableScan }
        let window = OccurredWindow(filter)
        guard try SpatiaLiteStore.rowsLieClose(of: user, within: window, db) else { return .index }
        return try SpatiaLiteStore.rowsFillTable(of: user, within: window, db) ? .tableScan : .rowidRuns
    }

    /// The statement behind `forEachSpendingPoint`, its bindings, and the number of the first of
    /// the two parameters that bound a run of rowids (`.rowidRuns` only). `forColumns`: for
    /// `spendingColumns`, with the rowid, timestamp text and local date as columns 12–14, and
    /// on the index path in the index's order (the decoder sorts by the rowid).
    static func spendingPointQuery(
        _ filter: ExpenseFilter, geotaggedOnly: Bool, access: SpendingRowAccess, forColumns: Bool = false
    ) -> (sql: String, bind: [(RawStatement) -> Void], runBounds: Int32) {
        var (conditions, arguments) = StoredRows.conditions(for: filter, firstParameter: 1)
        if geotaggedOnly { conditions.append("e.lat IS NOT NULL") }
        if access == .index, filter.readsOneUser {
            // A bare-date window compares local_date, which the index does not hold: its
            // occurred_ms superset lets SQLite seek only the window's rows, not all the user's.
            let window = OccurredWindow(filter)
            for (bound, comparison) in [(window.fromIsWidened ? window.from : nil, ">="), (window.toIsWidened ? window.to : nil, "<")] {
                guard let bound else { continue }
                let index = Int32(arguments.count + 1)
                conditions.append("e.occurred_ms \(comparison) ?\(index)")
                arguments.append { $0.bind(index, bound) }
            }
        }
        let runBounds = Int32(arguments.count + 1)
        if access == .rowidRuns {
            // NOT INDEXED still lets SQLite seek by rowid: SEARCH e USING INTEGER PRIMARY KEY.
            conditions.append("e.rowid BETWEEN ?\(runBounds) AND ?\(runBounds + 1)")
        }
        // Category names are looked up by the decoder, not joined per row; the join stays only
        // for filtering by name.
        let join = filter.categories.isEmpty ? "" : "LEFT JOIN categories AS c ON c.id = e.category_id"
        // One user's points come in rowid order on every path (scans and runs give it; the index
        // path sorts its few rows), so what lists them does not change with other users present:
        // the path chosen depends on them (IsolationTests). Columns (insights) skip the sort.
        let oneUser = filter.readsOneUser
        // A user or kind the filter fixes is not read per row (the decoder fills it in).
        let kind = filter.kinds.count == 1 ? "NULL" : "e.kind", user = filter.userID == nil ? "e.user_id" : "NULL"
        let merchant = filter.readsMerchant ? "e.merchant" : "NULL"
        let sql = """
            SELECT e.id, e.store_id, e.lat, e.lon, \(kind), e.amount_minor, e.currency, e.occurred_ms, \(merchant), e.category_id,
                \(user), e.utc_offset_min\(forColumns ? ", e.occurred_at, e.local_date" : "")
            FROM expenses AS e \(access == .index ? (oneUser ? "INDEXED BY expenses_user_time" : "") : "NOT INDEXED") \(join)
            \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
            \(oneUser && access == .index && !forColumns ? "ORDER BY e.rowid" : "")
            """
        return (sql, arguments, runBounds)
    }
}
