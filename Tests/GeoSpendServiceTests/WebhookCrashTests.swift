import Foundation
import GeoSpend
import GeoSpendSpatiaLite
import GeoSpendTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 39: `kill -9` of `geospend serve` at random moments while 200 events are raised and
/// delivered. Every event the outbox holds reaches the receiver at least once, none is lost,
/// and every duplicate carries its event's idempotency key. `make reliability` only
/// (GEOSPEND_RELIABILITY_RUNS set): it restarts the service dozens of times.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["GEOSPEND_RELIABILITY_RUNS"] != nil))
struct WebhookCrashTests {
    @Test func killNineDuringTwoHundredEventsLosesNone() async throws {
        let f = try ServiceFixture()
        let receiver = try WebhookLiveTests.Receiver(dir: f.dir)
        let out = try f.cli(
            ["webhooks", "add", "--user", ServiceFixture.alice, "--url", "http://127.0.0.1:\(receiver.port)/hook", "--format", "json"], db: f.db)
        let hook = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: String])
        try receiver.setSecret(try #require(hook["secret"]))

        // 100 two-day budgets of 1.00 EUR (disjoint days, so none deactivates another): an
        // expense of 1.00 on budget i's first day crosses its 80 % and 100 %, two events.
        let store = try f.store()
        let before = try await store.notifications(userID: ServiceFixture.alice, after: nil, limit: 100_000, unreadOnly: false).last?.sequence
        let eur = try Currency(code: "EUR")
        let start = try LocalDay(parsing: "2032-01-01")
        for i in 0..<100 {
            let day = start.adding(days: Int64(2 * i))
            _ = try await store.saveBudget(Budget(
                userID: ServiceFixture.alice, name: "Days \(i)", amount: Money(minorUnits: 100, currency: eur), from: day, to: day.adding(days: 1)))
        }

        var rng = SystemRandomNumberGenerator()
        var kills = 0
        // 25 imports of four expenses each (eight events), by the CLI beside the service; the
        // service killed at a random moment (0-0.5 s) after each import starts, while it imports
        // or delivers, then started again.
        for batch in 0..<25 {
            let server = try LiveServerTests.Server(db: f.db, in: f.dir, arguments: ["--allow-private-webhooks"])
            var csv = "id,user,amount,currency,occurred_at\n"
            for j in 0..<4 {
                let i = batch * 4 + j
                csv += "k\(i),\(ServiceFixture.alice),1.00,EUR,\(start.adding(days: Int64(2 * i)))T12:00:00+00:00\n"
            }
            let file = f.dir.appendingPathComponent("batch\(batch).csv")
            try csv.write(to: file, atomically: true, encoding: .utf8)
            let importer = try RunningProgram(
                ServiceFixture.binary, ["import", "expenses", file.path, "--db", f.db], environment: ServiceFixture.environment)
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...500, using: &rng)))
            kill(server.process.processIdentifier, SIGKILL)
            try #require(server.process.waitUntilExit(timeout: .seconds(30)), "serve did not end on SIGKILL")
            kills += 1
            try #require(importer.waitUntilExit(timeout: .seconds(300)), "import \(batch) did not end")
            #expect(importer.terminationStatus == 0, "import \(batch)")
        }
        // The last run delivers what is left.
        let server = try LiveServerTests.Server(db: f.db, in: f.dir, arguments: ["--allow-private-webhooks"])
        defer { _ = server.stop() }
        // The events raised since the webhook was added: 200 budget events and the 25 imports'.
        let events = try await store.notifications(userID: ServiceFixture.alice, after: before, limit: 1000, unreadOnly: false)
        #expect(events.filter { $0.type == NotificationType.budgetThreshold }.count == 200, "100 budgets × 2 thresholds, each raised once")
        let ids = Set(events.map(\.id))
        let got = receiver.wait(timeout: 120) { Set($0.compactMap { $0["id"] as? String }).isSuperset(of: ids) }
        let received = got.compactMap { $0["id"] as? String }
        #expect(Set(received).isSuperset(of: ids), "every event delivered at least once: \(ids.subtracting(received).count) missing")
        #expect(Set(received).isSubset(of: ids), "nothing delivered that the outbox does not hold")
        #expect(got.allSatisfy { $0["key"] as? String == $0["id"] as? String && $0["verified"] as? Bool == true })
        let duplicates = received.count - Set(received).count
        ReliabilityFigures.report([
            "webhooks: \(kills) kill -9 of serve during 200 budget events (and \(events.count - 200) import events): \(Set(received).count) delivered, \(duplicates) duplicates (same idempotency key), 0 lost",
        ])
    }
}
