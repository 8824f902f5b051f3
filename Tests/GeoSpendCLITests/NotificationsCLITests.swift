import Foundation
import GeoSpendTestSupport
import Testing

/// `geospend webhooks` and `geospend notifications` (issue 39) from the command line: bad URLs
/// and event types refused with the fix named, the secret shown once and never listed, a test
/// delivery to a private address refused unless allowed, and `notifications run --as-of`
/// raising a reminder once however often cron runs it.
@Suite(.serialized) struct NotificationsCLITests {
    let cli = CLITests()

    func geospend(_ args: [String]) throws -> (status: Int32, out: String, err: String) { try cli.geospend(args) }

    func database() throws -> String {
        let db = cli.dir.appendingPathComponent("notify.sqlite").path
        let csv = cli.dir.appendingPathComponent("e.csv")
        try Data("id,user,amount,currency,occurred_at\na1,ann,4.50,EUR,2026-03-05T10:00:00+02:00\n".utf8).write(to: csv)
        let r = try geospend(["import", "expenses", csv.path, "--db", db])
        try #require(r.status == 0, "\(r.err)")
        return db
    }

    @Test func webhooksAreCheckedAndTheirSecretsShownOnce() throws {
        let db = try database()
        for (args, says) in [
            (["--url", "ftp://example.org/x"], "is not an http(s) URL with a host (--url)"),
            (["--url", "https://user:pw@example.org/x"], "holds a user name or password"),
            (["--url", "https://example.org/x", "--events", "budget.thresholds"], "is not an event type (--events); give some of budget.threshold"),
        ] {
            let r = try geospend(["webhooks", "add", "--user", "ann", "--db", db] + args)
            #expect(r.status == 2 && r.err.contains(says), "\(args): \(r.err)")
        }
        let added = try geospend(["webhooks", "add", "--user", "ann", "--url", "http://127.0.0.1:9/hook", "--format", "json", "--db", db])
        #expect(added.status == 0, "\(added.err)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(added.out.utf8)) as? [String: String])
        let id = try #require(json["id"]), secret = try #require(json["secret"])
        #expect(json.keys.sorted() == ["id", "secret"] && secret.hasPrefix("whsec_"))
        let listed = try geospend(["webhooks", "list", "--user", "ann", "--format", "json", "--db", db])
        #expect(listed.out.contains(id) && !listed.out.contains(secret), "listings never show the secret")
        let exported = try geospend(["users", "export", "ann", "--db", db])
        #expect(exported.out.contains("\"webhooks\":[{\"id\":\"\(id)\"") && !exported.out.contains(secret), "export: the subscription, not the secret")
        let refused = try geospend(["webhooks", "test", "--user", "ann", "--id", id, "--db", db])
        #expect(refused.status == 2 && refused.err.contains("127.0.0.1 is 127.0.0.1, a loopback, private or reserved address"), "\(refused.err)")
        #expect(try geospend(["webhooks", "delete", "--user", "bob", "--id", id, "--db", db]).status == 2, "another user's webhook is not found")
        #expect(try geospend(["webhooks", "delete", "--user", "ann", "--id", id, "--db", db]).status == 0)
    }

    @Test func notificationsRunRaisesEachReminderOnce() throws {
        let db = try database()
        let add = try geospend([
            "expenses", "add", "--user", "ann", "--amount", "9.90", "--currency", "EUR", "--at", "2026-03-06T10:00:00+02:00",
            "--remind-at", "2026-03-08T09:00:00+02:00", "--db", db,
        ])
        #expect(add.status == 0, "\(add.err)")
        let early = try geospend(["notifications", "run", "--as-of", "2026-03-07T09:00:00+02:00", "--db", db])
        #expect(early.status == 0 && early.out.hasPrefix("raised 0 events"), "\(early.out)\(early.err)")
        for expected in ["raised 1 events", "raised 0 events"] {
            let r = try geospend(["notifications", "run", "--as-of", "2026-03-09T09:00:00+02:00", "--db", db])
            #expect(r.status == 0 && r.out.hasPrefix(expected), "\(r.out)\(r.err)")
        }
        let list = try geospend(["notifications", "list", "--user", "ann", "--format", "json", "--db", db])
        #expect(list.out.contains("\"type\":\"expense.reminder_due\"") && list.out.contains("\"remind_at\":\"2026-03-08T09:00:00+02:00\""), "\(list.out)")
    }
}
