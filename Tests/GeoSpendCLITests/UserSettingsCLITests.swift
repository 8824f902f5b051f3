import Foundation
import GeoSpend
import GeoSpendSpatiaLite
import GeoSpendTestSupport
import Testing

/// `geospend users settings` through the real binary, and what the settings change: the zone
/// `geotag` reads bare dates in (`--timezone`, else the user's, else this machine's), and the
/// retention `import positions`, `positions prune` and the setting itself apply.
@Suite(.serialized) struct UserSettingsCLITests {
    let cli = CLITests()

    func geospend(_ args: [String], env: [String: String] = [:]) throws -> (status: Int32, out: String, err: String) {
        try cli.geospend(args, env: env)
    }

    func file(_ name: String, _ text: String) throws -> String {
        let url = cli.dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// ann's and bob's expense each (users come with their expenses), and ann's history of
    /// 2026-03-05 (GeotagCLITests' 55 fixes) when `history`.
    func database(history: Bool = true) throws -> String {
        let db = cli.dir.appendingPathComponent("settings.sqlite").path
        let statement = "id,user,amount,currency,occurred_at,merchant\na1,ann,4.50,EUR,2026-03-05,CAFE\nb1,bob,3.00,EUR,2026-03-05,CAFE\n"
        let r = try geospend(["import", "expenses", try file("e.csv", statement), "--db", db])
        try #require(r.status == 0, "\(r.err)")
        if history {
            for user in ["ann", "bob"] {
                let h = try geospend(["import", "positions", try file("h.csv", GeotagCLITests.positions), "--user", user, "--db", db])
                try #require(h.status == 0, "\(h.err)")
            }
        }
        return db
    }

    func fixes(_ user: String, _ db: String) throws -> Int {
        let r = try geospend(["positions", "list", "--user", user, "--limit", "0", "--format", "csv", "--db", db])
        #expect(r.status == 0, "\(r.err)")
        return r.out.split(separator: "\n").count - 1
    }

    @Test func showSetAndRefuse() throws {
        let db = try database(history: false)
        let shown = try geospend(["users", "settings", "--user", "ann", "--db", db], env: ["TZ": "America/Chicago"])
        #expect(shown.status == 0, "\(shown.err)")
        #expect(shown.out.contains("time zone") && shown.out.contains("none (this machine's: America/Chicago)"), "\(shown.out)")
        #expect(shown.out.contains("keep positions") && shown.out.contains("forever"), "\(shown.out)")
        let set = try geospend(["users", "settings", "--user", "ann", "--timezone", "Europe/Helsinki", "--keep-positions", "365", "--format", "json", "--db", db])
        #expect(set.status == 0 && set.out == "{\n  \"time_zone\": \"Europe/Helsinki\",\n  \"position_retention_days\": 365\n}\n", "\(set.out) \(set.err)")
        // One option leaves the other setting as it was.
        let forever = try geospend(["users", "settings", "--user", "ann", "--keep-positions", "forever", "--format", "json", "--db", db])
        #expect(forever.out == "{\n  \"time_zone\": \"Europe/Helsinki\",\n  \"position_retention_days\": null\n}\n", "\(forever.out)")
        #expect(try geospend(["users", "settings", "--user", "bob", "--format", "json", "--db", db]).out.contains("\"time_zone\": null"), "ann's are not bob's")
        for (args, says) in [
            (["--timezone", "Europe/Helsinky"], "--timezone Europe/Helsinky: not an IANA time zone name"),
            (["--keep-positions", "0"], "--keep-positions 0: give a number of days from 1 to 36500, or forever"),
            (["--keep-positions", "36501"], "--keep-positions 36501:"),
            (["--keep-positions", "a year"], "--keep-positions a year:"),
            (["--keep-positions", "99999999999999999999999"], "--keep-positions 99999999999999999999999:"),
        ] {
            let r = try geospend(["users", "settings", "--user", "ann", "--db", db] + args)
            #expect(r.status == 2 && r.err.contains(says), "\(args): \(r.status) \(r.err)")
        }
        let nobody = try geospend(["users", "settings", "--user", "anne", "--timezone", "UTC", "--db", db])
        #expect(nobody.status == 2 && nobody.err.contains("no user \"anne\"") && nobody.err.contains("did you mean"), "\(nobody.err)")
        let export = try geospend(["users", "export", "ann", "--db", db])
        #expect(export.out.contains("\"settings\":{\"time_zone\":\"Europe/Helsinki\",\"position_retention_days\":null}"), "\(export.out.prefix(400))")
        let help = try geospend(["users", "settings", "--help"])
        #expect(help.out.contains("geospend users settings --user alice --keep-positions 365"))
    }

    /// A retention set on a history older than it deletes the old part at once; one set before
    /// an import deletes at its end. bob's history stays throughout.
    @Test func aRetentionAppliesWhenSetAndAfterEachImport() throws {
        let db = try database()
        #expect(try fixes("ann", db) == 55)
        // The fixes are of 2026-03-05: older than 30 days by the time this runs.
        let set = try geospend(["users", "settings", "--user", "ann", "--keep-positions", "30", "--db", db])
        #expect(set.status == 0 && set.err.contains("user ann keeps 30 days: deleted 55 positions and 0 visits before "), "\(set.err)")
        #expect(try fixes("ann", db) == 0 && fixes("bob", db) == 55)
        let again = try geospend(["import", "positions", try file("h.csv", GeotagCLITests.positions), "--user", "ann", "--db", db])
        #expect(again.status == 0 && again.err.contains("imported 55 positions"), "\(again.err)")
        #expect(again.err.contains("user ann keeps 30 days: deleted 55 positions"), "\(again.err)")
        #expect(try fixes("ann", db) == 0)
        // A retention that keeps them: the import keeps them, and says nothing of a deletion.
        _ = try geospend(["users", "settings", "--user", "ann", "--keep-positions", "36500", "--db", db])
        let kept = try geospend(["import", "positions", try file("h.csv", GeotagCLITests.positions), "--user", "ann", "--db", db])
        #expect(kept.status == 0 && !kept.err.contains("deleted"), "\(kept.err)")
        #expect(try fixes("ann", db) == 55)
    }

    /// `positions prune` applies each user's retention (set here behind the CLI's back, so
    /// nothing applied it yet), one line per user; users without one keep everything.
    @Test func pruneAppliesEveryUsersRetention() async throws {
        let db = try database()
        let none = try geospend(["positions", "prune", "--db", db])
        #expect(none.status == 0 && none.out.hasPrefix("nothing deleted: every user keeps their history"), "\(none.out) \(none.err)")
        let store = try SpatiaLiteStore(path: db)
        #expect(try await store.setUserSettings(try UserSettings(timeZone: nil, positionRetentionDays: 30), userID: "ann"))
        let justBob = try geospend(["positions", "prune", "--user", "bob", "--db", db])
        #expect(justBob.status == 0 && justBob.out.hasPrefix("nothing deleted: user bob keeps the history"), "\(justBob.out)")
        #expect(try fixes("ann", db) == 55)
        let pruned = try geospend(["positions", "prune", "--db", db])
        #expect(pruned.status == 0, "\(pruned.err)")
        let lines = pruned.out.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("user ann keeps 30 days: deleted 55 positions and 0 visits before 2026-"), "\(pruned.out)")
        #expect(try fixes("ann", db) == 0 && fixes("bob", db) == 55)
        let twice = try geospend(["positions", "prune", "--db", db])
        #expect(twice.out.contains("user ann keeps 30 days: deleted 0 positions and 0 visits"), "\(twice.out)")
        let nobody = try geospend(["positions", "prune", "--user", "carol", "--db", db])
        #expect(nobody.status == 2 && nobody.err.contains("no user \"carol\""), "\(nobody.err)")
    }

    /// GeotagCLITests' stores, a date-only K-Market booking on 2026-03-10 and a 25-minute stay at
    /// K-Market Kallio from 22:30 UTC — 00:30 on the 11th in Helsinki. In UTC the stay is on
    /// the booking's day and picks the branch; in Helsinki it is the day after, and the chain
    /// stays ambiguous. So the zone decides: --timezone, else the user's, else this machine's.
    @Test func geotagReadsBareDatesInTheUsersZone() throws {
        let db = cli.dir.appendingPathComponent("zone.sqlite").path
        let history = ["time,lat,lon,accuracy"] + GeotagCLITests.fixes("2026-03-10T22:30:00Z", minutes: 25, lat: 60.18400, lon: 24.95000)
        for args in [
            ["import", "stores", try file("stores.csv", GeotagCLITests.stores)],
            ["import", "expenses", try file("late.csv", "id,user,amount,currency,occurred_at,merchant\nkm,ann,23.10,EUR,2026-03-10,K-MARKET\n")],
            ["import", "positions", try file("late-history.csv", history.joined(separator: "\n") + "\n"), "--user", "ann"],
        ] {
            let r = try geospend(args + ["--db", db])
            try #require(r.status == 0, "\(args): \(r.err)")
        }
        func decision(_ more: [String], machine: String = "UTC") throws -> String {
            let r = try geospend(["geotag", "--user", "ann", "--dry-run", "--format", "json", "--db", db] + more, env: ["TZ": machine])
            try #require(r.status == 0, "\(r.err)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
            return ["placed", "ambiguous", "unplaced"].first { key in
                (report[key] as? [[String: Any]] ?? []).contains { $0["id"] as? String == "km" }
            } ?? "missing"
        }
        #expect(try decision(["--timezone", "UTC"]) == "placed")
        #expect(try decision(["--timezone", "Europe/Helsinki"]) == "ambiguous")
        #expect(try decision([], machine: "UTC") == "placed", "no setting: this machine's zone")
        #expect(try decision([], machine: "Europe/Helsinki") == "ambiguous", "no setting: this machine's zone")
        let set = try geospend(["users", "settings", "--user", "ann", "--timezone", "Europe/Helsinki", "--db", db])
        #expect(set.status == 0, "\(set.err)")
        #expect(try decision([], machine: "UTC") == "ambiguous", "the user's zone, not this machine's")
        #expect(try decision(["--timezone", "UTC"], machine: "Europe/Helsinki") == "placed", "--timezone comes first")
        let summary = try geospend(["positions", "summary", "--user", "ann", "--format", "json", "--db", db], env: ["TZ": "UTC"])
        #expect(summary.out.contains("\"timezone\": \"Europe/Helsinki\"") && summary.out.contains("\"day\": \"2026-03-11\""), "\(summary.out)")
        // `import expenses --geotag` reads the user's zone too: both bookings stay ambiguous (a
        // second purchase of the same day, amount and merchant: --allow-duplicates keeps it).
        let more = try file("more.csv", "id,amount,currency,occurred_at,merchant\nkm2,23.10,EUR,2026-03-10,K-MARKET\n")
        let imported = try geospend(["import", "expenses", more, "--user", "ann", "--geotag", "--allow-duplicates", "--db", db], env: ["TZ": "UTC"])
        #expect(imported.status == 0 && imported.err.contains("geotag: placed 0, ambiguous 2"), "\(imported.err)")
    }
}
