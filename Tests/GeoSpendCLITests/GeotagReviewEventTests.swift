import Foundation
import GeoSpendTestSupport
import Testing

/// `geotag.review_waiting` through the built binary (issue 39): a run that writes and leaves
/// expenses ambiguous raises one event with their count and ids and no position; a dry run none;
/// the same expenses still waiting none again; a user who turned the type off none.
extension GeotagCLITests {
    func reviewEvents(_ db: String, user: String = "ann") throws -> [[String: Any]] {
        let r = try geospend(["notifications", "list", "--user", user, "--format", "json", "--db", db])
        try #require(r.status == 0, "\(r.err)")
        let all = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [[String: Any]], "\(r.out)")
        return all.filter { $0["type"] as? String == "geotag.review_waiting" }
    }

    @Test func aRunLeavingExpensesToReviewNotifiesOnceWithoutPositions() throws {
        let db = try prepared()
        let more = try geospend(["import", "expenses", try file("km2.csv", "id,user,amount,currency,occurred_at,merchant\nkm2,ann,5.00,EUR,2026-03-09,K-MARKET\n"), "--db", db])
        try #require(more.status == 0, "\(more.err)")
        let zone = ["--user", "ann", "--timezone", "Europe/Helsinki", "--format", "json", "--db", db]
        let dry = try geospend(["geotag", "--dry-run"] + zone)
        #expect(dry.status == 0, "\(dry.err)")
        #expect(try (json(dry.out)["ambiguous"] as? [Any])?.isEmpty == false, "\(dry.out)")
        #expect(try reviewEvents(db).isEmpty, "a dry run writes nothing")

        let run = try geospend(["geotag"] + zone)
        try #require(run.status == 0, "\(run.err)")
        let waiting = try #require(try json(run.out)["ambiguous"] as? [[String: Any]]).compactMap { $0["id"] as? String }.sorted()
        #expect(waiting.contains("km2"))
        let events = try reviewEvents(db)
        try #require(events.count == 1, "\(events)")
        let data = try #require(events[0]["data"] as? [String: Any])
        #expect(data["waiting"] as? Int == waiting.count && data["expense_ids"] as? [String] == waiting, "\(data)")
        let text = String(decoding: try JSONSerialization.data(withJSONObject: data), as: UTF8.self)
        for leak in ["lat", "lon", "candidates", "km-kamppi", "km-kallio", "60.1", "24.9"] {
            #expect(!text.contains(leak), "the payload holds no position or candidate: \(text)")
        }

        // Run again (cron): the same expenses wait; not raised again.
        #expect(try geospend(["geotag"] + zone).status == 0)
        #expect(try reviewEvents(db).count == 1)
        #expect(try reviewEvents(db, user: "bob").isEmpty, "ann's review is not bob's")

        // A new one waits, but ann turned the type off: not raised; on again, raised.
        let km3 = try geospend(["import", "expenses", try file("km3.csv", "id,user,amount,currency,occurred_at,merchant\nkm3,ann,6.00,EUR,2026-03-10,K-MARKET\n"), "--db", db])
        try #require(km3.status == 0, "\(km3.err)")
        #expect(try geospend(["notifications", "settings", "--user", "ann", "--events", "budget.threshold", "--db", db]).status == 0)
        #expect(try geospend(["geotag"] + zone).status == 0)
        #expect(try reviewEvents(db).count == 1, "turned off")
        #expect(try geospend(["notifications", "settings", "--user", "ann", "--events", "all", "--db", db]).status == 0)
        #expect(try geospend(["geotag"] + zone).status == 0)
        let last = try reviewEvents(db)
        #expect(last.count == 2 && ((last.last?["data"] as? [String: Any])?["expense_ids"] as? [String])?.contains("km3") == true, "\(last)")
    }
}
