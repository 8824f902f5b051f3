import GRDB
import GeoSpend
import Testing

@testable import GeoSpendSpatiaLite

/// One user's spending points read by ranges of rowids (RowidRuns.swift) or through the index:
/// both give exactly the rows a brute-force pass over every inserted expense keeps.
@Suite struct SpendingReadTests {
    static let maxGap = SpatiaLiteStore.rowsSkippedRatherThanRestart

    /// Times around the window 2025-03-10 … 2025-03-12, at the edges of those local days with the
    /// offsets the parser allows at most (±23:59) and the real extremes (+14:00, −12:00).
    static let times = [
        "2025-03-09", "2025-03-10", "2025-03-12", "2025-03-13", "2025-01-01", "2025-06-30",
        "2025-03-10T00:00:00+23:59",  // 2025-03-09T00:01Z: local 10th, 23 h 59 min before its UTC midnight
        "2025-03-10T00:00:00+14:00",
        "2025-03-09T23:59:59.999-12:00",  // UTC the 10th, local the 9th: out of a window by dates
        "2025-03-09T23:59:59.999-23:59",
        "2025-03-12T23:59:59.999-23:59",  // 2025-03-13T23:58:59.999Z: local 12th, 47 h 59 min after its midnight
        "2025-03-12T23:59:59.999-12:00",
        "2025-03-13T00:00:00+14:00",  // UTC the 12th, local the 13th
        "2025-03-13T00:00:00+23:59",
        "2025-03-11T12:00:00Z", "2025-03-13T12:00:00Z",
        "2025-03-10T00:00:00+14:00",  // the instant window's start itself (inclusive) …
        "2025-03-13T00:00:00-12:00",  // … and its end (exclusive)
    ]

    /// Expenses in insertion (rowid) order: ann's rows with 0, 1, …, maxGap ± 1 and more of
    /// bob's between them (so some ranges hold bob's rows, some end where a gap is too wide),
    /// then cat's rows all together, eve's every third row, and dan's single row last.
    static func expenses() throws -> [Expense] {
        let gaps: [Int64] = [0, 0, 1, 2, maxGap - 1, maxGap, maxGap + 1, 3 * maxGap, 0, 5, maxGap, 0, 2 * maxGap + 1, 1]
        var owners: [String] = []
        for _ in 0..<3 {
            for gap in gaps {
                owners.append("ann")
                owners += Array(repeating: "bob", count: Int(gap))
            }
        }
        owners += Array(repeating: "cat", count: 40)
        for _ in 0..<30 { owners += ["eve", "bob", "bob"] }
        owners.append("dan")
        let eur = try Currency(code: "EUR"), sek = try Currency(code: "SEK")
        return try owners.enumerated().map { n, user in
            let kind: ExpenseKind = [.expense, .expense, .income, .transfer][n % 4]
            let category: String? = switch kind {
            case .expense: n % 3 == 0 ? nil : (n % 3 == 1 ? "Food" : "Rent")
            case .income: "Salary"
            case .transfer: nil
            }
            return Expense(
                id: String(format: "x%04d", n), userID: user, kind: kind,
                amount: Money(minorUnits: Int64(100 + n), currency: n % 5 == 0 ? sek : eur),
                occurredAt: try Timestamp(parsing: times[(n * 7) % times.count]), category: category,
                location: n % 2 == 0 ? nil : ExpenseLocation(coordinate: Coordinate(uncheckedLatitude: 60 + Double(n) / 1000, longitude: 24.9)),
                storeID: nil)
        }
    }

    static func day(_ text: String) throws -> Timestamp { try Timestamp(parsing: text) }

    /// Windows by bare dates, instants and both; two bare dates as reports make them from an
    /// expense (`epochMilliseconds` its instant, not midnight: a bound taken from it would drop
    /// the ±23:59 rows).
    static func windows() throws -> [(from: Timestamp?, to: Timestamp?)] {
        let fromExpense = Timestamp(text: "2025-03-10", epochMilliseconds: try day("2025-03-10T20:00:00Z").epochMilliseconds, utcOffsetMinutes: nil, localDate: "2025-03-10")
        let toExpense = Timestamp(text: "2025-03-12", epochMilliseconds: try day("2025-03-12T05:00:00+14:00").epochMilliseconds, utcOffsetMinutes: nil, localDate: "2025-03-12")
        return [
            (nil, nil), (try day("2025-03-10"), nil), (nil, try day("2025-03-12")),
            (try day("2025-03-10"), try day("2025-03-12")), (try day("2025-03-10"), try day("2025-03-10")),
            (try day("2025-03-12"), try day("2025-03-12")), (fromExpense, toExpense),
            (try day("2025-03-10T00:00:00+14:00"), try day("2025-03-13T00:00:00-12:00")),
            (try day("2025-03-10"), try day("2025-03-13T00:00:00-12:00")),
            (try day("2025-03-10T00:00:00+14:00"), try day("2025-03-12")),
        ]
    }

    static let narrowings: [(kinds: Set<ExpenseKind>, categories: Set<String>)] = [
        ([], []), ([.income], []), ([], ["FOOD"]), ([.expense, .transfer], ["food", "Rent"]),
    ]

    /// Every user's filter by each window and narrowing, with a label for failure messages.
    static func eachFilter(users: [String], _ body: (ExpenseFilter, String) throws -> Void) throws {
        for user in users {
            for (from, to) in try windows() {
                for (kinds, categories) in narrowings {
                    let filter = ExpenseFilter(userID: user, from: from, to: to, kinds: kinds, categories: categories)
                    try body(filter, "\(user) \(from?.text ?? "-")…\(to?.text ?? "-") \(kinds) \(categories)")
                }
            }
        }
    }

    @Test func rowsEqualBruteForceByEveryAccessPath() throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let all = try Self.expenses()
        _ = try store.writeHere { w in for e in all { _ = try w.insert(e) } }
        var checked = 0
        try Self.eachFilter(users: ["ann", "bob", "cat", "dan", "eve", "nobody"]) { filter, label in
            for geotaggedOnly in [false, true] {
                let expected = all.filter { filter.matches($0) && (!geotaggedOnly || $0.location != nil) }
                    .map(SpendingPoint.init).sorted { $0.id < $1.id }
                for access in [SpatiaLiteReader.SpendingRowAccess.rowidRuns, .index, .tableScan, nil] {
                    var got: [SpendingPoint] = []
                    try store.readDatabase { db in try SpatiaLiteReader(db).forEachSpendingPointBatch(filter, geotaggedOnly: geotaggedOnly, access: access) { got += $0 } }
                    // Ids follow insertion order, so `expected` is in rowid order: the
                    // order every path must give one user's rows.
                    let context = "\(label) geotagged=\(geotaggedOnly) \(String(describing: access))"
                    #expect(got == expected, "\(context)")
                    checked += expected.count
                    if !geotaggedOnly {
                        // Columns come in the path's own order (insights do not depend on it).
                        let columns = try store.readDatabase { db in try SpatiaLiteReader(db).spendingColumns(filter, access: access) }
                        #expect(ColumnRow.all(columns).sorted { $0.id < $1.id } == ColumnRow.all(SpendingColumns(expected)), "\(context)")
                    }
                }
            }
        }
        #expect(checked > 1000)
        // The margins are tight: the window by dates holds the ±23:59 rows at its very edges.
        let byDates = ExpenseFilter(userID: "ann", from: try Self.day("2025-03-10"), to: try Self.day("2025-03-12"))
        let edges = Set(["2025-03-10T00:00:00+23:59", "2025-03-12T23:59:59.999-23:59"])
        #expect(Set(try store.readHere { try $0.spendingPoints(byDates) }.compactMap { p in all.first { $0.id == p.id }?.occurredAt.text }).isSuperset(of: edges))
    }

    /// One user's columns (insights, summaries) come from `expenses_user_time` alone (v15), for
    /// every window, kind and category filter: SQLite's plan says covering, so no row of the
    /// table is read (a table seek per row was half of an insights call).
    @Test func oneUsersColumnsAreReadFromTheIndexAlone() throws {
        let scratch = Scratch()
        let store = try scratch.store()
        _ = try store.writeHere { w in for e in try Self.expenses() { _ = try w.insert(e) } }
        var checked = 0
        try Self.eachFilter(users: ["ann"]) { filter, label in
            for period in [nil, 1] as [Int64?] {
                var f = filter
                f.period = period
                let sql = SpatiaLiteReader.spendingPointQuery(f, geotaggedOnly: false, access: .index, forColumns: true).sql
                let plan = try Self.plan(sql, store)
                #expect(plan.contains("SEARCH e USING COVERING INDEX expenses_user_time"), "\(label) period \(String(describing: period)): \(plan)")
                checked += 1
            }
        }
        #expect(checked > 10)
    }

    /// Store labels come from `stores_label` alone (v16): one seek per store, no table row read.
    @Test func storeLabelsAreReadFromTheirIndexAlone() throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let plan = try Self.plan(SpatiaLiteReader.storeLabelsSQL, store)
        #expect(plan.contains("SEARCH s USING COVERING INDEX stores_label (id=?)"), "\(plan)")
    }

    /// A v15 file gains `stores_label` on open, and its stores' labels read through it; also
    /// when the file already has an index of that name (made by hand, of another shape).
    @Test func aVersion15FileGainsTheLabelIndex() throws {
        let scratch = Scratch()
        for (n, existing) in [nil, "CREATE INDEX stores_label ON stores(name)"].enumerated() {
            let path = scratch.path("v15-\(n).sqlite")
            try OlderFile.make(at: path, before: "v16") { db in
                try db.execute(sql: "INSERT INTO stores (id, name, kind, lat, lon, content_hash) VALUES ('s1', 'Alepa', 'supermarket', 60.17, 24.94, 0)")
                if let existing { try db.execute(sql: existing) }
            }
            _ = try SpatiaLiteStore(path: path)  // migrates
            // Connections opened after the migration: EXPLAIN on one that read the old schema
            // plans against it (running the statement would notice the change and prepare it again).
            let store = try SpatiaLiteStore(path: path)
            let plan = try Self.plan(SpatiaLiteReader.storeLabelsSQL, store)
            #expect(plan.contains("SEARCH s USING COVERING INDEX stores_label (id=?)"), "file \(n): \(plan)")
            let labels = try store.readHere { try $0.storeLabels(["s1", "missing"]) }
            #expect(labels.map { $0?.name } == ["Alepa", nil])
            #expect(labels.first??.coordinate == Coordinate(uncheckedLatitude: 60.17, longitude: 24.94))
        }
    }

    /// SQLite's query plan of `sql`, its steps joined by "; ".
    static func plan(_ sql: String, _ store: SpatiaLiteStore) throws -> String {
        try store.readDatabase { db in
            let s = RawStatement(try db.cachedStatement(sql: "EXPLAIN QUERY PLAN " + sql))  // the cache keeps it alive
            defer { s.reset() }  // a filter asked again finds the same cached statement
            s.reset()
            var details: [String] = []
            while try s.step(db) { details.append(s.text(3) ?? "") }
            return details.joined(separator: "; ")
        }
    }

    /// The columns carry each row's stored timestamp (text with its fraction and offset, the
    /// local date) on every access path: insights take first and last visits from them instead
    /// of a lookup by id. The index path keeps its own order (by instant); the others rowid order.
    @Test func columnsCarryStoredTimestampsOnEveryPath() throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let all = try Self.expenses()
        _ = try store.writeHere { w in for e in all { _ = try w.insert(e) } }
        for user in ["ann", "bob", "cat", "dan", "eve"] {
            let expected = all.filter { $0.userID == user }
            for access in [SpatiaLiteReader.SpendingRowAccess.rowidRuns, .index, .tableScan, nil] {
                let columns = try store.readDatabase { db in try SpatiaLiteReader(db).spendingColumns(ExpenseFilter(userID: user), access: access) }
                #expect(columns.hasTimestamps)
                let order = access == .index || access == nil ? expected.indices.sorted { expected[$0].occurredAt.epochMilliseconds < expected[$1].occurredAt.epochMilliseconds }
                    .map { expected[$0] } : expected
                #expect(Set((0..<columns.count).map(columns.id)) == Set(expected.map(\.id)), "\(user) \(String(describing: access))")
                #expect(columns.occurredMilliseconds == order.map(\.occurredAt.epochMilliseconds))
                let stamped = Dictionary(uniqueKeysWithValues: (0..<columns.count).map { (columns.id($0), columns.timestamp($0)) })
                #expect(expected.allSatisfy { stamped[$0.id] == $0.occurredAt }, "\(user) \(String(describing: access))")
            }
        }
        // Points carry no text: the columns built from them have no timestamps.
        #expect(!SpendingColumns(all.map(SpendingPoint.init)).hasTimestamps)
    }

    /// A row of `SpendingColumns` with its numbers resolved, comparable whatever the numbering.
    struct ColumnRow: Equatable {
        let id: String, amountMinor: Int64, occurredMilliseconds: Int64, utcOffsetMinutes: Int32?, coordinate: Coordinate?
        let currency: String, storeID: String?, category: String?, localDayNumber: Int64

        static func all(_ c: SpendingColumns) -> [ColumnRow] {
            (0..<c.count).map { i in
                ColumnRow(
                    id: c.id(i), amountMinor: c.amountMinor[i], occurredMilliseconds: c.occurredMilliseconds[i],
                    utcOffsetMinutes: c.utcOffsetMinutes[i], coordinate: c.coordinate(i), currency: c.currencies[Int(c.currencyNumber[i])].code,
                    storeID: c.storeNumber[i] < 0 ? nil : c.storeIDs[Int(c.storeNumber[i])],
                    category: c.categoryNumber[i] < 0 ? nil : c.categories[Int(c.categoryNumber[i])], localDayNumber: c.localDayNumber(i))
            }
        }
    }

    /// Store ids, currencies and categories are numbered in order of first sight, one number per
    /// value, and the columns agree with the points they stand for.
    @Test func columnsNumberRepeatedValuesInOrderOfFirstSight() throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let eur = try Currency(code: "EUR"), jpy = try Currency(code: "JPY")
        for (id, name) in [("s2", "Two"), ("s1", "One"), ("s3", "Three")] {
            _ = try store.writeHere { w in try w.insert(Store(id: id, name: name, coordinate: Coordinate(uncheckedLatitude: 60.17, longitude: 24.94))) }
        }
        let plan: [(store: String?, currency: Currency, category: String?)] = [
            ("s2", eur, "Food"), (nil, jpy, nil), ("s1", eur, "Rent"), ("s2", jpy, "Food"), ("s3", eur, "Fuel"), (nil, eur, "Rent"),
        ]
        let expenses = try plan.enumerated().map { n, p in
            Expense(
                id: "e\(n)", userID: "ann", kind: .expense, amount: Money(minorUnits: Int64(10 + n), currency: p.currency),
                occurredAt: try Timestamp(parsing: "2025-03-1\(n)T10:00:00+02:00"), category: p.category,
                location: n == 1 ? nil : ExpenseLocation(coordinate: Coordinate(uncheckedLatitude: 60 + Double(n) / 100, longitude: 24.9)),
                storeID: p.store)
        }
        _ = try store.writeHere { w in for e in expenses { _ = try w.insert(e) } }
        let columns = try store.readHere { try $0.spendingColumns(ExpenseFilter(userID: "ann")) }
        #expect(columns.storeIDs == ["s2", "s1", "s3"])
        #expect(columns.storeNumber == [0, -1, 1, 0, 2, -1])
        #expect(columns.currencies.map(\.code) == ["EUR", "JPY"])
        #expect(columns.currencyNumber == [0, 1, 0, 1, 0, 0])
        #expect(columns.categoryNumber.map { $0 < 0 ? nil : columns.categories[Int($0)] } == expenses.map(\.category))
        #expect(columns.categories == ["Food", "Rent", "Fuel"])
        #expect(columns.latitude[1].isNaN && columns.coordinate(1) == nil)
        #expect(ColumnRow.all(columns) == ColumnRow.all(SpendingColumns(expenses.map(SpendingPoint.init))))
        #expect(columns.localDayNumber(0) == 20157)  // 2025-03-10, days since 1970-01-01
    }

    /// The data above covers what can go wrong with ranges: several of them, some holding
    /// another user's rows, some ending at a gap one row too wide.
    @Test func annsRangesMixMergedAndSplitGaps() throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let all = try Self.expenses()
        _ = try store.writeHere { w in for e in all { _ = try w.insert(e) } }
        let runs = try store.readDatabase { db in try SpatiaLiteStore.rowidRuns(of: "ann", within: OccurredWindow(from: nil, to: nil), db) }
        let annRows = all.filter { $0.userID == "ann" }.count
        #expect(runs.count > 3 && runs.count < annRows)
        let covered = runs.reduce(0) { $0 + $1.count }
        #expect(covered > annRows)  // bob's rows inside some ranges
        #expect(runs.first?.lowerBound == 1)
    }

    @Test func rangesJoinGapsUpToTheThreshold() {
        let runs = SpatiaLiteStore.runs(ofAscending: [1, 2, 3, 5, 9, 20, 21, 40], maxGap: 3)
        #expect(runs == [1...9, 20...21, 40...40])
        #expect(SpatiaLiteStore.runs(ofAscending: [1, 5], maxGap: 3) == [1...5])  // 3 rows between
        #expect(SpatiaLiteStore.runs(ofAscending: [1, 6], maxGap: 3) == [1...1, 6...6])  // 4 rows between
        #expect(SpatiaLiteStore.runs(ofAscending: [], maxGap: 3) == [])
        #expect(SpatiaLiteStore.runs(ofAscending: [7], maxGap: 0) == [7...7])
        #expect(SpatiaLiteStore.runs(ofAscending: [Int64.min, -1, Int64.max], maxGap: 10) == [Int64.min...Int64.min, -1...(-1), Int64.max...Int64.max])
        #expect(SpatiaLiteStore.runs(of: [Int64.max, Int64.min, 0], maxGap: 10) == [Int64.min...Int64.min, 0...0, Int64.max...Int64.max])  // span overflows: sorted
    }

    @Test(arguments: [1, 2, 64, 1000], [Int64(1), 3, 64, 100_000])
    func unorderedRowidsCutAsSorted(count: Int, spread: Int64) {
        // `spread` rowids per row: narrow spans go through the bitmap, wide ones through the sort.
        var rng = SplitMix64(seed: UInt64(count) &* 31 &+ UInt64(spread))
        let rowids = Array(Set((0..<count).map { _ in Int64(rng.next() % UInt64(Int64(count) * spread)) - 500 }))
        for maxGap in [Int64(0), 2, 10] {
            #expect(SpatiaLiteStore.runs(of: rowids, maxGap: maxGap) == SpatiaLiteStore.runs(ofAscending: rowids.sorted(), maxGap: maxGap))
        }
    }

    /// A user whose rows lie together is read by ranges, or with the whole table when they are
    /// most of it; one scattered among others, or whose window holds rows far apart, through
    /// the index.
    @Test func accessFollowsHowCloseTheRowsLie() throws {
        let scratch = Scratch()
        let store = try scratch.store()
        _ = try store.writeHere { w in for e in try Self.expenses() { _ = try w.insert(e) } }
        func access(_ user: String?, from: Timestamp? = nil, stores: Set<String> = []) throws -> SpatiaLiteReader.SpendingRowAccess {
            try store.readDatabase { db in try SpatiaLiteReader.spendingRowAccess(ExpenseFilter(userID: user, from: from, storeIDs: stores), db) }
        }
        #expect(try access("cat") == .rowidRuns)
        #expect(try access("eve") == .index)
        #expect(try access("nobody") == .index)
        #expect(try access(nil) == .tableScan)
        #expect(try access("cat", stores: ["s1"]) == .index)
        // From June 30th on, only every 18th of cat's rows is in the window (times cycle through 18).
        #expect(try access("cat", from: try Timestamp(parsing: "2025-06-30")) == .index)

        let alone = try scratch.store("alone.sqlite")
        _ = try alone.writeHere { w in for e in try Self.expenses() { var e = e; e.userID = e.userID == "dan" ? "dan" : "solo"; _ = try w.insert(e) } }
        let soloAccess = try alone.readDatabase { db in try SpatiaLiteReader.spendingRowAccess(ExpenseFilter(userID: "solo"), db) }
        #expect(soloAccess == .tableScan)
    }

    /// SQLite reads a range as a range, a window's index entries as one span, and the rowids
    /// from the index alone.
    @Test func plansUseTheRowidRangeAndTheIndexRange() throws {
        let scratch = Scratch()
        let store = try scratch.store()
        _ = try store.writeHere { w in for e in try Self.expenses() { _ = try w.insert(e) } }
        func plan(_ sql: String) throws -> String { try Self.plan(sql, store) }
        let filter = ExpenseFilter(userID: "ann", from: try Timestamp(parsing: "2025-03-10"), to: try Timestamp(parsing: "2025-03-12"), categories: ["Food"])
        let runs = SpatiaLiteReader.spendingPointQuery(filter, geotaggedOnly: true, access: .rowidRuns).sql
        #expect(try plan(runs).hasPrefix("SEARCH e USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)"))
        var byDates = filter
        byDates.categories = []
        let indexed = SpatiaLiteReader.spendingPointQuery(byDates, geotaggedOnly: false, access: .index).sql
        #expect(try plan(indexed).contains("expenses_user_time (user_id=? AND occurred_ms>? AND occurred_ms<?)"))
        let window = OccurredWindow(filter)
        #expect(try plan("SELECT pk FROM expenses WHERE user_id = ?1 \(window.sql(on: "expenses"))")
            == "SEARCH expenses USING COVERING INDEX expenses_user_time (user_id=? AND occurred_ms>? AND occurred_ms<?)")
    }

    @Test func windowBoundsWidenBareDatesByADayEachSide() throws {
        let day: Int64 = 86_400_000
        let midnight10 = try Timestamp(parsing: "2025-03-10").epochMilliseconds
        let dates = OccurredWindow(from: try Timestamp(parsing: "2025-03-10"), to: try Timestamp(parsing: "2025-03-10"))
        #expect(dates.from == midnight10 - day && dates.to == midnight10 + 2 * day)
        #expect(dates.fromIsWidened && dates.toIsWidened)
        let instant = try Timestamp(parsing: "2025-03-10T08:15:00.5+02:00")
        let instants = OccurredWindow(from: instant, to: instant)
        #expect(instants.from == instant.epochMilliseconds && instants.to == instant.epochMilliseconds)
        #expect(!instants.fromIsWidened && !instants.toIsWidened)
        let odd = Timestamp(text: "March", epochMilliseconds: 0, utcOffsetMinutes: nil, localDate: "March")
        #expect(OccurredWindow(from: odd, to: odd).from == nil)  // no bound rather than a wrong one
    }
}
