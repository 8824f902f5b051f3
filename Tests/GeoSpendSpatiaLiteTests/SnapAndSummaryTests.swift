import Foundation
import GeoSpend
import GeoSpendSpatiaLite
import Testing

@Suite struct SnappingTests {
    // Positions placed with Karney's direct problem from P, so the distances are known exactly.
    static let p = Coordinate(uncheckedLatitude: 60.17, longitude: 24.94)
    static func at(_ azimuth: Double, _ metres: Double, from c: Coordinate = p) -> Coordinate {
        Geodesic.destination(from: c, azimuth: azimuth, distance: metres)
    }

    @Test func assignsByNameNearestAndLeavesAmbiguousAndFarAlone() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let q = Self.at(0, 1000)  // 1 km north: two stores 1 m apart
        let stores: [(String, String, Coordinate)] = [
            ("A", "Café Ekberg", Self.p), ("B", "Kiosk", Self.at(90, 20)), ("C", "Cafe Ekberg", Self.at(180, 400)),
            ("D", "Deli", Self.at(0, 30, from: q)), ("E", "Eatery", Self.at(0, 31, from: q)),
        ]
        _ = try await Importer.importStores(
            from: scratch.file("s.csv", "id,name,lat,lon\n" + stores.map { "\($0.0),\($0.1),\($0.2.latitude),\($0.2.longitude)" }.joined(separator: "\n") + "\n"),
            into: store)
        func row(_ id: String, _ c: Coordinate, merchant: String = "", accuracy: String = "", storeID: String = "") async -> String {
            "\(id),ann,1.00,EUR,2025-03-01,\(c.latitude),\(c.longitude),\(merchant),\(accuracy),\(storeID)"
        }
        let x2 = Self.at(90, 12)  // 12 m from A, 8 m from B
        let rows = await [
            row("x1", Self.at(90, 15), merchant: "CAFE EKBERG"),  // B is nearer (5 m), but the name says A (15 m)
            row("x2", x2),
            row("x3", Self.at(0, 10, from: q)),  // 20 m from D, 21 m from E: within 3 m → ambiguous
            row("x4", Self.at(270, 5000)),
            row("x5", Self.at(180, 700), accuracy: "350"),  // C is 300 m away, within its accuracy
            row("x6", Self.p, storeID: "B"),  // already linked: untouched
        ]
        _ = try await Importer.importExpenses(
            from: scratch.file("e.csv", "id,user,amount,currency,occurred_at,lat,lon,merchant,accuracy_m,store_id\n" + rows.joined(separator: "\n") + "\n"),
            into: store)

        let plan = try await Snapping.plan(SnapRequest(), store: store)
        let assigned = Dictionary(uniqueKeysWithValues: plan.assigned.map { ($0.expenseID, $0) })
        #expect(assigned["x1"]?.store.id == "A" && assigned["x1"]?.byMerchantName == true)
        #expect(abs(assigned["x1"]!.distanceMeters - 15) < 0.001)
        #expect(assigned["x2"]?.store.id == "B" && assigned["x2"]?.byMerchantName == false)
        #expect(abs(assigned["x2"]!.distanceMeters - Geodesic.distance(x2, stores[1].2)) < 1e-9)
        #expect(assigned["x5"]?.store.id == "C")
        #expect(plan.ambiguous.map(\.expenseID) == ["x3"])
        #expect(plan.ambiguous[0].candidates.map(\.store.id) == ["D", "E"])
        #expect(plan.unmatched.map(\.expenseID) == ["x4"])
        #expect(assigned["x6"] == nil)

        #expect(try await Snapping.apply(plan, to: store) == 3)
        #expect(try store.column("SELECT id || '=' || store_id FROM expenses WHERE store_id IS NOT NULL ORDER BY id") == ["x1=A", "x2=B", "x5=C", "x6=B"])
        // Idempotent: nothing left to assign but the ambiguous and the far one.
        let again = try await Snapping.plan(SnapRequest(), store: store)
        #expect(again.assigned.isEmpty && again.ambiguous.count == 1 && again.unmatched.count == 1)
        #expect(try await Snapping.apply(again, to: store) == 0)
    }

    @Test func namesCompareWithoutCaseAndAccents() {
        #expect(Snapping.normalizedName(" Café ÄLÄKÄ ") == Snapping.normalizedName("cafe alaka"))
        #expect(Snapping.normalizedName("Kiosk") != Snapping.normalizedName("Kiosko"))
        // The ASCII fast path gives what Foundation's folding gives.
        for name in ["  R-Kioski Kamppi\t", "ALEPA 24/7", "S-Market @ Itis (2)", "\nMcDonald's ", "", "   "] {
            #expect(Snapping.normalizedName(name) == name.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
                .trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }
}

@Suite struct SummaryTests {
    @Test func incomeExpensesBalanceAndTransfersPerCurrency() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        _ = try await Importer.importExpenses(
            from: scratch.file(
                "e.csv",
                """
                user,kind,amount,currency,occurred_at
                ann,income,2500.00,EUR,2025-03-25
                ann,expense,12.50,EUR,2025-03-01T00:30:00+02:00
                ann,expense,7.45,EUR,2025-03-31T23:59:00+02:00
                ann,transfer,100.00,EUR,2025-03-10
                ann,expense,1500,JPY,2025-03-15T12:00:00+09:00
                ann,expense,99.00,EUR,2025-04-01T00:00:00+02:00
                ann,expense,5.00,EUR,2025-02-28T23:59:59+02:00
                bob,expense,1.00,EUR,2025-03-05

                """),
            into: store)
        let m = try SpendingSummary.month("2025-03")
        let s = try await SpendingSummary.compute(userID: "ann", from: m.from, to: m.to, store: store)
        #expect(s.lines.map(\.currency.code) == ["EUR", "JPY"])
        let eur = s.lines[0]
        #expect(eur.income.total.decimalString == "2500.00" && eur.expenses.total.decimalString == "19.95")
        #expect(eur.balance.decimalString == "2480.05")
        #expect(eur.transfers.total.decimalString == "100.00" && eur.transfers.count == 1)
        #expect(s.lines[1].balance.decimalString == "-1500")
        #expect(throws: ValueError.self) { try SpendingSummary.month("2025-13") }
        #expect(try SpendingSummary.month("2024-02").to.text == "2024-02-29")
    }
}
