import Foundation
import GeoSpend
import GeoSpendTestStores
import Testing

/// Per-budget thresholds (issue 39) on the file, the memory store and PostgreSQL: kept and read back as given
/// (sorted, once each), carried by `users export`, and the only percentages that raise events —
/// each once per window however often it is crossed, also when the thresholds change. A geotag
/// run's `geotag.review_waiting` goes in with the placements' transaction and honours the
/// user's choice of events.
@Suite struct BudgetThresholdContractTests {
    typealias Kind = NotificationContractTests.Kind
    typealias N = NotificationContractTests

    @Test(arguments: Kind.allCases)
    func aBudgetsOwnThresholdsRaiseItsEventsOnce(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await N.fresh(kind, scratch)
        _ = try await store.addExpense(try N.expense("first", "1.00", day: "2026-02-01"), remindAt: nil)
        var budget = Budget(
            userID: "ann", name: "Groceries", amount: Money(minorUnits: 10_000, currency: N.eur), from: try LocalDay(parsing: "2026-03-01"),
            to: try LocalDay(parsing: "2026-12-31"), every: .month, thresholds: [50, 120])
        budget = try #require(try await store.saveBudget(budget)?.budget)
        #expect(try await store.budget(id: budget.id, userID: "ann")?.thresholds == [50, 120])
        #expect(try await store.budgets(userID: "ann", includeInactive: true).map(\.thresholds) == [[50, 120]])

        _ = try await store.addExpense(try N.expense("a", "55.00"), remindAt: nil)
        #expect(try await N.keys(store) == ["budget.threshold 50 2026-03-01"])
        _ = try await store.addExpense(try N.expense("b", "30.00"), remindAt: nil)
        #expect(try await N.keys(store) == ["budget.threshold 50 2026-03-01"], "85 %: no 80 % on this budget")
        // Down under 50 % and up again: 50 % was raised in March already.
        _ = try await store.updateExpense(try N.expense("a", "1.00"), remindAt: nil)
        _ = try await store.updateExpense(try N.expense("a", "55.00"), remindAt: nil)
        #expect(try await N.keys(store) == ["budget.threshold 50 2026-03-01"])

        // New thresholds: the one already reached is raised by the next write, 50 % never again.
        budget.thresholds = [50, 60, 120]
        #expect(try await store.saveBudget(budget)?.budget.thresholds == [50, 60, 120])
        _ = try await store.addExpense(try N.expense("c", "1.00"), remindAt: nil)
        #expect(try await N.keys(store) == ["budget.threshold 50 2026-03-01", "budget.threshold 60 2026-03-01"])
        _ = try await store.addExpense(try N.expense("d", "40.00"), remindAt: nil)
        #expect(try await N.keys(store) == [
            "budget.threshold 50 2026-03-01", "budget.threshold 60 2026-03-01", "budget.threshold 120 2026-03-01",
        ])
        let over = try #require(try await store.notifications(userID: "ann", after: nil, limit: 100, unreadOnly: false).last)
        let data = try #require(try JSONSerialization.jsonObject(with: Data(over.payload.utf8)) as? [String: Any])
        #expect(data["level"] as? String == "exceeded" && data["threshold"] as? Int == 120 && data["percentage_used"] as? Double == 126)

        // users export carries them; a budget saved without any has the default.
        let exported = try #require(try await store.withUserData("ann") { try $0.budgets().map(\.thresholds) })
        #expect(exported == [[50, 60, 120]])
        let usd = Budget(
            userID: "ann", name: "Trip", amount: Money(minorUnits: 10_000, currency: try Currency(code: "USD")),
            from: try LocalDay(parsing: "2026-03-01"), to: try LocalDay(parsing: "2026-03-31"))
        let saved = try #require(try await store.saveBudget(usd))
        #expect(saved.deactivated.isEmpty && saved.budget.thresholds == [80, 100])
        #expect(try await store.budget(id: saved.budget.id, userID: "ann")?.thresholds == [80, 100])

        // A read scope hands out the same budgets and the expenses they count (`BudgetReader`:
        // what insights reads in its one snapshot).
        let (march, year) = (try LocalDay(parsing: "2026-03-01"), try LocalDay(parsing: "2026-12-31"))
        let inScope = try await store.read { r in
            (try r.budgets(userID: "ann", includeInactive: true), try r.budgets(userID: "ann", includeInactive: false),
             try r.budgetExpenses(userID: "ann", from: march, to: year), try r.budgets(userID: "bob", includeInactive: true))
        }
        #expect(inScope.0 == (try await store.budgets(userID: "ann", includeInactive: true)) && inScope.0.map(\.name) == ["Trip", "Groceries"])
        #expect(inScope.1 == (try await store.budgets(userID: "ann", includeInactive: false)))
        #expect(inScope.2 == (try await store.budgetExpenses(userID: "ann", from: march, to: year)))
        #expect(inScope.2.map(\.amountMinor) == [5_500, 3_000, 100, 4_000], "March's four, not February's \"first\"")
        #expect(inScope.3.isEmpty)
    }

    @Test(arguments: Kind.allCases)
    func aReviewEventCommitsWithThePlacementsAndHonoursTheSettings(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await N.fresh(kind, scratch)
        _ = try await store.addExpense(try N.expense("a1", "5.00"), remindAt: nil)
        let report = GeotagReport([
            .ambiguous(GeotagAmbiguity(id: "km2", candidates: [], evidence: "two branches")),
            .ambiguous(GeotagAmbiguity(id: "km1", candidates: [], evidence: "two branches")),
        ])
        let event = try #require(GeotagReviewEvent.event(report, userID: "ann"))
        let placement = ExpensePlacement(
            expenseID: "a1", location: ExpenseLocation(coordinate: Coordinate(uncheckedLatitude: 60.17, longitude: 24.93)), storeID: nil,
            source: .history, confidence: 0.9)
        #expect(try await store.place([placement], userID: "ann", events: [event]) == [true])
        let raised = try await store.notifications(userID: "ann", after: nil, limit: 100, unreadOnly: false)
            .filter { $0.type == NotificationType.geotagReviewWaiting }
        #expect(raised.map(\.payload) == [#"{"waiting":2,"expense_ids":["km1","km2"],"message":"2 expenses wait for your review (geospend geotag review)"}"#])
        // The same two waiting again (a run from cron): not raised again; with nothing placed too.
        #expect(try await store.place([], userID: "ann", events: [event]) == [])
        let third = try #require(GeotagReviewEvent.event(
            GeotagReport([.ambiguous(GeotagAmbiguity(id: "km3", candidates: [], evidence: ""))]), userID: "ann"))
        #expect(try await store.setNotificationSettings(NotificationSettings(events: [NotificationType.budgetThreshold]), userID: "ann"))
        #expect(try await store.place([], userID: "ann", events: [third]) == [])
        #expect(try await store.notifications(userID: "ann", after: nil, limit: 100, unreadOnly: false)
            .filter { $0.type == NotificationType.geotagReviewWaiting }.count == 1, "turned off: not raised")
        #expect(try await store.setNotificationSettings(NotificationSettings(), userID: "ann"))
        #expect(try await store.place([], userID: "ann", events: [third]) == [])
        #expect(try await store.notifications(userID: "ann", after: nil, limit: 100, unreadOnly: false)
            .filter { $0.type == NotificationType.geotagReviewWaiting }.map(\.payload).last?.contains(#""waiting":1"#) == true)
    }
}
