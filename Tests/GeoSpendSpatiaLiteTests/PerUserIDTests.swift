import Foundation
import GRDB
import GeoSpend
import GeoSpendPostGIS
@testable import GeoSpendSpatiaLite
import GeoSpendTestStores
import Testing

/// Expense ids are unique per user, not across users (issue 35, item 11). With one id space,
/// importing `e1` when another user held `e1` answered "already stored with different content":
/// one user learnt that another had `e1`, and could block another's import by storing
/// predictable ids first. Checked on every store (the file, memory, PostgreSQL where a server is
/// named) through the seam, then the file's migration v17 on a v16 file with rows.
@Suite struct PerUserIDTests {
    static let eur = try! Currency(code: "EUR")
    static let kiosk = Store(id: "a", name: "Kiosk", coordinate: Coordinate(uncheckedLatitude: 60.17, longitude: 24.94))

    static func expense(_ id: String, user: String, minor: Int64, store: String? = nil) -> Expense {
        Expense(
            id: id, userID: user, amount: Money(minorUnits: minor, currency: eur),
            occurredAt: try! Timestamp(parsing: "2025-05-02T10:00:00+03:00"), merchant: "Kahvila",
            location: ExpenseLocation(coordinate: Coordinate(uncheckedLatitude: 60.17, longitude: 24.94)), storeID: store)
    }

    static func insert(_ rows: [Expense], into store: some ExpenseStore) async throws -> [RowOutcome] {
        try await store.write { w in try w.insert(rows.map { HashedRow($0, contentHash: $0.contentHash) }) }
    }

    static func amounts(of user: String, in store: some ExpenseStore) async throws -> [String: Int64] {
        let points = try await store.read { try $0.spendingPoints(ExpenseFilter(userID: user)) }
        return Dictionary(uniqueKeysWithValues: points.map { ($0.id, $0.amountMinor) })
    }

    /// Bob stores e1…e3 first (predictable ids); Ann's import of the same ids with her own
    /// content goes in whole, each keeps their own rows, and a conflict within one user still
    /// names the id, never another user's.
    @Test(arguments: StoreKind.allCases)
    func twoUsersHoldTheSameIDs(kind: StoreKind) async throws {
        let scratch = Scratch()
        let store = try await kind.make(in: scratch)
        let bobs = (1...3).map { Self.expense("e\($0)", user: "bob", minor: 100 + Int64($0)) }
        let anns = (1...3).map { Self.expense("e\($0)", user: "ann", minor: 200 + Int64($0)) }
        #expect(try await Self.insert(bobs, into: store) == [.inserted, .inserted, .inserted])
        #expect(try await Self.insert(anns, into: store) == [.inserted, .inserted, .inserted])
        #expect(try await Self.amounts(of: "bob", in: store) == ["e1": 101, "e2": 102, "e3": 103])
        #expect(try await Self.amounts(of: "ann", in: store) == ["e1": 201, "e2": 202, "e3": 203])
        #expect(try await store.read { try $0.counts() }.expenses == 6)

        // Each user's re-import is a no-op; Ann's changed e1 is refused, naming the id, and
        // leaves both users' rows as they were.
        let again = try await Self.insert(anns + bobs, into: store)
        #expect(again.allSatisfy { $0 == .unchanged })
        let changed = try await Self.insert([Self.expense("e1", user: "ann", minor: 999)], into: store)
        #expect(changed == [.rejected(RowRejection(
            column: "id", reason: "\"e1\" is already stored with different content; to replace the stored row import with --update (update=true over HTTP), or give changed rows new ids"))])
        #expect(try await Self.amounts(of: "ann", in: store)["e1"] == 201)
        #expect(try await Self.amounts(of: "bob", in: store)["e1"] == 101)
    }

    /// Snapping links user and id: Bob's snap gives his e1 the store and leaves Ann's e1 alone.
    @Test(arguments: StoreKind.allCases)
    func snapLinksOnlyItsUsersExpense(kind: StoreKind) async throws {
        let scratch = Scratch()
        let store = try await kind.make(in: scratch)
        _ = try await store.write { w in try w.insert([HashedRow(Self.kiosk, contentHash: Self.kiosk.contentHash)]) }
        _ = try await Self.insert([Self.expense("e1", user: "ann", minor: 1), Self.expense("e1", user: "bob", minor: 2)], into: store)
        let plan = try await Snapping.plan(SnapRequest(userID: "bob"), store: store)
        #expect(plan.assigned.map(\.userID) == ["bob"])
        #expect(try await Snapping.apply(plan, to: store) == 1)
        let stores = try await store.read { r in
            try r.spendingPoints(ExpenseFilter(userID: nil)).map { "\($0.amountMinor):\($0.storeID ?? "-")" }.sorted()
        }
        #expect(stores == ["1:-", "2:a"])
        // A link naming Ann's e1 reaches hers alone.
        let links = try await store.write { w in try w.assignStores([StoreLink(userID: "ann", expenseID: "e1", storeID: "a")]) }
        #expect(links == [true])
        let unsnapped = try await store.read { try $0.expensesWithoutStore(userID: nil) }
        #expect(unsnapped.isEmpty)
    }

    /// Show, edit and delete find the caller's `e1` only; adding an id another user holds
    /// succeeds; paging over several users' rows of one instant and id sees each once.
    @Test(arguments: EditingStoreKind.allCases)
    func editingOneUsersIDLeavesTheOthers(kind: EditingStoreKind) async throws {
        let scratch = Scratch()
        let store = try await kind.make(in: scratch)
        _ = try await Self.insert([Self.expense("e1", user: "bob", minor: 101)], into: store)
        let added = try await store.addExpense(Self.expense("e1", user: "ann", minor: 201), remindAt: nil)
        #expect(added.expense.amount.minorUnits == 201)
        #expect(try await store.expense(id: "e1", userID: "bob")?.expense.amount.minorUnits == 101)
        let edited = try await store.updateExpense(Self.expense("e1", user: "ann", minor: 250), remindAt: nil)
        #expect(edited?.expense.amount.minorUnits == 250)
        #expect(try await store.expense(id: "e1", userID: "bob")?.expense.amount.minorUnits == 101)

        var seen: [String] = [], cursor: ExpenseCursor?
        repeat {
            let page = try await store.expensePage(ExpenseFilter(userID: nil), after: cursor, limit: 1)
            seen += page.expenses.map { "\($0.expense.userID)/\($0.expense.id)" }
            cursor = try page.next.map { try #require(ExpenseCursor(text: $0.text)) }  // through its text, as --after
        } while cursor != nil
        #expect(seen == ["bob/e1", "ann/e1"])

        #expect(try await store.deleteExpense(id: "e1", userID: "ann", rewrite: .skipped) != nil)
        #expect(try await store.expense(id: "e1", userID: "ann") == nil)
        #expect(try await store.expense(id: "e1", userID: "bob")?.expense.amount.minorUnits == 101)
        // Ann's own id is still hers to refuse once stored again.
        _ = try await store.addExpense(Self.expense("e1", user: "ann", minor: 201), remindAt: nil)
        #expect(await EditingContractTests.error { _ = try await store.addExpense(Self.expense("e1", user: "ann", minor: 5), remindAt: nil) }
            == .invalid(field: "id", reason: "e1 is taken"))
    }

    /// A cursor keeps the last row's user; one written before (instant and id) still reads.
    @Test func cursorsCarryTheUser() throws {
        let c = ExpenseCursor(occurredMilliseconds: 1_746_169_200_000, id: "e/1+", userID: "Zoë")
        #expect(ExpenseCursor(text: c.text) == c)
        let old = try #require(ExpenseCursor(text: "m9w3r5c0.ZTE"))
        #expect(old.id == "e1" && old.userID == "")
        #expect(ExpenseCursor(text: "m9w3r5c0.ZTE.") == nil)
    }

    /// PostgreSQL's schema had `UNIQUE (id, user_id)` from v1 (a partitioned table's unique key
    /// holds the partition key); only the writer kept ids unique across users. So a server with
    /// rows (written here by SQL, as any earlier GeoSpend left them) needs no migration: reopened,
    /// it keeps every row and takes another user's rows of the same ids.
    @Test func aPostgreSQLServerWithRowsTakesAnotherUsersSameIDs() async throws {
        guard let address = PostGISTestServer.address else {
            #expect(!PostGISTestServer.isRequired, "GEOSPEND_TEST_POSTGRES is not set")
            return
        }
        let name = try PostGISTestServer.newDatabase()
        let first = try await PostGISStore(address.with(database: name))
        await first.close()
        let bobs = (1...3).map { Self.expense("e\($0)", user: "bob", minor: 100 + Int64($0)) }
        try PostGISTestServer.psql("INSERT INTO users (id) VALUES ('bob')", database: name)
        for e in bobs {
            try PostGISTestServer.psql("""
                INSERT INTO expenses (id, user_id, kind, amount_minor, currency, occurred_at, occurred_ms, local_date, merchant, lat, lon, content_hash)
                VALUES ('\(e.id)', 'bob', 'expense', \(e.amount.minorUnits), 'EUR', '\(e.occurredAt.text)', \(e.occurredAt.epochMilliseconds),
                    '\(e.occurredAt.localDate)', 'Kahvila', 60.17, 24.94, \(e.contentHash))
                """, database: name)
        }
        let store = try await PostGISStore(address.with(database: name))  // migrates: nothing to do
        #expect(try await Self.insert(bobs, into: store) == [.unchanged, .unchanged, .unchanged])
        let anns = (1...3).map { Self.expense("e\($0)", user: "ann", minor: 200 + Int64($0)) }
        #expect(try await Self.insert(anns, into: store) == [.inserted, .inserted, .inserted])
        #expect(try await Self.amounts(of: "bob", in: store) == ["e1": 101, "e2": 102, "e3": 103])
        #expect(try await Self.amounts(of: "ann", in: store) == ["e1": 201, "e2": 202, "e3": 203])
        await store.close()
    }

    /// Migration v17 on a v16 file with rows: every row kept with its pk, the R*Tree, indexes and
    /// triggers as they were, then two users can hold the same id.
    @Test func aVersion16FileGetsPerUserIDs() throws {
        let scratch = Scratch()
        let path = scratch.path("v16.sqlite")
        let old = (1...50).map { Self.expense("e\($0)", user: $0 % 2 == 0 ? "ann" : "bob", minor: Int64($0)) }
        let before = try OlderFile.make(at: path, before: "v17") { db -> (rows: [Row], objects: [String]) in
            try db.execute(sql: "INSERT INTO users (id) VALUES ('ann'), ('bob')")
            for e in old {
                let c = e.location!.coordinate
                try db.execute(
                    sql: """
                        INSERT INTO expenses (id, user_id, kind, amount_minor, currency, occurred_at, occurred_ms, local_date,
                            merchant, lat, lon, content_hash, geom)
                        VALUES (?, ?, 'expense', ?, 'EUR', ?, ?, ?, ?, ?, ?, ?, MakePoint(?, ?, 4326))
                        """,
                    arguments: [
                        e.id, e.userID, e.amount.minorUnits, e.occurredAt.text, e.occurredAt.epochMilliseconds, e.occurredAt.localDate,
                        e.merchant, c.latitude, c.longitude, e.contentHash, c.longitude, c.latitude,
                    ])
            }
            try db.execute(sql: "DELETE FROM expenses WHERE id = 'e7'")  // a gap in the pks
            return (
                try Row.fetchAll(db, sql: "SELECT pk, id, user_id, amount_minor FROM expenses ORDER BY pk"),
                try String.fetchAll(db, sql: "SELECT type || ' ' || name FROM sqlite_master WHERE tbl_name = 'expenses' AND sql IS NOT NULL ORDER BY 1"))
        }
        let store = try SpatiaLiteStore(path: path)  // migrates
        let after = try store.readDatabase { db in
            (rows: try Row.fetchAll(db, sql: "SELECT pk, id, user_id, amount_minor FROM expenses ORDER BY pk"),
             objects: try String.fetchAll(db, sql: "SELECT type || ' ' || name FROM sqlite_master WHERE tbl_name = 'expenses' AND sql IS NOT NULL ORDER BY 1"),
             integrity: try String.fetchAll(db, sql: "PRAGMA integrity_check"),
             unique: try String.fetchAll(db, sql: """
                SELECT group_concat(i.name, ',') FROM pragma_index_list('expenses') AS l, pragma_index_info(l.name) AS i
                WHERE l."unique" = 1 GROUP BY l.name
                """))
        }
        #expect(before.rows.count == 49)
        #expect(after.rows == before.rows)
        #expect(after.objects == before.objects)
        #expect(before.objects.contains("index expenses_user_time") && before.objects.contains { $0.hasPrefix("trigger ") })
        #expect(after.integrity == ["ok"])
        // SpatiaLite's own check of the R*Tree against the rows (it writes its verdict: a write).
        #expect(try store.pool.write { db in try Int.fetchOne(db, sql: "SELECT CheckSpatialIndex('expenses', 'geom')") } == 1)
        #expect(after.unique == ["user_id,id"])
        // The R*Tree still finds every row by position.
        let near = try store.readHere { r in
            try r.expenses(within: .meters(100), of: Coordinate(uncheckedLatitude: 60.17, longitude: 24.94), filter: ExpenseFilter(userID: nil))
        }
        #expect(near.count == 49)

        // Bob's e2 goes in beside Ann's e2; each user's re-import is unchanged.
        let outcomes = try store.writeHere { w in
            [try w.insert(Self.expense("e2", user: "bob", minor: 77)), try w.insert(old[0]), try w.insert(old[1])]
        }
        #expect(outcomes == [.inserted, .unchanged, .unchanged])
        let e2 = try store.readHere { try $0.spendingPoints(ExpenseFilter(userID: nil)) }.filter { $0.id == "e2" }.map(\.amountMinor).sorted()
        #expect(e2 == [2, 77])
    }
}
