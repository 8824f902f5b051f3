import GRDB
import GeoSpend
import Testing

@testable import GeoSpendSpatiaLite

/// One user's rows read by two connections, half each (SplitRead.swift): the same rows, in the
/// same order, numbered the same, as one connection reads; and never two states mixed.
@Suite struct SplitReadTests {
    typealias Row = SpendingReadTests.ColumnRow

    /// The store's read, split whatever its size or never.
    func columns(_ store: SpatiaLiteStore, _ filter: ExpenseFilter, access: SpatiaLiteStore.SpendingRowAccess?, split: Bool) throws -> SpendingColumns {
        store.splitRead.minimumSpan = split ? 0 : .max
        return try store.spendingColumns(filter, access: access)
    }

    @Test func halvesCoverTheRangesOnceAtTheMiddleRowid() {
        let ranges: [ClosedRange<Int64>] = [1...4, 10...10, 20...29]  // 15 rowids
        let (lower, upper) = SplitRead.halves(of: ranges)
        #expect(lower == [1...4, 10...10, 20...21])
        #expect(upper == [22...29])
        #expect(SplitRead.span(of: lower) == 7 && SplitRead.span(of: upper) == 8)
        #expect(SplitRead.halves(of: [1...4, 5...8]) == ([1...4], [5...8]))  // a cut between ranges
        #expect(SplitRead.halves(of: [7...7]) == ([], [7...7]))
        #expect(SplitRead.halves(of: []) == ([], []))
        #expect(SplitRead.halves(of: [-5...4]) == ([-5...(-1)], [0...4]))
    }

    /// The table's ends are found by two B-tree seeks, not a scan of every row.
    @Test func tableEndsAreSeeks() throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let details = try store.read { db in
            try GRDB.Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + SpatiaLiteStore.tableEndsSQL).map { $0["detail"] as String }
        }
        #expect(details.filter { $0.hasPrefix("SEARCH expenses") }.count == 2)
        #expect(!details.contains { $0.hasPrefix("SCAN expenses") })
    }

    /// Every user, window and narrowing of SpendingReadTests' data, split at any size, against
    /// one connection's read: ann's ranges are cut inside one and between two, cat's table of
    /// her own rows is cut in the middle of a scan.
    @Test func splitReadEqualsOneConnection() throws {
        let scratch = Scratch()
        let store = try scratch.store()
        _ = try store.write { w in for e in try SpendingReadTests.expenses() { _ = try w.insert(e) } }
        let alone = try scratch.store("alone.sqlite")
        _ = try alone.write { w in
            for e in try SpendingReadTests.expenses() {
                var e = e
                e.userID = "solo"
                _ = try w.insert(e)
            }
        }
        var compared = 0
        for (store, users) in [(store, ["ann", "bob", "cat", "eve", "nobody"]), (alone, ["solo"])] {
            for user in users {
                for (from, to) in try SpendingReadTests.windows() {
                    for (kinds, categories) in SpendingReadTests.narrowings {
                        let filter = ExpenseFilter(userID: user, from: from, to: to, kinds: kinds, categories: categories)
                        for access in [SpatiaLiteStore.SpendingRowAccess.rowidRuns, .tableScan, nil] {
                            let one = try columns(store, filter, access: access, split: false)
                            let split = try columns(store, filter, access: access, split: true)
                            #expect(Row.all(split) == Row.all(one), "\(user) \(String(describing: access)) \(kinds) \(categories)")
                            #expect(split.storeIDs == one.storeIDs && split.categories == one.categories)
                            #expect(split.currencies == one.currencies && split.currencyNumber == one.currencyNumber)
                            compared += one.count
                        }
                    }
                }
            }
        }
        #expect(compared > 1000)
        // Split for real: no second half declined or failed.
        #expect(store.splitRead.outcomes[.split, default: 0] > 100 && alone.splitRead.outcomes[.split, default: 0] > 10)
        #expect(store.splitRead.outcomes[.declined] == nil && store.splitRead.outcomes[.failed] == nil)
    }

    /// Store and category numbers met first in the upper half are renumbered after the lower
    /// half's, in order of first sight over the whole read.
    @Test func upperHalfNumbersFollowTheLowerHalfs() throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let eur = try Currency(code: "EUR"), sek = try Currency(code: "SEK")
        for id in ["a", "b", "c"] {
            _ = try store.write { w in try w.insert(Store(id: id, name: id, coordinate: Coordinate(uncheckedLatitude: 60.17, longitude: 24.94))) }
        }
        // Lower half: b, a in EUR, Food; upper half: c, a, b in SEK, Rent then Food.
        let plan: [(String, Currency, String)] = [("b", eur, "Food"), ("a", eur, "Food"), ("c", sek, "Rent"), ("a", sek, "Food"), ("b", eur, "Rent"), ("c", eur, "Food")]
        _ = try store.write { w in
            for (n, (s, currency, category)) in plan.enumerated() {
                _ = try w.insert(Expense(
                    id: "e\(n)", userID: "ann", kind: .expense, amount: Money(minorUnits: 100, currency: currency),
                    occurredAt: try Timestamp(parsing: "2025-03-10"), category: category, storeID: s))
            }
        }
        let split = try columns(store, ExpenseFilter(userID: "ann"), access: .tableScan, split: true)
        #expect(split.storeIDs == ["b", "a", "c"])
        #expect(split.storeNumber == [0, 1, 2, 1, 0, 2])
        #expect(split.currencies.map(\.code) == ["EUR", "SEK"])
        #expect(split.currencyNumber == [0, 0, 1, 1, 0, 0])
        #expect(split.categories == ["Food", "Rent"])
        #expect(split.categoryNumber == [0, 0, 1, 0, 1, 0])
        #expect((0..<6).map(split.id) == (0..<6).map { "e\($0)" })
        #expect(store.splitRead.outcomes == [.split: 1])
    }

    /// A commit after the pin makes the second connection decline; without one it reads.
    @Test func secondConnectionDeclinesAfterACommit() throws {
        let scratch = Scratch()
        let store = try scratch.store()
        _ = try store.write { w in try w.insert(Store(id: "s1", name: "One", coordinate: Coordinate(uncheckedLatitude: 60.17, longitude: 24.94))) }
        let split = SplitRead(path: store.path, meter: store.lockWaits)
        let quiet = try #require(split.pin())
        #expect(try split.read(ifUnchangedSince: quiet) { _ in 1 } == 1)
        let before = try #require(split.pin())
        _ = try store.write { w in try w.insert(Store(id: "s2", name: "Two", coordinate: Coordinate(uncheckedLatitude: 60.18, longitude: 24.95))) }
        #expect(try split.read(ifUnchangedSince: before) { _ in 1 } == nil)
        #expect(SplitRead(path: store.path, meter: store.lockWaits, enabled: false).pin() == nil)
    }

    /// A store holding cat's rows (SpendingReadTests), none linked yet to its one store "s1".
    static func catAndAStore(_ scratch: Scratch) throws -> (SpatiaLiteStore, [Expense]) {
        let store = try scratch.store()
        let cat = try SpendingReadTests.expenses().filter { $0.userID == "cat" }
        _ = try store.write { w in
            _ = try w.insert(Store(id: "s1", name: "One", coordinate: Coordinate(uncheckedLatitude: 60.17, longitude: 24.94)))
            for e in cat { _ = try w.insert(e) }
        }
        return (store, cat)
    }

    /// With a pool: a commit after this connection's read began and before the second one's
    /// makes the second decline, and the rows are this connection's state, whole. (Without the
    /// check, the upper half would come with stores.)
    @Test func aCommitBetweenTheTwoReadsMakesTheSecondDecline() throws {
        let scratch = Scratch()
        let (store, cat) = try Self.catAndAStore(scratch)
        let writer = try SpatiaLiteStore(path: store.path)
        store.splitRead.minimumSpan = 0
        store.splitRead.beforeSecondHalf = {
            _ = try! writer.write { w in for e in cat { _ = try w.assignStore("s1", toExpense: e.id) } }
        }
        let during = try store.spendingColumns(ExpenseFilter(userID: "cat"), access: .rowidRuns)
        #expect(during.count == cat.count && during.storeIDs.isEmpty)
        #expect(store.splitRead.outcomes == [.declined: 1])
        store.splitRead.beforeSecondHalf = nil
        let after = try store.spendingColumns(ExpenseFilter(userID: "cat"), access: .rowidRuns)
        #expect(after.storeNumber == Array(repeating: 0, count: cat.count))
        #expect(store.splitRead.outcomes == [.declined: 1, .split: 1])
    }

    /// With `snapshotReads`, a change committed after the store was opened stays out of a split
    /// read: the second connection sees it, so it declines, and the snapshot's connection reads
    /// both halves. (Without the check, the upper half would come with stores.)
    @Test func snapshotReadsNeverMixInLaterChanges() throws {
        let scratch = Scratch()
        let (writer, cat) = try Self.catAndAStore(scratch)
        let reader = try SpatiaLiteStore(path: writer.path, readOnly: true, snapshotReads: true)
        let before = try columns(reader, ExpenseFilter(userID: "cat"), access: .rowidRuns, split: false)
        _ = try writer.write { w in for e in cat { _ = try w.assignStore("s1", toExpense: e.id) } }
        for access in [SpatiaLiteStore.SpendingRowAccess.rowidRuns, .tableScan] {
            let split = try columns(reader, ExpenseFilter(userID: "cat"), access: access, split: true)
            #expect(Row.all(split) == Row.all(before))
            #expect(split.storeIDs.isEmpty && split.count == cat.count)
        }
        #expect(reader.splitRead.outcomes == [.declined: 2])
        let fresh = try SpatiaLiteStore(path: writer.path, readOnly: true, snapshotReads: true)
        #expect(try columns(fresh, ExpenseFilter(userID: "cat"), access: .rowidRuns, split: true).storeNumber == Array(repeating: 0, count: cat.count))
    }
}
