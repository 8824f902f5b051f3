import Foundation
import GRDB
import GeoSpend
@testable import GeoSpendSpatiaLite
import GeoSpendTestStores
import Testing

/// Issue 38, MONO's defaults: `import expenses --preset mono` reads MONO's Core Data fields
/// (L43–57) from CSV and JSON alike, latitude 0 with longitude 0 is no position; the default
/// categories carry icons and named colours, for new users and (migration v28) existing ones.
/// The fixtures, Data/examples/mono.csv and mono.json, were written for these tests from the
/// entity's field list: the same six transactions in both.
@Suite struct MonoDefaultsTests {
    typealias Kind = PositionStoreContractTests.Kind

    static func source() -> ExpenseSource {
        var source = ExpenseSource()
        source.preset = .mono
        source.conversions.user = "alice"
        source.conversions.currency = "EUR"
        return source
    }

    /// What the test compares of a stored expense, with its instant instead of its text.
    static func summary(_ e: Expense) -> String {
        let place = e.location.map { "\($0.coordinate.latitude),\($0.coordinate.longitude)" } ?? "none"
        return [e.title ?? "-", e.kind.rawValue, e.amount.decimalString, e.amount.currency.code, String(e.occurredAt.epochMilliseconds),
                e.category ?? "-", e.merchant ?? "-", place, e.notes ?? "-"].joined(separator: "|")
    }

    @Test func csvAndJSONGiveTheSameExpenses() async throws {
        let scratch = Scratch()
        var seen: [[String]] = []
        for file in ["Data/examples/mono.csv", "Data/examples/mono.json"] {
            let store = try scratch.store(file.hasSuffix("csv") ? "csv.sqlite" : "json.sqlite")
            let report = try await Importer.importExpenses(from: Repo.path(file), source: Self.source(), into: store)
            #expect(report.inserted == 6 && report.rejected == 0, "\(file)")
            let stored = try await store.expensePage(ExpenseFilter(userID: "alice"), after: nil, limit: 100).expenses.map(\.expense)
            seen.append(stored.map(Self.summary).sorted())
            let byTitle = Dictionary(uniqueKeysWithValues: stored.map { ($0.title ?? "", $0) })
            // Latitude 0 and longitude 0 together: no position (Core Data's unset Doubles).
            for title in ["Salary", "Rent", "To savings"] { #expect(byTitle[title]?.location == nil, "\(file): \(title)") }
            // One of them 0 is a real place on the equator or the prime meridian.
            #expect(byTitle["Boat ticket"]?.location?.coordinate == Coordinate(uncheckedLatitude: 0, longitude: 9.5))
            #expect(byTitle["Coffee"]?.location?.coordinate == Coordinate(uncheckedLatitude: 60.1712, longitude: 24.9413))
            #expect(byTitle["Coffee"]?.merchant == "Robert's Coffee" && byTitle["Coffee"]?.category == "Food")
            #expect(byTitle["Salary"]?.kind == .income && byTitle["To savings"]?.kind == .transfer && byTitle["Rent"]?.kind == .expense)
            #expect(byTitle["Rent"]?.notes == "reminder: 2025-03-28T09:00:00+02:00", "\(file): reminderDate kept in the notes")
            #expect(byTitle["Rent"]?.amount.minorUnits == 95_000 && byTitle["Boat ticket"]?.amount.minorUnits == 320)
            // 2025-03-01 08:15:00 +0200 (Date's description) and 762502500 s after 2001-01-01 UTC
            // are both 2025-03-01T06:15:00Z: 1740809700 s after 1970.
            #expect(byTitle["Coffee"]?.occurredAt.epochMilliseconds == 1_740_809_700_000)
        }
        #expect(seen.count == 2 && seen[0] == seen[1], "the CSV and the JSON fixture hold the same transactions")
    }

    @Test func aBadMonoRowNamesItsColumn() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let csv = scratch.file("mono.csv", """
            name,amount,type,category,date,location,latitude,longitude,notes,reminderDate
            Coffee,4.50,expense,Food,2025-03-01,,0,0,,
            Gift,10,present,,2025-03-02,,0,0,,
            Far,1,expense,,2025-03-03,,95,0,,

            """)
        let error = await #expect(throws: ImportError.self) { try await Importer.importExpenses(from: csv, source: Self.source(), into: store) }
        guard case .rejected(let errors, _)? = error else { Issue.record("not a rejection: \(String(describing: error))"); return }
        #expect(errors.map { "\($0.location):\($0.column)" } == ["3:type", "4:latitude"])
        #expect(errors[0].reason.contains("is not a MONO type (expense, income, transfer)"))
        let json = scratch.file("mono.json", #"[{"name": "x", "amount": 1, "date": "2025-03-01"}, {"name": "y", "amount": [1], "date": "2025-03-01"}]"#)
        let bad = await #expect(throws: ImportError.self) { try await Importer.importExpenses(from: json, source: Self.source(), into: store) }
        guard case .rejected(let jsonErrors, _)? = bad else { Issue.record("not a rejection"); return }
        #expect(jsonErrors.map { "\($0.location):\($0.column)" } == ["item 2:amount"])
        #expect(try await store.expensePage(ExpenseFilter(userID: "alice"), after: nil, limit: 100).expenses.isEmpty, "all or nothing")
    }

    @Test(arguments: Kind.allCases)
    func newUsersDefaultCategoriesHaveIconsAndNamedColours(kind: Kind) async throws {
        let scratch = Scratch()
        let store: any ExpenseChanges.Store
        switch kind {
        case .spatiaLite: store = try scratch.store()
        case .postGIS: store = try await PostGISTestServer.freshStore()
        }
        // One user made by an import (the bulk writer), one by `expenses add` (the editing path).
        let csv = scratch.file("e.csv", "id,user,amount,currency,occurred_at\ne1,ann,1.00,EUR,2025-03-01\n")
        _ = try await Importer.importExpenses(from: csv, into: store)
        _ = try await ExpenseChanges.add(try ExpenseChanges.new(["amount": "1", "currency": "EUR", "occurred_at": "2025-03-01"], user: "bob", remindAt: nil).0,
                                         remindAt: nil, store: store)
        let named = Set(CategoryFields.namedColors.values)
        for user in ["ann", "bob"] {
            let defaults = try await store.categoryDetails(userID: user, includeInactive: true).filter(\.isDefault)
            #expect(defaults.count == Category.defaults.count)
            for d in defaults {
                let look = try #require(Category.defaultLooks[d.category], "\(d.category)")
                #expect(d.icon == look.icon && d.color == look.color, "\(user) \(d.category.name)")
                #expect(named.contains(d.color ?? ""), "a MONO named colour: \(d.category.name)")
            }
        }
        #expect(Category.defaultLooks.count == Category.defaults.count)
        #expect(Category.defaultLooks[Category(name: "Food", kind: .expense)]! == ("fork.knife", "#FF9500"))
    }

    @Test func migrationV28GivesExistingDefaultsTheirLooks() async throws {
        let scratch = Scratch()
        let path = scratch.path("old.sqlite")
        try OlderFile.make(at: path, before: "v28") { db in
            try db.execute(sql: "INSERT INTO users (id) VALUES ('ann')")
            for c in GeoSpend.Category.defaults {
                try db.execute(sql: "INSERT INTO categories (user_id, kind, name, is_default) VALUES ('ann', ?, ?, 1)", arguments: [c.kind.rawValue, c.name])
            }
            try db.execute(sql: "UPDATE categories SET color = '#123456' WHERE name = 'Food'")  // the user's own colour
            try db.execute(sql: "INSERT INTO categories (user_id, kind, name) VALUES ('ann', 'expense', 'Coffee')")
        }
        let store = try SpatiaLiteStore(path: path)
        let details = try await store.categoryDetails(userID: "ann", includeInactive: true)
        for d in details where d.isDefault && d.category.name != "Food" {
            #expect(d.icon == Category.defaultLooks[d.category]?.icon && d.color == Category.defaultLooks[d.category]?.color, "\(d.category)")
        }
        let food = try #require(details.first { $0.category == Category(name: "Food", kind: .expense) })
        #expect(food.icon == nil && food.color == "#123456", "a default the user coloured keeps its look")
        let coffee = try #require(details.first { $0.category.name == "Coffee" })
        #expect(coffee.icon == nil && coffee.color == nil, "not a default")
    }

    /// A transfer category kind: transfers take transfer categories, which no budget and no
    /// spending total counts; an expense category on a transfer is refused by name.
    @Test(arguments: Kind.allCases)
    func transfersTakeTransferCategories(kind: Kind) async throws {
        let scratch = Scratch()
        let store: any ExpenseChanges.Store & BudgetStore
        switch kind {
        case .spatiaLite: store = try scratch.store()
        case .postGIS: store = try await PostGISTestServer.freshStore()
        }
        let csv = scratch.file("t.csv", """
            id,user,kind,amount,currency,occurred_at,category
            e1,ann,expense,10.00,EUR,2025-03-02,Food
            t1,ann,transfer,200.00,EUR,2025-03-03,Savings
            t2,ann,transfer,5.00,EUR,2025-03-04,Food

            """)
        _ = try await Importer.importExpenses(from: csv, into: store)
        let categories = try await store.categoryDetails(userID: "ann", includeInactive: true)
        #expect(categories.filter { $0.category.name == "Savings" }.map(\.category.kind) == [.transfer])
        #expect(Set(categories.filter { $0.category.name == "Food" }.map(\.category.kind)) == [.expense, .transfer])
        #expect(categories.first { $0.category == Category(name: "Food", kind: .transfer) }?.expenses == 1)
        #expect(categories.first { $0.category == Category(name: "Food", kind: .expense) }?.expenses == 1)
        // A budget on Food counts the expense only: 10.00 of the 15.00 "Food".
        let budget = try await BudgetFields.new(
            user: "ann", name: "Food", amount: "100", currency: "EUR", from: "2025-03-01", to: "2025-03-31", category: "Food",
            every: nil, limits: [], zone: { nil }, store: store)
        let summary = try await BudgetFields.summary(budget, asOf: try LocalDay(parsing: "2025-03-31"), store: store)
        #expect(summary.spentMinor == 1000 && summary.count == 1)
        // expenses add: a transfer category for a transfer; an expense category is refused.
        let (transfer, _) = try ExpenseChanges.new(
            ["kind": "transfer", "amount": "50", "currency": "EUR", "occurred_at": "2025-03-05", "category": "savings"], user: "ann", remindAt: nil)
        #expect(try await ExpenseChanges.add(transfer, remindAt: nil, store: store).stored.expense.category != nil)
        let (wrong, _) = try ExpenseChanges.new(
            ["kind": "transfer", "amount": "50", "currency": "EUR", "occurred_at": "2025-03-05", "category": "Bills"], user: "ann", remindAt: nil)
        let error = await #expect(throws: UsageError.self) { try await ExpenseChanges.add(wrong, remindAt: nil, store: store) }
        #expect(error?.message.contains("\"Bills\" is an expense category, not a transfer one") == true, "\(String(describing: error))")
        _ = try await store.addCategory(Category(name: "Gift", kind: .transfer), userID: "ann", icon: nil, color: "green")
        #expect(try await store.categoryDetails(userID: "ann", includeInactive: false).contains { $0.category == Category(name: "Gift", kind: .transfer) })
    }

    /// Upgrading (v28): a transfer stored on an expense category moves to the transfer category
    /// of the same name, made for it; expenses keep theirs.
    @Test func migrationV28MovesTransfersToTransferCategories() async throws {
        let scratch = Scratch()
        do {
            let store = try scratch.store()
            let csv = scratch.file("t.csv", """
                id,user,kind,amount,currency,occurred_at,category
                e1,ann,expense,10.00,EUR,2025-03-02,Food
                t1,ann,transfer,5.00,EUR,2025-03-04,Savings

                """)
            _ = try await Importer.importExpenses(from: csv, into: store)
            // Back to what v27 left: the transfer on an expense category, v28 not recorded.
            try await store.writeTransaction { db in
                try db.execute(sql: """
                    INSERT INTO categories (user_id, kind, name) VALUES ('ann', 'expense', 'Savings');
                    UPDATE expenses SET category_id = (SELECT id FROM categories WHERE kind = 'expense' AND name = 'Savings') WHERE id = 't1';
                    DELETE FROM categories WHERE kind = 'transfer';
                    DELETE FROM grdb_migrations WHERE identifier LIKE 'v28:%';
                    """)
            }
            #expect(try store.scalar("SELECT c.kind FROM expenses AS e JOIN categories AS c ON c.id = e.category_id WHERE e.id = 't1'", as: String.self) == "expense")
        }
        let store = try scratch.store()
        #expect(try store.scalar("SELECT c.kind || ':' || c.name FROM expenses AS e JOIN categories AS c ON c.id = e.category_id WHERE e.id = 't1'", as: String.self)
            == "transfer:Savings")
        #expect(try store.scalar("SELECT c.kind || ':' || c.name FROM expenses AS e JOIN categories AS c ON c.id = e.category_id WHERE e.id = 'e1'", as: String.self)
            == "expense:Food")
        #expect(try store.scalar("SELECT sql LIKE '%''transfer''%' FROM sqlite_master WHERE name = 'categories'") == 1)
    }
}
