import Foundation
import GeoSpend
import Testing

/// Files a user may point GeoSpend at by mistake or misfortune — read-only, locked by another
/// process, damaged, not a database, someone else's database, on a full disk — each give one
/// clear line naming the file and exit status 1: never a crash, a stack trace, or a changed file.
@Suite(.serialized) final class BadDatabaseTests {
    let dir = Reliability.scratch("bad-db")

    deinit { try? FileManager.default.removeItem(at: dir) }

    /// A database with the Helsinki stores and the sample expenses (Data/).
    func demo(_ name: String = "demo.sqlite") throws -> String {
        let db = dir.appendingPathComponent(name).path
        #expect(try Reliability.geospend(["import", "stores", "Data/helsinki-places.geojson", "--db", db]).status == 0)
        #expect(try Reliability.geospend(["import", "expenses", "Data/sample-expenses.csv", "--db", db]).status == 0)
        return db
    }

    /// Exit status 1 and exactly one line on stderr, naming the file and saying `expected`.
    func expectOneClearLine(_ r: (status: Int32, out: String, err: String), file: String, _ expected: String, _ what: String) {
        #expect(r.status == 1, "\(what): status \(r.status), \(r.err)")
        let lines = r.err.split(separator: "\n")
        #expect(lines.count == 1, "\(what): \(r.err)")
        #expect(r.err.hasPrefix("geospend: \(file): ") && r.err.contains(expected), "\(what): \(r.err)")
        #expect(!r.err.contains("Fatal error") && !r.err.contains("SQLite error"), "\(what): \(r.err)")
    }

    static let query = ["near", "--user", "user1", "--lat", "60.17", "--lon", "24.94", "--radius", "1km"]

    @Test func damagedAndForeignFilesAreRefusedAndLeftAsTheyWere() throws {
        let real = try demo()
        let realBytes = try Data(contentsOf: URL(fileURLWithPath: real))
        var rng = SplitMix64(seed: 77)
        let sqliteFile = dir.appendingPathComponent("notes.sqlite").path
        let made = try CLITests.run(Reliability.sqlite3, [sqliteFile, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('milk');"])
        try #require(made.status == 0)
        let otherApp = dir.appendingPathComponent("other-grdb.sqlite").path
        _ = try CLITests.run(Reliability.sqlite3, [otherApp, "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY); INSERT INTO grdb_migrations VALUES ('createPlayers');"])
        let files: [(name: String, bytes: Data?, expected: String)] = [
            ("random.sqlite", Data((0..<200_000).map { _ in UInt8.random(in: 0...255, using: &rng) }), "not an SQLite database"),
            ("picture.sqlite", try Data(contentsOf: CLITests.repo.appendingPathComponent("docs/store-report.png")), "not an SQLite database"),
            ("text.sqlite", Data(String(repeating: "id,user,amount\n", count: 500).utf8), "not an SQLite database"),
            // The first 300 kB of a real GeoSpend file: SQLite finds pages missing.
            ("truncated.sqlite", realBytes.prefix(300_000), "damaged"),
            ("notes.sqlite", nil, "not a GeoSpend database: it holds other tables (notes)"),
            ("other-grdb.sqlite", nil, "not a GeoSpend database: its migrations are another program's"),
        ]
        for file in files {
            let path = dir.appendingPathComponent(file.name).path
            if let bytes = file.bytes { try bytes.write(to: URL(fileURLWithPath: path)) }
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            for args in [["import", "expenses", "Data/sample-expenses.csv"], Self.query, ["info"], ["doctor"]] {
                let r = try Reliability.geospend(args + ["--db", path])
                expectOneClearLine(r, file: path, file.expected, "\(file.name) \(args[0])")
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "\(file.name) was changed")
        }
    }

    @Test func readOnlyFileOrFolderIsAClearError() throws {
        let folder = dir.appendingPathComponent("read-only")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let db = folder.appendingPathComponent("demo.sqlite").path
        try FileManager.default.copyItem(atPath: try demo(), toPath: db)
        // Root writes anything: run as nobody then (folder and file stay root's, 0755/0644).
        var prefix: [String] = []
        if geteuid() == 0 {
            prefix = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir.path)
        } else {
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: db)
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.path)
        }
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path) }
        func geospend(_ args: [String]) throws -> (status: Int32, out: String, err: String) {
            try CLITests.run(prefix.first ?? CLITests.binary, Array(prefix.dropFirst()) + (prefix.isEmpty ? [] : [CLITests.binary]) + args, directory: CLITests.repo)
        }
        expectOneClearLine(try geospend(["import", "expenses", "Data/sample-expenses.csv", "--db", db]), file: db, "read-only", "import")
        expectOneClearLine(try geospend(Self.query + ["--db", db]), file: db, "read-only", "near")
        let fresh = folder.appendingPathComponent("new.sqlite").path
        expectOneClearLine(try geospend(["import", "stores", "Data/helsinki-places.geojson", "--db", fresh]), file: fresh, "writable", "new file")
    }

    /// Another process holds a write transaction (the sqlite3 shell, fed through a pipe): a
    /// writer waits the busy timeout, then says so; a reader does not wait at all.
    @Test func lockedDatabaseWaitsThenSaysSo() throws {
        let db = try demo()
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: Reliability.sqlite3)
        holder.arguments = [db]
        let input = Pipe(), output = Pipe()
        holder.standardInput = input
        holder.standardOutput = output
        try holder.run()
        input.fileHandleForWriting.write(Data("BEGIN IMMEDIATE; UPDATE users SET display_name = 'x' WHERE id = 'user1'; SELECT 'locked';\n".utf8))
        // Wait until the shell says it holds the lock.
        var said = Data()
        while !String(decoding: said, as: UTF8.self).contains("locked") { said += output.fileHandleForReading.availableData }

        let start = ContinuousClock.now
        let r = try Reliability.geospend(["import", "expenses", "Data/sample-expenses.csv", "--db", db], env: ["GEOSPEND_BUSY_TIMEOUT": "1"])
        let waited = ContinuousClock.now - start
        expectOneClearLine(r, file: db, "locked by another process", "import while locked")
        #expect(waited >= .milliseconds(950), "gave up after \(waited), before the timeout")
        let reader = try Reliability.geospend(Self.query + ["--db", db, "--format", "json"], env: ["GEOSPEND_BUSY_TIMEOUT": "1"])
        #expect(reader.status == 0, "a reader must not wait for a writer: \(reader.err)")

        input.fileHandleForWriting.write(Data("COMMIT;\n".utf8))
        try input.fileHandleForWriting.close()
        holder.waitUntilExit()
        #expect(try Reliability.geospend(["import", "expenses", "Data/sample-expenses.csv", "--db", db]).status == 0)
    }

    /// A real full disk: a 1 MiB-larger-than-the-file tmpfs (needs root with CAP_SYS_ADMIN, as
    /// here; skipped elsewhere — GeoSpendSpatiaLiteTests' `PRAGMA max_page_count` test always runs).
    @Test func fullDiskIsAClearErrorAndKeepsThePreviousData() throws {
        let db = try demo()
        let size = (try FileManager.default.attributesOfItem(atPath: db)[.size] as? Int) ?? 0
        let mount = dir.appendingPathComponent("small-disk").path
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        let mounted = try CLITests.run("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=\(size + 1_048_576)", "tmpfs", mount])
        guard mounted.status == 0 else {
            print("fullDisk: skipped, cannot mount a tmpfs here: \(mounted.err)")
            return
        }
        defer { _ = try? CLITests.run("/usr/bin/umount", [mount]) }
        let full = mount + "/demo.sqlite"
        try FileManager.default.copyItem(atPath: db, toPath: full)
        let before = try Reliability.state(of: full)
        let big = try Reliability.expenseFiles([30_000], seed: 5, in: dir)[0]
        let r = try Reliability.geospend(["import", "expenses", big, "--db", full])
        expectOneClearLine(r, file: full, "disk full", "import onto a full disk")
        let after = try Reliability.state(of: full)
        #expect(after == before, "the previous data changed")
        #expect(after.integrity == "ok" && after.expenses == 2000)
        // Queries still work on the full disk.
        #expect(try Reliability.geospend(Self.query + ["--db", full]).status == 0)
    }

    /// A deliberately broken spatial index (rows deleted from the R*Tree behind SpatiaLite's
    /// back): doctor finds it, exits 1; --repair rebuilds it; the outside checker agrees.
    @Test func doctorFindsAndRepairsABrokenSpatialIndex() throws {
        let db = try demo()
        let healthy = try Reliability.geospend(["doctor", "--db", db, "--format", "json"])
        #expect(healthy.status == 0, "\(healthy.err)")
        let nearest = ["nearest-stores", "--db", db, "--lat", "60.1710", "--lon", "24.9414", "-k", "5", "--format", "json"]
        let answer = try Reliability.geospend(nearest).out

        _ = try Reliability.sql(db, "DELETE FROM idx_expenses_geom WHERE pkid % 3 = 0; DELETE FROM idx_stores_geom WHERE pkid % 2 = 0;")
        #expect(try Reliability.sql(db, "SELECT CheckSpatialIndex('expenses', 'geom'), CheckSpatialIndex('stores', 'geom')") == ["0|0"])
        let sick = try Reliability.geospend(["doctor", "--db", db])
        #expect(sick.status == 1)
        #expect(sick.out.contains("spatial index expenses.geom    FAIL") && sick.out.contains("spatial index stores.geom      FAIL"), "\(sick.out)")
        #expect(sick.err == "geospend: \(db): 2 checks failed; try `geospend doctor --repair`\n")

        let repaired = try Reliability.geospend(["doctor", "--db", db, "--repair", "--format", "json"])
        #expect(repaired.status == 0, "\(repaired.err)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(repaired.out.utf8)) as? [String: Any])
        #expect(json["healthy"] as? Bool == true)
        #expect((json["repaired"] as? [String])?.contains("rebuilt the spatial index of expenses.geom (RecoverSpatialIndex)") == true)
        #expect((json["checks"] as? [[String: Any]])?.allSatisfy { $0["ok"] as? Bool == true } == true)
        #expect(try Reliability.sql(db, "SELECT CheckSpatialIndex('expenses', 'geom'), CheckSpatialIndex('stores', 'geom')") == ["1|1"])
        #expect(try Reliability.geospend(nearest).out == answer)
    }
}
