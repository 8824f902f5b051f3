import Foundation
import GeoSpendTestSupport
import GRDB
import GeoSpend
import GeoSpendSpatiaLite
import Testing

/// An expense's life through the real binary: add → show → edit → list pages → search →
/// reminders → delete, with the file's bytes and an outside reader (sqlite3 + SpatiaLite) as
/// oracles. Fixtures: the repository's demo data (Data/README.md) plus rows added here.
@Suite(.serialized) struct ExpenseLifeTests {
    let cli = CLITests()

    func geospend(_ args: [String]) throws -> (status: Int32, out: String, err: String) { try cli.geospend(args) }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    /// Adds an expense for `user` and returns its JSON.
    func add(_ db: String, _ user: String, _ more: [String]) throws -> [String: Any] {
        let r = try geospend(["expenses", "add", "--user", user, "--currency", "EUR", "--format", "json", "--db", db] + more)
        try #require(r.status == 0, "\(r.err)")
        return try json(r.out)
    }

    @Test func anExpensesWholeLife() throws {
        let db = try cli.demoDatabase()
        let (lat, lon) = (-33.9249617, 18.4240553)  // south and west of nothing in the demo data
        let marker = "QX7-croissant-marker"
        let added = try add(db, "alice", [
            "--amount", "4.50", "--at", "2025-03-01T10:00:00+01:00", "--title", "Coffee 50%", "--category", "food",
            "--lat", "\(lat)", "--lon", "\(lon)", "--notes", marker, "--remind-at", "2025-03-05T09:00:00+01:00",
        ])
        let id = try #require(added["id"] as? String)
        #expect(id.hasPrefix("x") && id.count == 27)
        #expect(added["amount"] as? String == "4.50" && added["category"] as? String == "Food" && added["lat"] as? Double == lat)
        #expect(added["created_at"] as? String != nil && added["created_at"] as? String == added["updated_at"] as? String)

        // show prints what add printed; another user gets "no expense" and changes nothing.
        let shown = try geospend(["expenses", "show", id, "--user", "alice", "--format", "json", "--db", db])
        #expect(try shown.status == 0 && json(shown.out)["notes"] as? String == marker)
        for args in [["show", id], ["edit", id, "--amount", "1.00"], ["delete", id]] {
            let r = try geospend(["expenses"] + args + ["--user", "user1", "--db", db])
            #expect(r.status == 2 && r.err.contains("no expense \(id) for user user1"), "\(args): \(r.err)")
        }
        #expect(try json(try geospend(["expenses", "show", id, "--user", "alice", "--format", "json", "--db", db]).out)["amount"] as? String == "4.50")

        // edit: only what is given changes; updated_at moves.
        let edited = try json(try geospend([
            "expenses", "edit", id, "--user", "alice", "--amount", "5.20", "--merchant", "Kahvila", "--format", "json", "--db", db,
        ]).out)
        #expect(edited["amount"] as? String == "5.20" && edited["merchant"] as? String == "Kahvila" && edited["title"] as? String == "Coffee 50%")
        #expect(edited["created_at"] as? String == added["created_at"] as? String)
        #expect((edited["updated_at"] as? String ?? "") > (added["updated_at"] as? String ?? "~"))

        // More expenses, then pages of 2 against sqlite3's own newest-first order.
        for (n, at) in ["2025-03-02", "2025-03-02", "2025-02-27T23:30:00-05:00", "2025-03-04T08:00:00Z", "2025-01-01"].enumerated() {
            _ = try add(db, "alice", ["--amount", "\(n + 1).00", "--at", at, "--title", n == 0 ? "Bus 50 euros" : "a_b \(n)"])
        }
        var paged: [String] = []
        var after: [String] = []
        var pages = 0
        while pages < 10 {
            let r = try geospend(["expenses", "list", "--user", "alice", "--limit", "2", "--format", "json", "--db", db] + after)
            try #require(r.status == 0, "\(r.err)")
            let page = try json(r.out)
            paged += (page["expenses"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            pages += 1
            guard let next = page["next"] as? String else { break }
            after = ["--after", next]
        }
        let oracle = try runProgram("/usr/bin/sqlite3", [db, "SELECT id FROM expenses WHERE user_id = 'alice' ORDER BY occurred_ms DESC, id DESC"])
        #expect(paged == oracle.out.split(separator: "\n").map(String.init))
        #expect(paged.count == 6 && pages == 3)
        let text = try geospend(["expenses", "list", "--user", "alice", "--limit", "6", "--db", db])
        #expect(text.out.hasSuffix("(no more)\n"), "\(text.out)")

        // search: % and _ are plain characters; letters in any case; category names too.
        func search(_ term: String) throws -> [String] {
            let r = try geospend(["expenses", "search", "--user", "alice", term, "--format", "json", "--db", db])
            #expect(r.status == 0, "\(r.err)")
            return (try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
        }
        #expect(try search("50%") == ["Coffee 50%"])
        #expect(try search("a_b").count == 4 && (try search("a%b")).isEmpty)
        #expect(try search("KAHVILA") == ["Coffee 50%"] && (try search("fOOd")) == ["Coffee 50%"])
        #expect(try search("croissant-MARKER") == ["Coffee 50%"])
        #expect(try geospend(["expenses", "search", "--user", "user1", "croissant", "--format", "json", "--db", db]).out == "[]\n")

        // reminders: due at the instant, not a millisecond before (another offset, same instant).
        func due(_ asOf: String) throws -> Int {
            let r = try geospend(["reminders", "due", "--user", "alice", "--as-of", asOf, "--format", "json", "--db", db])
            #expect(r.status == 0, "\(r.err)")
            return (try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [Any])?.count ?? -1
        }
        #expect(try due("2025-03-05T07:59:59.999Z") == 0)
        #expect(try due("2025-03-05T08:00:00Z") == 1)

        // delete: gone, its reminder with it, and no byte of it left in the file.
        func traces() throws -> [String] {
            var bytes: [UInt8] = []
            for file in [db, db + "-wal"] where FileManager.default.fileExists(atPath: file) {
                bytes += try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
            }
            var found: [String] = []
            if !bytes.offsets(of: Array(marker.utf8)).isEmpty { found.append("notes") }
            if !bytes.offsets(of: Array(id.utf8)).isEmpty { found.append("id") }
            for (name, v) in [("lat", lat), ("lon", lon)] {
                if !bytes.offsets(of: withUnsafeBytes(of: v.bitPattern.bigEndian, Array.init)).isEmpty { found.append("\(name) REAL") }
                if !bytes.offsets(of: withUnsafeBytes(of: v.bitPattern.littleEndian, Array.init)).isEmpty { found.append("\(name) geometry") }
            }
            if !bytes.offsets(of: withUnsafeBytes(of: Float(lon).bitPattern.bigEndian, Array.init)).isEmpty { found.append("R*Tree lon") }
            return found
        }
        #expect(try traces().contains("notes") && (try traces()).contains("R*Tree lon"), "the scan finds the row while it is there")
        let deleted = try geospend(["expenses", "delete", id, "--user", "alice", "--db", db])
        #expect(deleted.status == 0 && deleted.out == "deleted expense \(id)\n" && deleted.err.isEmpty, "\(deleted.err)")
        #expect(try due("2025-03-05T08:00:00Z") == 0)
        #expect(try geospend(["expenses", "show", id, "--user", "alice", "--db", db]).status == 2)
        #expect(try traces() == [])
        let iso = IsolationTests()
        defer { try? FileManager.default.removeItem(at: iso.dir) }
        try iso.expectSound(db)
        #expect(try geospend(["expenses", "delete", id, "--user", "alice", "--db", db]).status == 2)
    }

    /// Several ids: all the user's or none deleted; one rewrite for all (issue 35, item 16).
    @Test func severalExpensesGoInOneDeletion() throws {
        let db = try cli.demoDatabase()
        var ids: [String] = []
        for n in 0..<3 {
            let e = try add(db, "alice", ["--amount", "1.0\(n)", "--at", "2025-03-0\(n + 1)", "--title", "Several\(n)Marker"])
            ids.append(try #require(e["id"] as? String))
        }
        let refused = try geospend(["expenses", "delete", ids[0], "nope", "--user", "alice", "--db", db])
        #expect(refused.status == 2 && refused.err.contains("nope"), "\(refused.err)")
        #expect(try geospend(["expenses", "show", ids[0], "--user", "alice", "--db", db]).status == 0, "nothing deleted")
        let deleted = try geospend(["expenses", "delete", ids[0], ids[1], ids[0], "--user", "alice", "--db", db])
        #expect(deleted.status == 0 && deleted.out == "deleted expense \(ids[0])\ndeleted expense \(ids[1])\n" && deleted.err.isEmpty, "\(deleted.out) \(deleted.err)")
        for (id, status) in [(ids[0], 2), (ids[1], 2), (ids[2], 0)] as [(String, Int32)] {
            #expect(try geospend(["expenses", "show", id, "--user", "alice", "--db", db]).status == status, "\(id)")
        }
        let bytes = try bytesOfFiles([db, db + "-wal"])
        #expect(bytes.offsets(of: Array("Several0Marker".utf8)).isEmpty && bytes.offsets(of: Array("Several1Marker".utf8)).isEmpty)
        #expect(!bytes.offsets(of: Array("Several2Marker".utf8)).isEmpty)
        let owed = try runProgram("/usr/bin/sqlite3", [db, "SELECT count(*) FROM sqlite_master WHERE name = 'geospend_pending_scrub'"]).out
        let flagged = owed == "1\n" ? try runProgram("/usr/bin/sqlite3", [db, "SELECT count(*) FROM geospend_pending_scrub"]).out : "0\n"
        #expect(flagged == "0\n", "the rewrite is not owed")
    }

    @Test func editsAreCheckedAsImportsAndEmptyValuesUnset() throws {
        let db = try cli.demoDatabase()
        let e = try add(db, "alice", ["--amount", "2.00", "--at", "2025-03-01", "--title", "T", "--lat", "60.17", "--lon", "24.94"])
        let id = try #require(e["id"] as? String)
        // Bad values: exit 2 naming the option, nothing changed.
        for (args, option) in [(["--amount", "3,5"], "--amount"), (["--amount", ""], "--amount"), (["--lat", "91", "--lon", "0"], "--lat"),
                               (["--remind-at", "2025-03-05"], "--remind-at"), (["--kind", "gift"], "--kind"), (["--store", "nope"], "--store")] {
            let r = try geospend(["expenses", "edit", id, "--user", "alice", "--db", db] + args)
            #expect(r.status == 2 && r.err.contains(option), "\(args): \(r.err)")
        }
        let bad = try geospend(["expenses", "add", "--user", "alice", "--currency", "EUR", "--amount", "1", "--db", db])
        #expect(bad.status == 2 && bad.err.contains("--at is required"), "\(bad.err)")
        // Empty values unset optional fields; the point leaves the spatial index.
        let before = try runProgram("/usr/bin/sqlite3", [db, "SELECT count(*) FROM idx_expenses_geom"]).out
        let cleared = try json(try geospend(["expenses", "edit", id, "--user", "alice", "--title", "", "--lat", "", "--lon", "", "--format", "json", "--db", db]).out)
        #expect(cleared["title"] is NSNull && cleared["lat"] is NSNull && cleared["amount"] as? String == "2.00")
        let after = try runProgram("/usr/bin/sqlite3", [db, "SELECT count(*) FROM idx_expenses_geom"]).out
        #expect(Int(after.trimmingCharacters(in: .newlines))! == Int(before.trimmingCharacters(in: .newlines))! - 1)
        let iso = IsolationTests()
        defer { try? FileManager.default.removeItem(at: iso.dir) }
        try iso.expectSound(db)
        // A re-import of the original row now says "different content": the hash follows the edit.
        let hash = try runProgram("/usr/bin/sqlite3", [db, "SELECT content_hash FROM expenses WHERE id = '\(id)'"]).out
        let stored = try #require(try SpatiaLiteStore(path: db).readHere { try $0.expense(id: id, userID: "alice") })
        #expect(hash == "\(stored.expense.contentHash)\n")
    }

    @Test func categoryRules() throws {
        let db = try cli.demoDatabase()
        func run(_ args: [String]) throws -> (status: Int32, out: String, err: String) { try geospend(args + ["--db", db]) }
        func listed(_ more: [String] = []) throws -> [String] {
            let r = try run(["categories", "--user", "user1", "--format", "json"] + more)
            return (try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        }
        // The defaults exist once, marked default.
        let all = try JSONSerialization.jsonObject(with: Data(try run(["categories", "--user", "user1", "--format", "json"]).out.utf8)) as? [[String: Any]] ?? []
        #expect(all.filter { $0["is_default"] as? Bool == true }.count == GeoSpend.Category.defaults.count)

        let added = try run(["categories", "add", "--user", "user1", "--name", "Coffee", "--icon", "coffee", "--color", "#6f4e37"])
        #expect(try added.status == 0 && json(added.out)["color"] as? String == "#6F4E37", "\(added.err)")
        #expect(try run(["categories", "add", "--user", "user1", "--name", "COFFEE"]).status == 2)
        #expect(try run(["categories", "add", "--user", "user1", "--name", "Tea", "--color", "rouge"]).status == 2)
        // MONO's colour names (issue 38), stored as Apple's light-mode values.
        let named = try run(["categories", "add", "--user", "user1", "--name", "Juice", "--color", "Orange"])
        #expect(try named.status == 0 && json(named.out)["color"] as? String == "#FF9500", "\(named.err)")
        let e = try add(db, "user1", ["--amount", "3.00", "--at", "2025-03-01", "--category", "Coffee"])
        let id = try #require(e["id"] as? String)

        // Deactivated: hidden unless --all, refused for new expenses, kept on its expense.
        #expect(try run(["categories", "deactivate", "Coffee", "--user", "user1"]).status == 0)
        #expect(try !listed().contains("Coffee") && (try listed(["--all"])).contains("Coffee"))
        let refused = try run(["expenses", "add", "--user", "user1", "--currency", "EUR", "--amount", "1", "--at", "2025-03-02", "--category", "Coffee"])
        #expect(refused.status == 2 && refused.err.contains("deactivated"), "\(refused.err)")
        #expect(refused.err.contains("--activate --user user1`") && !refused.err.contains("--user U"), "the hint names the user: \(refused.err)")
        let kept = try run(["expenses", "edit", id, "--user", "user1", "--amount", "3.50", "--format", "json"])
        #expect(try kept.status == 0 && json(kept.out)["category"] as? String == "Coffee", "\(kept.err)")
        #expect(try run(["categories", "edit", "Coffee", "--user", "user1", "--activate"]).status == 0)
        #expect(try listed().contains("Coffee"))

        // Names both kinds have need --kind; defaults stay; deleting leaves the expense uncategorised.
        let ambiguous = try run(["categories", "deactivate", "Others", "--user", "user1"])
        #expect(ambiguous.status == 2 && ambiguous.err.contains("--kind"), "\(ambiguous.err)")
        #expect(try run(["categories", "deactivate", "Others", "--kind", "income", "--user", "user1"]).status == 0)
        #expect(try run(["categories", "delete", "Food", "--user", "user1"]).status == 2)
        let gone = try run(["categories", "delete", "Coffee", "--user", "user1"])
        #expect(gone.status == 0 && gone.out.contains("1 expenses now have no category"), "\(gone.err)")
        #expect(try json(try run(["expenses", "show", id, "--user", "user1", "--format", "json"]).out)["category"] is NSNull)
        #expect(try !listed(["--all"]).contains("Coffee"))
    }

    /// Edits that would keep half of the old place, or a category of the other kind, are refused
    /// with what happened and the fix; a new user one letter from an existing one gets a note.
    @Test func editsSayWhatHappenedAndNearMissUsersAreNamed() throws {
        let db = try cli.demoDatabase()
        let e = try add(db, "alice", ["--amount", "2.00", "--at", "2025-03-01", "--category", "Food", "--lat", "60.17", "--lon", "24.94"])
        let id = try #require(e["id"] as? String)
        func edit(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
            try geospend(["expenses", "edit", id, "--user", "alice", "--db", db] + args)
        }
        // --lat or --lon alone would move the point along a meridian or parallel: refused.
        for (args, named) in [(["--lat", "10"], "--lat alone"), (["--lon", "10"], "--lon alone"), (["--lat", ""], "--lat alone")] {
            let r = try edit(args)
            #expect(r.status == 2 && r.err.contains(named) && r.err.contains("--lat and --lon together"), "\(args): \(r.err)")
        }
        let moved = try json(try edit(["--lat", "10", "--lon", "20", "--format", "json"]).out)
        #expect(moved["lat"] as? Double == 10 && moved["lon"] as? Double == 20)

        // --kind income on a Food expense: the kept category is the problem, not a typo.
        let kind = try edit(["--kind", "income"])
        #expect(kind.status == 2, "\(kind.err)")
        #expect(kind.err.contains("the expense's category \"Food\" is an expense category"), "\(kind.err)")
        #expect(kind.err.contains("--category \"\" to clear it") && kind.err.contains("`geospend categories --user alice`"), "\(kind.err)")
        #expect(!kind.err.contains("--user U") && !kind.err.contains("no income category"), "\(kind.err)")
        // --category Salary on an expense: Salary is an income category.
        let salary = try edit(["--category", "Salary"])
        #expect(salary.status == 2 && salary.err.contains("\"Salary\" is an income category, not an expense one"), "\(salary.err)")
        #expect(salary.err.contains("--kind income"), "\(salary.err)")
        let added = try geospend(["expenses", "add", "--user", "alice", "--currency", "EUR", "--amount", "1", "--at", "2025-03-02", "--category", "salary", "--db", db])
        #expect(added.status == 2 && added.err.contains("is an income category"), "\(added.err)")
        // Both fixes the messages name work.
        #expect(try json(try edit(["--kind", "income", "--category", "", "--format", "json"]).out)["category"] is NSNull)
        #expect(try json(try edit(["--kind", "income", "--category", "Salary", "--format", "json"]).out)["category"] as? String == "Salary")

        // "Alice" is a new user (ids are exact), created as asked, with a note naming "alice".
        let near = try geospend(["expenses", "add", "--user", "Alice", "--currency", "EUR", "--amount", "1", "--at", "2025-03-02", "--db", db])
        #expect(near.status == 0 && near.err.contains("note: new user \"Alice\" (did you mean \"alice\"?)"), "\(near.err)")
        let again = try geospend(["expenses", "add", "--user", "Alice", "--currency", "EUR", "--amount", "1", "--at", "2025-03-02", "--db", db])
        #expect(again.status == 0 && again.err.isEmpty, "only when the user is new: \(again.err)")
        let far = try geospend(["expenses", "add", "--user", "zed-new-user", "--currency", "EUR", "--amount", "1", "--at", "2025-03-02", "--db", db])
        #expect(far.status == 0 && far.err.isEmpty, "\(far.err)")
    }
}
