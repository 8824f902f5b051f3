import GeoSpend
import GRDB

/// One user's expenses read by ranges of rowids, a "bitmap heap scan" as PostgreSQL calls it:
/// the rowids come from the index `expenses_user_time` (key user_id, occurred_ms; since v15 it
/// also holds the columns insights reads), sorted, then each range of nearby rowids is read from
/// the table as a short scan. Rows in a range that are another user's or outside the window are
/// dropped by the query's own conditions.
///
/// Worth it only when the user's rows lie close together (a heavy user, or one whose rows were
/// imported together): each range costs a statement restart (~7,400 instructions here, SQLite
/// built without lookaside), where the index path pays one table seek per row (~1,650). So
/// `rowsLieClose` checks that first, and a user scattered among many others keeps the index
/// path; and when the user's rows are most of the table (`rowsFillTable`), a plain scan skips
/// the index read too. Rows come in rowid order, as on every path for one user
/// (`spendingPointQuery`).
extension SpatiaLiteStore {
    /// Neighbouring rowids at most this many rows apart share a range: stepping over a row costs
    /// ~690 instructions (0.14 µs), a new range ~7,400 (1.3 µs), so the break-even is 9–11 rows
    /// (callgrind and wall time, 100k-row tables with every 4th, 8th, 16th row the user's).
    static let rowsSkippedRatherThanRestart: Int64 = 10

    /// How many rows `rowsLieClose` and `rowsFillTable` sample.
    static let closenessSample = 32

    /// Whether at least half of a sample of the user's rows in the window have their next rowid
    /// in the window too: then the rows lie close enough that ranges of rowids beat a table seek
    /// per row. One statement over `closenessSample` index entries and as many rowid lookups.
    static func rowsLieClose(of user: String, within window: OccurredWindow, _ db: Database) throws -> Bool {
        try atLeastHalf(of: user, within: window, db, sql: """
            SELECT count(*), total(n.user_id = ?1 \(window.sql(on: "n")))
            FROM (SELECT pk FROM expenses WHERE user_id = ?1 \(window.sql(on: "expenses")) LIMIT \(closenessSample)) AS k
            LEFT JOIN expenses AS n ON n.rowid = k.pk + 1
            """)
    }

    /// Whether at least half of a sample of the table's rows, evenly spaced by rowid, are the
    /// user's in the window: then the table holds little else, and scanning all of it is cheaper
    /// than reading the index first (~820 instructions a row for the rowids, against ~690 for
    /// stepping over another row).
    static func rowsFillTable(of user: String, within window: OccurredWindow, _ db: Database) throws -> Bool {
        try atLeastHalf(of: user, within: window, db, sql: """
            WITH RECURSIVE
                span(low, step) AS (
                    SELECT (SELECT min(rowid) FROM expenses), ((SELECT max(rowid) FROM expenses) - (SELECT min(rowid) FROM expenses)) / \(closenessSample) + 1),
                probe(at) AS (SELECT low FROM span UNION ALL SELECT at + step FROM probe, span LIMIT \(closenessSample))
            SELECT count(*), total(e.user_id = ?1 \(window.sql(on: "e")))
            FROM probe JOIN expenses AS e ON e.rowid = probe.at
            """)
    }

    /// Runs a probe whose one row is (rows sampled, how many of them qualify), with the user as
    /// ?1 and the window's bounds bound; true when at least half qualify.
    private static func atLeastHalf(of user: String, within window: OccurredWindow, _ db: Database, sql: String) throws -> Bool {
        let s = RawStatement(try db.cachedStatement(sql: sql))
        defer { s.reset() }
        s.reset()
        s.bind(1, user)
        window.bind(s)
        guard try s.step(db) else { return false }
        let sampled = s.int64(0), qualifying = s.double(1)
        return sampled > 0 && qualifying * 2 >= Double(sampled)
    }

    /// The rowids of `user`'s rows in `window`, read from the covering index alone, cut into
    /// ascending ranges with gaps of at most `rowsSkippedRatherThanRestart` rows.
    ///
    /// - Complexity: O(k) for the user's k rows in the window (O(k log k) if they are spread
    ///   over more than 64 k rowids); at most 16 bytes a row while the ranges are cut.
    static func rowidRuns(of user: String, within window: OccurredWindow, _ db: Database) throws -> [ClosedRange<Int64>] {
        let s = RawStatement(try db.cachedStatement(sql: "SELECT pk FROM expenses WHERE user_id = ?1 \(window.sql(on: "expenses"))"))
        defer { s.reset() }
        s.reset()
        s.bind(1, user)
        window.bind(s)
        var rowids: [Int64] = []
        while try s.step(db) { rowids.append(s.int64(0)) }
        return runs(of: consume rowids, maxGap: rowsSkippedRatherThanRestart)
    }

    /// Distinct rowids in any order cut into ranges as `runs(ofAscending:maxGap:)` does, put in
    /// order through a bitmap over their span when it is at most 64 times their count (then no
    /// bigger than the list, which is freed before the bitmap is read), by sorting otherwise.
    /// The index hands them over in time order, which for generated data is random: sorting
    /// costs ~370 instructions a row, the bitmap a tenth of that.
    static func runs(of rowids: consuming [Int64], maxGap: Int64) -> [ClosedRange<Int64>] {
        guard let low = rowids.min(), let high = rowids.max() else { return [] }
        let (span, overflow) = high.subtractingReportingOverflow(low)
        guard !overflow, span / 64 < rowids.count else {
            rowids.sort()
            return runs(ofAscending: rowids, maxGap: maxGap)
        }
        var bits = [UInt64](repeating: 0, count: Int(span / 64) + 1)
        for rowid in rowids {
            let offset = rowid - low
            bits[Int(offset >> 6)] |= 1 << UInt64(offset & 63)
        }
        rowids = []
        var cutter = RunCutter(maxGap: maxGap)
        for (i, word) in bits.enumerated() {
            var rest = word
            while rest != 0 {
                cutter.append(low + Int64(i) << 6 + Int64(rest.trailingZeroBitCount))
                rest &= rest - 1
            }
        }
        return cutter.runs()
    }

    /// Ascending rowids cut into ranges; two neighbours share one when at most `maxGap` rowids
    /// lie between them.
    static func runs(ofAscending rowids: [Int64], maxGap: Int64) -> [ClosedRange<Int64>] {
        var cutter = RunCutter(maxGap: maxGap)
        for rowid in rowids { cutter.append(rowid) }
        return cutter.runs()
    }

    private struct RunCutter {
        let maxGap: Int64
        private var closed: [ClosedRange<Int64>] = []
        private var open: (start: Int64, end: Int64)?

        init(maxGap: Int64) { self.maxGap = maxGap }

        /// Takes the next rowid, greater than every one before.
        mutating func append(_ rowid: Int64) {
            guard let (start, end) = open else { open = (rowid, rowid); return }
            let (distance, overflow) = rowid.subtractingReportingOverflow(end)
            if overflow || distance - 1 > maxGap {
                closed.append(start...end)
                open = (rowid, rowid)
            } else {
                open = (start, rowid)
            }
        }

        func runs() -> [ClosedRange<Int64>] {
            guard let (start, end) = open else { return closed }
            return closed + [start...end]
        }
    }
}

/// A filter's window as a range of `occurred_ms`, which `expenses_user_time` holds: exact for
/// instants, a superset for bare dates (which compare `local_date`, not in the index).
///
/// A row's `local_date` is the day of its instant at its recorded offset, and `Timestamp`
/// accepts offsets up to ±23:59; a bare-date row stores its day's midnight read as UTC. So a row
/// dated on day D happened within [midnight(D) − 23:59, midnight(D) + 24:00 + 23:59), and one
/// day of margin on either side of the window covers every offset.
struct OccurredWindow: Equatable {
    /// Inclusive lower bound in milliseconds since 1970 UTC; nil when there is none.
    var from: Int64?
    /// Exclusive upper bound; nil when there is none.
    var to: Int64?
    /// Whether a bound was widened from a bare date: then the filter's own SQL (on local_date)
    /// does not state it, and adding it lets SQLite use the index for the window.
    var fromIsWidened = false
    var toIsWidened = false

    init(from: Timestamp?, to: Timestamp?) {
        if let from {
            fromIsWidened = from.isDateOnly
            self.from = from.isDateOnly ? Self.midnight(from.localDate).map { $0 - Self.day } : from.epochMilliseconds
        }
        if let to {
            toIsWidened = to.isDateOnly
            self.to = to.isDateOnly ? Self.midnight(to.localDate).map { $0 + 2 * Self.day } : to.epochMilliseconds
        }
    }

    init(_ filter: ExpenseFilter) { self.init(from: filter.from, to: filter.to) }

    private static let day: Int64 = 86_400_000

    /// A `YYYY-MM-DD` day's midnight read as UTC, in milliseconds: parsed from the text, since a
    /// bare-date `Timestamp` built by hand need not carry its midnight as `epochMilliseconds`.
    /// Nil for any other text: no bound, still a superset.
    private static func midnight(_ localDate: String) -> Int64? {
        guard let day = try? Timestamp(parsing: localDate), day.isDateOnly, day.localDate == localDate else { return nil }
        return day.epochMilliseconds
    }

    /// `AND <table>.occurred_ms …` for the bounds there are, as parameters ?2 and ?3.
    func sql(on table: String) -> String {
        (from == nil ? "" : " AND \(table).occurred_ms >= ?2") + (to == nil ? "" : " AND \(table).occurred_ms < ?3")
    }

    func bind(_ s: RawStatement) {
        if let from { s.bind(2, from) }
        if let to { s.bind(3, to) }
    }
}
