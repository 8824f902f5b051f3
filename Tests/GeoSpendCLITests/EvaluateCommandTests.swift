import Foundation
import Testing

/// `geospend evaluate geotag` run as the built binary on tiny configurations (a debug build:
/// seconds, not the minutes of `make eval-geotag`).
@Suite struct EvaluateCommandTests {
    let cli = CLITests()

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text.prefix(300))")
    }

    @Test func reportsTheFiguresOfOneSmallSeed() throws {
        let r = try cli.geospend(["evaluate", "geotag", "--seeds", "9", "--people", "2", "--days", "3", "--tuning-seeds", "1", "--format", "json"])
        let doc = try json(r.out)
        let unmet = try #require(doc["unmet_goals"] as? [String])
        // The exit status follows the goals: 0 with none unmet, 1 otherwise (and says which).
        #expect(r.status == (unmet.isEmpty ? 0 : 1), "\(r.err)")
        #expect((doc["goals_met"] as? Bool) == unmet.isEmpty)
        #expect(r.err.contains("held-out seed 9: 2 people × 3 days") && r.err.contains("tuning seed 1:"), "progress on stderr: \(r.err)")
        #expect(doc["people"] as? Int == 2 && doc["days"] as? Int == 3 && (doc["places"] as? Int ?? 0) > 900)
        let goals = try #require(doc["goals"] as? [String: Double])
        #expect(goals["precision"] == 0.98 && goals["recall_timestamped"] == 0.9 && goals["recall_date_only"] == 0.75)
        #expect(goals["median_error_m"] == 25 && goals["calibration"] == 0.9 && goals["read_seconds"] == 10 && goals["geotag_seconds"] == 5)

        let holdout = try #require(doc["holdout"] as? [String: Any])
        #expect(holdout["seeds"] as? [Int] == [9] && holdout["label"] as? String == "held-out seeds")
        let total = try #require(holdout["total"] as? [String: Any])
        let seeds = try #require(holdout["per_seed"] as? [[String: Any]])
        try #require(seeds.count == 1)
        let seed = seeds[0]
        #expect(seed["seed"] as? Int == 9)
        // Two people over three days: a handful of payments of each kind, about 2 fixes a minute.
        let lines = try #require(seed["statement_lines"] as? Int), fixes = try #require(seed["fixes"] as? Int)
        #expect((8...80).contains(lines) && (600...6000).contains(fixes), "\(lines) lines, \(fixes) fixes")
        for key in ["in_person_timestamped", "in_person_date_only", "placed", "placed_right", "ambiguous", "online_placed", "non_expenses_placed", "high_confidence_placed"] {
            #expect(seed[key] as? Int == total[key] as? Int, "one seed: its figures are the total's (\(key))")
        }
        let timestamped = try #require(total["in_person_timestamped"] as? Int), dateOnly = try #require(total["in_person_date_only"] as? Int)
        let placed = try #require(total["placed"] as? Int), right = try #require(total["placed_right"] as? Int)
        #expect(timestamped > 0 && dateOnly > 0, "one person of each kind of bank: \(total)")
        #expect(right <= placed && placed <= lines, "\(total)")
        for key in ["precision", "recall_timestamped", "recall_date_only", "calibration"] {
            let v = try #require(total[key] as? Double, "\(key)")
            #expect((0...1).contains(v), "\(key) \(v)")
        }
        #expect(abs(try #require(total["precision"] as? Double) - Double(right) / Double(placed)) < 1e-4)
        #expect(try #require(total["median_error_m"] as? Double) >= 0)
        // Placements naming no store are some of the placed, each with its error (null: none).
        let historyOnly = try #require(total["history_only_placed"] as? Int)
        #expect(historyOnly <= placed && (historyOnly == 0) == (total["median_error_history_only_m"] is NSNull), "\(total)")
        #expect(total["online_placed"] as? Int == 0 && total["non_expenses_placed"] as? Int == 0, "\(total)")
        #expect(total["unmet_goals"] as? [String] == unmet)

        let tuning = try #require(doc["tuning"] as? [String: Any])
        #expect(tuning["seeds"] as? [Int] == [1] && (tuning["label"] as? String ?? "").contains("tuning seeds"))
        #expect(doc["speed"] == nil)
    }

    @Test func speedReadsAndTagsWhatItWrote() throws {
        let r = try cli.geospend([
            "evaluate", "geotag", "--seeds", "9", "--people", "1", "--days", "1", "--tuning-seeds", "none",
            "--speed", "--speed-positions", "4000", "--speed-expenses", "300", "--format", "json",
        ])
        let doc = try json(r.out)
        #expect(doc["tuning"] == nil)
        let speed = try #require(doc["speed"] as? [String: Any], "\(r.err)")
        #expect(speed["positions"] as? Int == 4000 && speed["expenses"] as? Int == 300)
        // About 100 bytes a location; every expense names the place the phone is at.
        #expect((300_000...600_000).contains(speed["records_json_bytes"] as? Int ?? 0), "\(speed)")
        #expect(speed["placed"] as? Int == 300 && speed["ambiguous"] as? Int == 0 && speed["unplaced"] as? Int == 0, "\(speed)")
        let read = try #require(speed["read_seconds"] as? Double), tag = try #require(speed["geotag_total_seconds"] as? Double)
        #expect(read > 0 && read < 60 && tag > 0 && tag < 60)
        let before = try #require(speed["peak_rss_before_read_mib"] as? Double), after = try #require(speed["peak_rss_after_read_mib"] as? Double)
        #expect(before > 1 && after >= before, "\(speed)")
    }

    @Test func tableNamesBothSetsOfSeeds() throws {
        let r = try cli.geospend(["evaluate", "geotag", "--seeds", "9", "--people", "2", "--days", "2", "--tuning-seeds", "1"])
        #expect(r.out.contains("held-out seeds 9\n") && r.out.contains("tuning seeds (the geotagger was tuned on them; not a test) 1\n"), "\(r.out)")
        #expect(r.out.contains("precision") && r.out.contains("total"), "\(r.out)")
        #expect(r.out.contains(r.status == 0 ? "all goals met on the held-out seeds" : "unmet goals:"), "\(r.out)")
    }

    /// Twelve branches of one chain 22 m apart (and three cafés): the geotagger cannot tell the
    /// branches apart, so most shop payments stay ambiguous and recall falls below the goals;
    /// the evaluation must say so and exit 1 (what fails `make eval-geotag`).
    @Test func aChainTooDenseToTellApartFailsTheGoals() throws {
        var features: [String] = []
        for i in 0..<12 {
            features.append(#"{"type":"Feature","id":\#(1000 + i),"properties":{"name":"Alepa","kind":"shop:supermarket"},"geometry":{"type":"Point","coordinates":[\#(24.94 + Double(i) * 0.0004),60.17]}}"#)
        }
        for (i, name) in ["Cafe Aalto", "Cafe Regatta", "Cafe Ekberg"].enumerated() {
            features.append(#"{"type":"Feature","id":\#(2000 + i),"properties":{"name":"\#(name)","kind":"amenity:cafe"},"geometry":{"type":"Point","coordinates":[\#(24.93 + Double(i) * 0.01),\#(60.165 + Double(i) * 0.005)]}}"#)
        }
        let stores = cli.dir.appendingPathComponent("dense-chain.geojson")
        try Data(#"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#.utf8).write(to: stores)
        let r = try cli.geospend(["evaluate", "geotag", "--stores", stores.path, "--seeds", "9", "--people", "2", "--days", "3", "--tuning-seeds", "none", "--format", "json"])
        #expect(r.status == 1, "\(r.err)")
        let doc = try json(r.out)
        #expect(doc["goals_met"] as? Bool == false && doc["places"] as? Int == 15)
        let unmet = try #require(doc["unmet_goals"] as? [String])
        #expect(unmet.contains { $0.hasPrefix("recall (timestamped) 0.") } && unmet.contains { $0.hasPrefix("recall (date-only) 0.") }, "\(unmet)")
        let total = try #require((doc["holdout"] as? [String: Any])?["total"] as? [String: Any])
        #expect((total["ambiguous"] as? Int ?? 0) > 0 && total["online_placed"] as? Int == 0, "\(total)")
        #expect(r.err.contains("geospend: evaluate geotag: 2 goals unmet: recall (timestamped)"), "\(r.err)")
    }

    @Test(arguments: [["--seeds", "5-3"], ["--seeds", "none"], ["--seeds", "1,1"], ["--people", "0"], ["--days", "400"], ["--stores", "/nonexistent/places.geojson"]])
    func badArgumentsAreUsageErrors(args: [String]) throws {
        let r = try cli.geospend(["evaluate", "geotag"] + args)
        #expect(r.status == 2, "\(args): \(r.status) \(r.err)")
        #expect(r.out.isEmpty && !r.err.isEmpty)
    }

    @Test func tuningSeedsGivenAsHoldoutAreNoted() throws {
        let r = try cli.geospend(["evaluate", "geotag", "--seeds", "2", "--people", "1", "--days", "2", "--tuning-seeds", "none", "--format", "json"])
        #expect(r.err.contains("note: seeds 2 are tuning seeds"), "\(r.err)")
    }
}
