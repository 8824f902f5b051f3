import Foundation
import GeoSpend
import GeoSpendPostGIS
import GeoSpendSpatiaLite
import GeoSpendTestStores
import Testing

/// The outbox and webhooks (`NotificationStore`, issue 39) promise the same on the file, the
/// memory store and PostgreSQL (where `$GEOSPEND_TEST_POSTGRES` names a server): a budget crossing raises its
/// event in the write that crosses it, once per window and threshold, whether the expense was
/// added, edited, imported or placed by geotagging (a zone budget's too); webhooks are per user and their secrets
/// never listed; deliveries are made once per event and webhook and record every attempt;
/// `users export` lists webhooks without secrets and `users delete` removes every row.
@Suite struct NotificationContractTests {
    typealias Kind = EditingStoreKind
    typealias Database = ExpenseStore & ExpenseEditing & BudgetStore & NotificationStore & UserDataStore & PositionStore & PantryStore & PriceStore

    static let eur = try! Currency(code: "EUR")

    static func fresh(_ kind: Kind, _ scratch: Scratch) async throws -> any Database {
        try await kind.make(in: scratch)
    }

    static func expense(_ id: String, _ euros: String, day: String = "2026-03-05", user: String = "ann", at: Coordinate? = nil) throws -> Expense {
        Expense(
            id: id, userID: user, amount: try Money(parsing: euros, currency: eur), occurredAt: try Timestamp(parsing: "\(day)T10:00:00+02:00"),
            location: at.map { ExpenseLocation(coordinate: $0) })
    }

    /// ann with a monthly 100 EUR budget from March 2026.
    static func withBudget(_ kind: Kind, _ scratch: Scratch, zone: BudgetZone? = nil) async throws -> any Database {
        let store = try await fresh(kind, scratch)
        _ = try await store.addExpense(try expense("first", "1.00", day: "2026-02-01"), remindAt: nil)
        _ = try await store.addExpense(try expense("bob1", "1.00", day: "2026-02-01", user: "bob"), remindAt: nil)
        let budget = Budget(
            userID: "ann", name: "Groceries", amount: Money(minorUnits: 10_000, currency: eur), from: try LocalDay(parsing: "2026-03-01"),
            to: try LocalDay(parsing: "2026-12-31"), every: .month, zone: zone)
        #expect(try await store.saveBudget(budget)?.budget.id == 1)
        return store
    }

    static func keys(_ store: any Database, _ user: String = "ann") async throws -> [String] {
        try await store.notifications(userID: user, after: nil, limit: 100, unreadOnly: false)
            .filter { $0.type != NotificationType.importFinished }.map { event in
            let data = try #require(try JSONSerialization.jsonObject(with: Data(event.body.utf8)) as? [String: Any])
            let payload = try #require(data["data"] as? [String: Any])
            return "\(event.type) \(payload["threshold"] ?? "") \(payload["from"] ?? "")"
        }
    }

    @Test(arguments: Kind.allCases)
    func aBudgetCrossingRaisesOneEventPerWindowAndThreshold(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.withBudget(kind, scratch)
        _ = try await store.addExpense(try Self.expense("a", "50.00"), remindAt: nil)
        #expect(try await Self.keys(store).isEmpty, "50 %: nothing")
        _ = try await store.addExpense(try Self.expense("b", "35.00"), remindAt: nil)
        #expect(try await Self.keys(store) == ["budget.threshold 80 2026-03-01"])
        _ = try await store.addExpense(try Self.expense("c", "1.00"), remindAt: nil)
        #expect(try await Self.keys(store) == ["budget.threshold 80 2026-03-01"], "86 %: 80 % crossed once")
        // Edited down below 80 % and up again: still once.
        _ = try await store.updateExpense(try Self.expense("b", "1.00"), remindAt: nil)
        _ = try await store.updateExpense(try Self.expense("b", "40.00"), remindAt: nil)
        #expect(try await Self.keys(store) == ["budget.threshold 80 2026-03-01"])
        // An import crossing 100 %, and April's window its own.
        let lines = [
            #"{"id":"i1","user":"ann","amount":"20.00","currency":"EUR","occurred_at":"2026-03-20T10:00:00+02:00"}"#,
            #"{"id":"i2","user":"ann","amount":"90.00","currency":"EUR","occurred_at":"2026-04-02T10:00:00+03:00"}"#,
            #"{"id":"i3","user":"bob","amount":"900.00","currency":"EUR","occurred_at":"2026-03-20T10:00:00+02:00"}"#,
        ]
        #expect(try await Importer.importExpenses(from: scratch.file("more.jsonl", lines.joined(separator: "\n") + "\n"), into: store).inserted == 3)
        #expect(try await Self.keys(store) == [
            "budget.threshold 80 2026-03-01", "budget.threshold 100 2026-03-01", "budget.threshold 80 2026-04-01",
        ])
        #expect(try await Self.keys(store, "bob").isEmpty, "bob has no budget; ann's events are not his")
        // The import's own event per user, with its count, in the same transaction.
        let imports = try await store.notifications(userID: "ann", after: nil, limit: 100, unreadOnly: false)
            .filter { $0.type == NotificationType.importFinished }
        #expect(imports.map(\.payload) == [#"{"inserted":2}"#], "adding expenses one by one is no import")
        #expect(try await store.notifications(userID: "bob", after: nil, limit: 100, unreadOnly: false).map(\.payload) == [#"{"inserted":1}"#])
        let events = try await store.notifications(userID: "ann", after: nil, limit: 100, unreadOnly: false)
            .filter { $0.type != NotificationType.importFinished }
        #expect(Set(events.map(\.id)).count == 3 && events.allSatisfy { $0.id.hasPrefix("evt_") && $0.id.count == 28 })
        #expect(events.map(\.sequence) == events.map(\.sequence).sorted())
        let payload = try #require(try JSONSerialization.jsonObject(with: Data(events[0].payload.utf8)) as? [String: Any])
        #expect(payload["message"] as? String == "You've used 85% of your Groceries budget")
        // The feed: keyset pages, read marks.
        #expect(try await store.notifications(userID: "ann", after: events[0].sequence, limit: 1, unreadOnly: false) == [events[1]])
        #expect(try await store.markNotificationsRead(userID: "ann", through: events[1].sequence) == 2)
        #expect(try await store.notifications(userID: "ann", after: events[1].sequence, limit: 10, unreadOnly: true)
            .filter { $0.type != NotificationType.importFinished }.map(\.id) == [events[2].id])
        #expect(try await store.notifications(userID: "ann", after: nil, limit: 10, unreadOnly: true).allSatisfy { $0.sequence > events[1].sequence })
    }

    @Test(arguments: Kind.allCases)
    func aZoneBudgetIsCrossedByAnExpenseImportedIntoItsArea(kind: Kind) async throws {
        let scratch = Scratch()
        let office = Coordinate(uncheckedLatitude: 60.1699, longitude: 24.9384)
        let store = try await Self.withBudget(kind, scratch, zone: .circle(center: office, radius: .meters(400)))
        let lines = [
            // 2 km away: not in the zone, whatever its amount.
            #"{"id":"far","user":"ann","amount":"500.00","currency":"EUR","occurred_at":"2026-03-05T10:00:00+02:00","lat":60.1870,"lon":24.9384}"#,
            #"{"id":"near","user":"ann","amount":"85.00","currency":"EUR","occurred_at":"2026-03-05T12:00:00+02:00","lat":60.1702,"lon":24.9390}"#,
        ]
        _ = try await Importer.importExpenses(from: scratch.file("zone.jsonl", lines[0] + "\n"), into: store)
        #expect(try await Self.keys(store).isEmpty)
        _ = try await Importer.importExpenses(from: scratch.file("zone2.jsonl", lines[1] + "\n"), into: store)
        #expect(try await Self.keys(store) == ["zone_budget.threshold 80 2026-03-01"])
        // An expense without a position counts nowhere; placed in the zone by geotagging, it
        // crosses 100 % in the placement's transaction.
        let unplaced = #"{"id":"bank","user":"ann","amount":"20.00","currency":"EUR","occurred_at":"2026-03-06T12:00:00+02:00"}"#
        _ = try await Importer.importExpenses(from: scratch.file("bank.jsonl", unplaced + "\n"), into: store)
        #expect(try await Self.keys(store) == ["zone_budget.threshold 80 2026-03-01"])
        let placement = ExpensePlacement(
            expenseID: "bank", location: ExpenseLocation(coordinate: office), storeID: nil, source: .history, confidence: 0.9)
        #expect(try await store.place([placement], userID: "ann") == [true])
        #expect(try await Self.keys(store) == ["zone_budget.threshold 80 2026-03-01", "zone_budget.threshold 100 2026-03-01"])
    }

    @Test(arguments: Kind.allCases)
    func webhooksDeliveriesAndAttempts(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.withBudget(kind, scratch)
        #expect(try await store.addWebhook(try Webhook.new(userID: "carol", url: "https://example.org/h", events: [])) == nil, "no such user")
        let earlier = try await store.raise([
            NewNotificationEvent(userID: "ann", type: NotificationType.test, key: "before-the-webhooks", payload: .object([])),
        ])
        #expect(earlier.count == 1 && earlier.first?.type == NotificationType.test)
        let all = try #require(try await store.addWebhook(try Webhook.new(userID: "ann", url: "https://example.org/all", events: [])))
        let reminders = try #require(
            try await store.addWebhook(try Webhook.new(userID: "ann", url: "https://example.org/r", events: [NotificationType.reminderDue])))
        let bobs = try #require(try await store.addWebhook(try Webhook.new(userID: "bob", url: "https://example.org/bob", events: [])))
        #expect(all.secret?.hasPrefix("whsec_") == true && all.secret?.count == 54)
        #expect(try await store.webhooks(userID: "ann").map(\.id) == [all.id, reminders.id])
        #expect(try await store.webhooks(userID: "ann").allSatisfy { $0.secret == nil }, "listings never hold the secret")
        #expect(try await store.webhook(id: all.id, userID: "ann")?.secret == all.secret)
        #expect(try await store.webhook(id: all.id, userID: "bob") == nil, "another user's webhook is not found")

        _ = try await store.addExpense(try Self.expense("a", "90.00"), remindAt: nil)
        #expect(try await store.fanOut(limit: 100) == 1, "one event, to the webhook that wants every type; none raised before it was added")
        #expect(try await store.fanOut(limit: 100) == 0, "fanned out once")
        let far = Int64(Date().timeIntervalSince1970 * 1000) + 60_000
        let due = try await store.dueDeliveries(now: far, limit: 10)
        #expect(due.map(\.url) == ["https://example.org/all"] && due.first?.secret == all.secret)
        let d = try #require(due.first)
        #expect(d.event.body.hasPrefix("{\"id\":\"\(d.event.id)\",\"type\":\"budget.threshold\",\"created_at\":\""))
        try await store.recordAttempt(deliveryID: d.id, at: far, note: "t1 500", outcome: .retry(at: far + 1000))
        #expect(try await store.dueDeliveries(now: far, limit: 10).isEmpty, "not due before its retry")
        #expect(try await store.dueDeliveries(now: far + 1000, limit: 10).first?.attempts == 1)
        try await store.recordAttempt(deliveryID: d.id, at: far + 1000, note: "t2 error: connection refused", outcome: .failed)
        #expect(try await store.dueDeliveries(now: far + 99_000, limit: 10).isEmpty)
        let listed = try await store.deliveries(userID: "ann", webhookID: nil, limit: 10)
        #expect(listed.map(\.status) == [.failed] && listed.first?.attempts == 2)
        #expect(listed.first?.attemptLog == ["t1 500", "t2 error: connection refused"])
        #expect(try await store.deliveries(userID: "bob", webhookID: nil, limit: 10).isEmpty)

        // Export: the subscriptions, never a secret. Delete: every row goes.
        let export = try #require(try await store.withUserData("ann") { data in try data.webhooks() })
        #expect(export.map(\.url) == ["https://example.org/all", "https://example.org/r"] && export.allSatisfy { $0.secret == nil })
        #expect(try await store.deleteWebhook(id: reminders.id, userID: "bob") == false)
        #expect(try await store.deleteWebhook(id: reminders.id, userID: "ann"))
        let deletion = try #require(try await store.deleteUser("ann", rewriteFile: false))
        let rows = Dictionary(deletion.rowsByTable.map { ($0.table, $0.rows) }, uniquingKeysWith: +)
        #expect(rows["notification_events"] == 2 && rows["webhooks"] == 1)
        #expect(try await store.webhooks(userID: "bob").map(\.id) == [bobs.id], "bob's stay")
    }

    /// One `raise` of many events (an import raises one per user, PostgreSQL sends them in one
    /// statement): the new ones come back in the list's order, each user and key once (raised
    /// before, or earlier in the same list: nothing), none of a type its user turned off or of
    /// an unknown user.
    @Test(arguments: Kind.allCases)
    func oneRaiseOfManyEventsKeepsTheirOrderAndEachKeyOnce(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.withBudget(kind, scratch)
        #expect(try await store.setNotificationSettings(NotificationSettings(events: [NotificationType.reminderDue]), userID: "bob"))
        func event(_ user: String, _ key: String, _ type: String = NotificationType.test) -> NewNotificationEvent {
            NewNotificationEvent(userID: user, type: type, key: key, payload: .object([("key", .string(key))]))
        }
        #expect(try await store.raise([event("ann", "k1")]).count == 1)
        let raised = try await store.raise([
            event("ann", "k3"), event("ann", "k1"), event("bob", "k1"), event("ann", "k2"), event("ann", "k3"),
            event("bob", "k2", NotificationType.reminderDue), event("carol", "k1"),
        ])
        #expect(raised.map { "\($0.userID) \($0.type) \($0.payload)" } == [
            #"ann webhook.test {"key":"k3"}"#, #"ann webhook.test {"key":"k2"}"#, #"bob expense.reminder_due {"key":"k2"}"#,
        ])
        #expect(raised.map(\.sequence) == raised.map(\.sequence).sorted() && Set(raised.map(\.id)).count == 3)
        let stored = try await store.notifications(userID: "ann", after: nil, limit: 10, unreadOnly: false).map(\.payload)
        #expect(stored.filter { $0.contains("\"key\"") }.sorted() == [#"{"key":"k1"}"#, #"{"key":"k2"}"#, #"{"key":"k3"}"#])
    }

    @Test(arguments: Kind.allCases)
    func settingsChooseEventsQuietHoursAndLeadTimes(kind: Kind) async throws {
        let scratch = Scratch()
        let store = try await Self.withBudget(kind, scratch)
        #expect(try await store.notificationSettings(userID: "carol") == nil)
        #expect(try await store.setNotificationSettings(NotificationSettings(reminderLeadMinutes: 5), userID: "carol") == false)
        #expect(try await store.notificationSettings(userID: "ann") == NotificationSettings(), "nothing chosen: defaults")
        _ = try await store.addWebhook(try Webhook.new(userID: "ann", url: "https://example.org/q", events: []))
        // Budget events turned off: a crossing raises nothing (and is raised when it happens again with them on).
        let remindersOnly = NotificationSettings(events: [NotificationType.reminderDue])
        #expect(try await store.setNotificationSettings(remindersOnly, userID: "ann"))
        #expect(try await store.notificationSettings(userID: "ann") == remindersOnly)
        _ = try await store.addExpense(try Self.expense("a", "90.00"), remindAt: nil)
        #expect(try await Self.keys(store).isEmpty)
        #expect(try await store.setNotificationSettings(NotificationSettings(), userID: "ann"))
        _ = try await store.addExpense(try Self.expense("b", "1.00"), remindAt: nil)
        #expect(try await Self.keys(store) == ["budget.threshold 80 2026-03-01"])

        // A lead time of 60 minutes raises a reminder an hour early.
        _ = try await store.addExpense(try Self.expense("r", "1.00", day: "2026-02-02"), remindAt: try Timestamp(parsing: "2026-03-10T09:00:00Z"))
        #expect(try await store.setNotificationSettings(NotificationSettings(reminderLeadMinutes: 60), userID: "ann"))
        #expect(try await NotificationRun.raiseDue(in: store, asOf: try Timestamp(parsing: "2026-03-10T07:59:00Z")).isEmpty)
        #expect(try await NotificationRun.raiseDue(in: store, asOf: try Timestamp(parsing: "2026-03-10T08:00:00Z")).map(\.type) == [NotificationType.reminderDue])
        // One query for every user, each with their own lead: bob chose none, so his reminder
        // at the same time is not due an hour early.
        _ = try await store.addExpense(try Self.expense("s", "1.00", day: "2026-02-02", user: "bob"), remindAt: try Timestamp(parsing: "2026-03-10T09:00:00Z"))
        let due = { (at: String) in try await store.remindersDue(asOf: try Timestamp(parsing: at)).map { "\($0.expense.userID) \($0.expense.id)" } }
        #expect(try await due("2026-03-10T07:59:59Z") == [])
        #expect(try await due("2026-03-10T08:00:00Z") == ["ann r"])
        #expect(try await due("2026-03-10T09:00:00Z") == ["ann r", "bob s"])

        // Quiet hours all day but a minute: a delivery made now waits for their end.
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let c = utc.dateComponents([.hour, .minute], from: Date())
        let minute = (c.hour! * 60 + c.minute!)
        let end = (minute + 30) % 1440, start = (minute + 1439 - 30) % 1440
        let quiet = NotificationSettings(quietHours: NotificationSettings.QuietHours(startMinute: start, endMinute: end))
        #expect(try await store.setNotificationSettings(quiet, userID: "ann"))
        _ = try await store.fanOut(limit: 100)
        #expect(try await store.dueDeliveries(now: now + 28 * 60_000, limit: 10).isEmpty, "held through the quiet hours")
        #expect(try await store.dueDeliveries(now: now + 31 * 60_000, limit: 10).count == 2, "due when they end")
        let export = try #require(try await store.withUserData("ann") { try $0.notificationSettings() })
        #expect(export == quiet)
    }
}
