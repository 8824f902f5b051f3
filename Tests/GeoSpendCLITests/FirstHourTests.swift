import Foundation
import GeoSpendTestSupport
import Testing

/// What a newcomer meets in the first hour (issue 15 §2), through the built binary: a typo is an
/// error that names the fix, not an empty result; errors show the right usage and no Foundation
/// text; help fits 80 columns; `generate` works from any folder.
@Suite(.serialized) struct FirstHourTests {
    let cli = CLITests()

    func geospend(_ args: [String], env: [String: String] = [:]) throws -> (status: Int32, out: String, err: String) {
        try cli.geospend(args, env: env)
    }

    /// The sample data: user1 … user20, the Helsinki stores.
    func sample() throws -> String { try cli.demoDatabase() }

    @Test func anUnknownUserIsAnErrorNamingTheNearestId() throws {
        let db = try sample()
        let commands: [[String]] = [
            ["near", "--user", "User1", "--lat", "60.17", "--lon", "24.94", "--radius", "500m"],
            ["insights", "--user", "User1"],
            ["summary", "--user", "User1"],
            ["snap", "--user", "User1", "--dry-run"],
            ["export", "points", "--user", "User1"],
            ["categories", "--user", "User1"],
            ["users", "export", "User1"],
            ["users", "delete", "User1", "--yes"],
        ]
        for args in commands {
            let r = try geospend(args + ["--db", db])
            #expect(r.status == 2 && r.out.isEmpty, "\(args): \(r.status) \(r.out)")
            #expect(r.err.contains("no user \"User1\"") && r.err.contains("did you mean \"user1\"?"), "\(args): \(r.err)")
        }
        // An edit away, and nothing close: no id is offered then.
        #expect(try geospend(["summary", "--user", "usr12", "--db", db]).err.contains("did you mean \"user12\"?"))
        let far = try geospend(["summary", "--user", "somebody-else", "--db", db])
        #expect(far.status == 2 && far.err.contains("no user \"somebody-else\"") && !far.err.contains("did you mean"), "\(far.err)")
    }

    @Test func anUnknownCategoryOrStoreKindIsAnErrorWithASuggestion() throws {
        let db = try sample()
        let category = try geospend(["near", "--user", "user1", "--lat", "60.17", "--lon", "24.94", "--radius", "5km", "--category", "Shoping", "--db", db])
        #expect(category.status == 2 && category.err.contains("--category Shoping: no such category of user \"user1\" (did you mean \"Shopping\"?)"), "\(category.err)")
        for args in [["insights", "--user", "user1"], ["export", "points", "--user", "user1"]] {
            let r = try geospend(args + ["--category", "shoping", "--db", db])
            #expect(r.status == 2 && r.err.contains("did you mean \"Shopping\"?"), "\(args): \(r.err)")
        }
        // Case differences are no typo: the filter compares letters without case.
        #expect(try geospend(["insights", "--user", "user1", "--category", "SHOPPING", "--db", db]).status == 0)
        for args in [
            ["nearest-stores", "--lat", "60.17", "--lon", "24.94"], ["report", "stores"], ["snap", "--dry-run"],
        ] {
            let r = try geospend(args + ["--kind", "cafe", "--db", db])
            #expect(r.status == 2 && r.err.contains("--kind cafe: no store has this kind (did you mean \"amenity:cafe\"?)"), "\(args): \(r.err)")
        }
        #expect(try geospend(["nearest-stores", "--lat", "60.17", "--lon", "24.94", "--kind", "amenity:cafe", "--db", db]).status == 0)
    }

    @Test func fromLaterThanToIsRefused() throws {
        let db = try sample()
        for args in [["summary", "--user", "user1"], ["insights", "--user", "user1"], ["export", "points", "--user", "user1"]] {
            let r = try geospend(args + ["--from", "2025-03-02", "--to", "2025-03-01", "--db", db])
            #expect(r.status == 2 && r.err.contains("--from 2025-03-02 is later than --to 2025-03-01"), "\(args): \(r.err)")
        }
        let instants = try geospend(["summary", "--user", "user1", "--from", "2025-03-01T12:00:00Z", "--to", "2025-03-01T11:00:00Z", "--db", db])
        #expect(instants.status == 2, "\(instants.err)")
        // One day, and a bare date against an instant an offset could still reach: valid.
        #expect(try geospend(["summary", "--user", "user1", "--from", "2025-03-01", "--to", "2025-03-01", "--db", db]).status == 0)
        #expect(try geospend(["summary", "--user", "user1", "--from", "2025-03-02", "--to", "2025-03-01T23:00:00-10:00", "--db", db]).status == 0)
    }

    @Test func aRadiusSearchWithSwappedCoordinatesSaysSo() throws {
        let db = try sample()
        let swapped = try geospend(["near", "--user", "user1", "--lat", "24.9414", "--lon", "60.1710", "--radius", "500m", "--db", db])
        #expect(swapped.status == 0 && swapped.out.hasPrefix("0 expenses"), "\(swapped.out)")
        #expect(swapped.err.contains(
            "note: no expenses within 500m of 24.9414,60.171; did you swap latitude and longitude? 60.171,24.9414 has expenses within 500m"),
            "\(swapped.err)")
        // Nothing there either way: no note.
        let empty = try geospend(["near", "--user", "user1", "--lat", "10", "--lon", "20", "--radius", "500m", "--db", db])
        #expect(empty.status == 0 && empty.err.isEmpty, "\(empty.err)")
    }

    /// Counts checked against the database itself, read with the sqlite3 shell.
    @Test func categoriesAndKindsListWhatExists() throws {
        let db = try sample()
        let r = try geospend(["categories", "--user", "user1", "--format", "json", "--db", db])
        #expect(r.status == 0, "\(r.err)")
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [[String: Any]])
        let oracle = try runProgram("/usr/bin/sqlite3", ["-separator", "|", db, """
            SELECT c.kind, c.name, count(e.pk) FROM categories c LEFT JOIN expenses e ON e.category_id = c.id
            WHERE c.user_id = 'user1' GROUP BY c.id ORDER BY c.kind, c.name
            """])
        #expect(listed.map { "\($0["kind"]!)|\($0["name"]!)|\($0["expenses"]!)" } == oracle.out.split(separator: "\n").map(String.init))
        #expect(listed.contains { $0["expenses"] as? Int ?? 0 > 0 })
        // `categories` is `categories list`.
        #expect(try geospend(["categories", "list", "--user", "user1", "--format", "json", "--db", db]).out == r.out)

        let kinds = try geospend(["kinds", "--format", "json", "--db", db])
        #expect(kinds.status == 0, "\(kinds.err)")
        let kindList = try #require(try JSONSerialization.jsonObject(with: Data(kinds.out.utf8)) as? [[String: Any]])
        let storesOracle = try runProgram(
            "/usr/bin/sqlite3", ["-separator", "|", db, "SELECT kind, count(*) AS n FROM stores GROUP BY kind ORDER BY kind IS NULL, n DESC, kind"])
        #expect(kindList.map { "\($0["kind"] as? String ?? "")|\($0["stores"]!)" } == storesOracle.out.split(separator: "\n").map(String.init))
        #expect(kindList.contains { $0["kind"] as? String == "amenity:cafe" })
    }

    @Test func errorsShowTheSubcommandsUsage() throws {
        let db = try sample()
        let grid = try geospend(["export", "grid", "--user", "user1", "--cell", "abc", "--db", db])
        #expect(grid.status == 2)
        #expect(grid.err.contains("Usage: geospend export ") && grid.err.contains("See 'geospend export --help'"), "\(grid.err)")
        #expect(!grid.err.contains("geospend <subcommand>"), "\(grid.err)")
        let near = try geospend(["near", "--user", "nobody", "--lat", "1", "--lon", "2", "--radius", "1m", "--db", db])
        #expect(near.err.contains("Usage: geospend near --user") && !near.err.contains("<subcommand>"), "\(near.err)")
        let report = try geospend(["report", "store", "no-such-store", "--db", db])
        #expect(report.status == 2 && report.err.contains("See 'geospend report store --help'"), "\(report.err)")
    }

    @Test func fileProblemsAreSaidInWordsNotFoundationErrors() throws {
        let db = try sample()
        let file = cli.dir.appendingPathComponent("notes.txt").path
        try "mine\n".write(toFile: file, atomically: true, encoding: .utf8)
        let over = try geospend(["export", "bundle", "--user", "user1", "--out", file, "--db", db])
        #expect(over.status == 2 && over.err.contains("--out \(file) is a file"), "\(over.err)")
        let under = try geospend(["export", "bundle", "--user", "user1", "--out", file + "/map", "--db", db])
        #expect(under.status == 2 && under.err.contains("\(file) is a file, not a folder: choose another path"), "\(under.err)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "mine\n")
        // The mask key beside the database: a folder there, or bytes that are not a key.
        let masked = ["export", "points", "--user", "user1", "--mask-around", "60.17,24.94", "--mask-radius", "100m", "--db", db]
        try FileManager.default.createDirectory(atPath: db + ".mask-key", withIntermediateDirectories: false)
        let folder = try geospend(masked)
        #expect(folder.status == 2 && folder.err.contains("cannot read the mask key \(db).mask-key: Is a directory"), "\(folder.err)")
        try FileManager.default.removeItem(atPath: db + ".mask-key")
        try Data([0xFF, 0xFE, 0x00, 0x41]).write(to: URL(fileURLWithPath: db + ".mask-key"))
        let garbage = try geospend(masked)
        #expect(garbage.status == 2 && garbage.err.contains("\(db).mask-key: "), "\(garbage.err)")
        for r in [over, under, folder, garbage] {
            #expect(!r.err.contains("NSCocoaErrorDomain") && !r.err.contains("could not be completed"), "\(r.err)")
        }
    }

    /// Every command's help at 80 columns: no line longer, no word split, and no paragraph
    /// re-wrapped mid-phrase (the text before USAGE reads the same at 80 and 300 columns).
    /// Commands are found from the help itself, so a new one is checked too.
    @Test func helpFitsEightyColumns() throws {
        func help(_ path: [String], columns: Int) throws -> String {
            try geospend(path + ["--help"], env: ["COLUMNS": String(columns)]).out
        }
        var queue: [[String]] = [[]], seen: [[String]] = []
        while !queue.isEmpty {
            let path = queue.removeFirst()
            seen.append(path)
            let text = try help(path, columns: 80)
            guard let section = text.range(of: "\nSUBCOMMANDS:\n") else { continue }
            let block = String(text[section.upperBound...]).components(separatedBy: "\n\n")[0]
            for line in block.split(separator: "\n") where line.hasPrefix("  ") && !line.hasPrefix("   ") {
                let name = String(line.split(separator: " ")[0])
                if name != "help" { queue.append(path + [name]) }
            }
        }
        #expect(seen.count >= 20, "\(seen)")
        for path in seen {
            let label = (["geospend"] + path).joined(separator: " ")
            let narrow = try help(path, columns: 80), wide = try help(path, columns: 300)
            #expect(narrow.contains("USAGE: "), "\(label)")
            for line in narrow.split(separator: "\n") where line.count > 80 {
                Issue.record("\(label): \(line.count) columns: \(line)")
            }
            #expect(narrow.split(whereSeparator: \.isWhitespace) == wide.split(whereSeparator: \.isWhitespace), "\(label): a word was split")
            let prose = { (t: String) in t.components(separatedBy: "\nUSAGE:")[0].components(separatedBy: "\n\n").dropFirst().joined(separator: "\n\n") }
            #expect(prose(narrow) == prose(wide), "\(label): the text is re-wrapped at 80 columns")
        }
    }

    @Test func generateFindsItsPlacesFromAnyFolder() throws {
        let elsewhere = cli.dir.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        var env = ProcessInfo.processInfo.environment
        env["GEOSPEND_DB"] = nil
        env["GEOSPEND_PLACES"] = nil
        let r = try runProgram(CLITests.binary, ["generate", "--users", "2", "--expenses", "5"], directory: elsewhere, environment: env)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.split(separator: "\n").count == 6)
        // A binary with no checkout above it and no places installed: the error says what to do.
        let lone = elsewhere.appendingPathComponent("geospend").path
        try FileManager.default.copyItem(atPath: CLITests.binary, toPath: lone)
        let missing = try runProgram(lone, ["generate", "--expenses", "5"], directory: elsewhere, environment: env)
        #expect(missing.status == 2 && missing.err.contains("give one with --places FILE") && missing.err.contains("/share/geospend/helsinki-places.geojson"), "\(missing.err)")
        env["GEOSPEND_PLACES"] = CLITests.repo.appendingPathComponent("Data/helsinki-places.geojson").path
        #expect(try runProgram(lone, ["generate", "--expenses", "5"], directory: elsewhere, environment: env).status == 0)
    }

    @Test func reportStoresTakesALimit() throws {
        let db = try sample()
        func stores(_ more: [String]) throws -> [[String: Any]] {
            let r = try geospend(["report", "stores", "--min-users", "1", "--format", "json", "--db", db] + more)
            #expect(r.status == 0, "\(r.err)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
            return try #require(json["stores"] as? [[String: Any]])
        }
        let all = try stores([]), two = try stores(["--limit", "2"])
        #expect(all.count > 2 && two.count == 2)
        #expect(two.map { $0["id"] as! String } == all.prefix(2).map { $0["id"] as! String })
        #expect(try geospend(["report", "stores", "--limit", "0", "--db", db]).status == 2)
    }
}
