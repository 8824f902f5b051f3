import Foundation
import GeoSpend
import GeoSpendTestStores
import Testing

/// Importing again on every store (issue 37 §3): `--update` rewrites a stored id whose content
/// changed and keeps what the store holds right (totals per currency, the spatial index, the map
/// rollups); a transaction stored under another id is left out (`DuplicateCheck`), one stored
/// row for one new row, and never the row that arrives under its own id.
@Suite struct ImportAgainContractTests {
    static let header = "id,user,kind,amount,currency,occurred_at,title,merchant,lat,lon\n"
    static let p1 = (60.1700, 24.9400), p3 = (60.1800, 24.9500), p3moved = (60.1650, 24.9300)

    static let first = header + """
        e1,ann,expense,4.50,EUR,2025-04-01T08:12:00+03:00,Coffee,Roberts Coffee,\(p1.0),\(p1.1)
        e2,ann,expense,12.90,EUR,2025-04-01T12:45:00+03:00,Lunch,Kahvila Sapa,\(p1.0),\(p1.1)
        e3,ann,expense,38.47,EUR,2025-04-02T17:00:00+03:00,Groceries,K-Citymarket,\(p3.0),\(p3.1)
        e4,ann,expense,10.00,EUR,2025-04-03T09:00:00+03:00,Ticket,HSL,,
        e1,bob,expense,7.00,EUR,2025-04-01T09:00:00+03:00,Coffee,Fazer Cafe,\(p1.0),\(p1.1)

        """

    /// e1 costs more, e2 lost its position in the file (the stored one stays), e3 moved, e4 is in
    /// SEK now; e5 is new; bob's e1 is as before.
    static let second = header + """
        e1,ann,expense,4.80,EUR,2025-04-01T08:12:00+03:00,Coffee,Roberts Coffee,\(p1.0),\(p1.1)
        e2,ann,expense,12.90,EUR,2025-04-01T12:45:00+03:00,Lunch with Matti,Kahvila Sapa,,
        e3,ann,expense,38.47,EUR,2025-04-02T17:00:00+03:00,Groceries,K-Citymarket,\(p3moved.0),\(p3moved.1)
        e4,ann,expense,110.00,SEK,2025-04-03T09:00:00+03:00,Ticket,SJ,,
        e5,ann,expense,3.10,EUR,2025-04-04T09:00:00+03:00,Ticket,HSL,,
        e1,bob,expense,7.00,EUR,2025-04-01T09:00:00+03:00,Coffee,Fazer Cafe,\(p1.0),\(p1.1)

        """

    @Test(arguments: StoreKind.allCases)
    func updateRewritesChangedRows(kind: StoreKind) async throws {
        let scratch = Scratch()
        let store = try await kind.make(in: scratch)
        let a = scratch.file("a.csv", Self.first), b = scratch.file("b.csv", Self.second)
        _ = try await Importer.importExpenses(from: a, into: store)

        // Without --update: refused whole, the reason names the option.
        do {
            _ = try await Importer.importExpenses(from: b, into: store)
            Issue.record("changed rows were accepted")
        } catch ImportError.rejected(let errors, let bad) {
            #expect(bad == 4)
            #expect(errors.allSatisfy { $0.column == "id" && $0.reason.contains("--update") }, "\(errors)")
        }
        #expect(try await store.read { try $0.counts() }.expenses == 5)

        let report = try await Importer.importExpenses(from: b, into: store, options: ImportOptions(updatesChanged: true))
        #expect(report.updated == 4 && report.inserted == 1 && report.unchanged == 1 && report.duplicates == 0)
        #expect(report.updatedIDs == ["e1", "e2", "e3", "e4"])

        let (points, hereNow, hereBefore) = try await store.read { r in
            (try r.spendingPoints(ExpenseFilter(userID: "ann")),
             try r.expenses(within: Distance(meters: 50), of: Coordinate(uncheckedLatitude: Self.p3moved.0, longitude: Self.p3moved.1), filter: ExpenseFilter(userID: "ann")),
             try r.expenses(within: Distance(meters: 50), of: Coordinate(uncheckedLatitude: Self.p3.0, longitude: Self.p3.1), filter: ExpenseFilter(userID: "ann")))
        }
        let byID = Dictionary(uniqueKeysWithValues: points.map { ($0.id, $0) })
        #expect(byID["e1"]?.amountMinor == 480)
        #expect(byID["e2"]?.coordinate == Coordinate(uncheckedLatitude: Self.p1.0, longitude: Self.p1.1), "a position the file leaves out stays")
        #expect(byID["e4"]?.currency.code == "SEK" && byID["e4"]?.amountMinor == 11000)
        #expect(hereNow.map(\.expense.id) == ["e3"] && hereBefore.isEmpty, "the spatial index follows the moved point")
        // Totals per currency: what the store sums is what the file says now.
        let totals = try await store.read { r in try r.spendingPoints(ExpenseFilter(userID: nil)) }
            .reduce(into: [String: Int64]()) { $0[$1.currency.code, default: 0] += $1.amountMinor }
        #expect(totals == ["EUR": 480 + 1290 + 3847 + 310 + 700, "SEK": 11000])
        try await Self.expectRollupsMatchTheRows(store)

        // The same file again changes nothing.
        let again = try await Importer.importExpenses(from: b, into: store, options: ImportOptions(updatesChanged: true))
        #expect(again.unchanged == 6 && again.updated == 0 && again.inserted == 0)
    }

    /// Rows of the same transactions under other ids (another format's) are left out; each
    /// stored row stands for one new row; `allowsDuplicates` writes them.
    @Test(arguments: StoreKind.allCases)
    func transactionsStoredUnderOtherIDsAreLeftOut(kind: StoreKind) async throws {
        let scratch = Scratch()
        let store = try await kind.make(in: scratch)
        let h = "id,user,kind,amount,currency,occurred_at,title,merchant\n"
        _ = try await Importer.importExpenses(from: scratch.file("ofx.csv", h + """
            ofx-1,ann,expense,4.50,EUR,2025-04-01T08:12:00+02:00,,ROBERTS COFFEE FRANKFURT
            ofx-2,ann,expense,4.50,EUR,2025-04-01T08:40:00+02:00,,ROBERTS COFFEE FRANKFURT
            ofx-3,ann,expense,38.15,EUR,2025-04-02,,EDEKA HIEBER
            ofx-4,ann,income,2740.00,EUR,2025-04-04,ACME GMBH,

            """), into: store)
        // Another format of the same statement: other ids, times and spellings; one row more
        // (a third coffee), a coffee at another café, and bob's coffee of the same day and price.
        let qif = scratch.file("qif.csv", h + """
            q1,ann,expense,4.50,EUR,2025-04-01,Card purchase,Roberts Coffee
            q2,ann,expense,4.50,EUR,2025-04-01,Card purchase,Roberts Coffee
            q3,ann,expense,4.50,EUR,2025-04-01,Card purchase,Roberts Coffee
            q4,ann,expense,4.50,EUR,2025-04-01,Card purchase,Fazer Cafe
            q5,ann,expense,38.15,EUR,2025-04-02,,Edeka Hieber
            q6,ann,transfer,2740.00,EUR,2025-04-04,Acme GmbH,
            q7,bob,expense,4.50,EUR,2025-04-01,,Roberts Coffee

            """)
        let report = try await Importer.importExpenses(from: qif, into: store)
        #expect(report.duplicates == 4 && report.inserted == 3, "\(report)")
        #expect(report.duplicateNotes.map(\.id) == ["q1", "q2", "q5", "q6"])
        #expect(report.duplicateNotes.map(\.storedID) == ["ofx-1", "ofx-2", "ofx-3", "ofx-4"])
        #expect(report.duplicateNotes.map(\.location) == ["2", "3", "6", "7"])
        #expect(try await store.read { try $0.counts() }.expenses == 7)

        // A file that holds a stored row under its own id after a new row of the same
        // transaction: the stored row is its own, the new row is new (given back in `settle`).
        let mixed = try await Importer.importExpenses(from: scratch.file("mixed.csv", h + """
            m1,ann,expense,38.15,EUR,2025-04-02,,EDEKA HIEBER
            ofx-3,ann,expense,38.15,EUR,2025-04-02,,EDEKA HIEBER

            """), into: store)
        #expect(mixed.inserted == 1 && mixed.unchanged == 1 && mixed.duplicates == 0 && mixed.duplicateNotes.isEmpty, "\(mixed)")
        // …and when the stored row comes first, the new one does not take it either.
        let claimed = try await Importer.importExpenses(from: scratch.file("claimed.csv", h + """
            ofx-4,ann,income,2740.00,EUR,2025-04-04,ACME GMBH,
            n1,ann,income,2740.00,EUR,2025-04-04,Acme GmbH,

            """), into: store)
        #expect(claimed.inserted == 1 && claimed.unchanged == 1 && claimed.duplicates == 0, "\(claimed)")

        let kept = try await Importer.importExpenses(from: qif, into: store, options: ImportOptions(allowsDuplicates: true))
        #expect(kept.inserted == 4 && kept.unchanged == 3 && kept.duplicates == 0)
        #expect(try await store.read { try $0.counts() }.expenses == 13)
    }

    /// Every rollup row adds up to the located rows of its cell (H3 8), where the store keeps rollups.
    static func expectRollupsMatchTheRows(_ store: some ExpenseStore) async throws {
        let level = MapRollup.Level.h3(8)
        let (kept, rolled, points) = try await store.read { r in
            var sums: [Int64: (Int, Int64)] = [:]
            let kept = try r.forEachMapRollup(level, ExpenseFilter(userID: nil)) { row in
                let s = sums[row.cell] ?? (0, 0)
                sums[row.cell] = (s.0 + row.count, s.1 + row.totalMinor)
            }
            return (kept, sums, try r.spendingPoints(ExpenseFilter(userID: nil)))
        }
        guard kept else { return }
        var expected: [Int64: (Int, Int64)] = [:]
        for p in points {
            guard let c = p.coordinate else { continue }
            let cell = MapRollup.cell(latitude: c.latitude, longitude: c.longitude, at: level)
            let s = expected[cell] ?? (0, 0)
            expected[cell] = (s.0 + 1, s.1 + p.amountMinor)
        }
        #expect(rolled.keys.sorted() == expected.keys.sorted())
        for (cell, s) in expected { #expect(rolled[cell]?.0 == s.0 && rolled[cell]?.1 == s.1, "cell \(cell)") }
    }
}
