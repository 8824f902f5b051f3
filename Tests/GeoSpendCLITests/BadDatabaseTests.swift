import Foundation
import GeoSpendTestSupport
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
        let made = try runProgram(Reliability.sqlite3, [sqliteFile, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('milk');"])
        try #require(made.status == 0)
        let otherApp = dir.appendingPathComponent("other-grdb.sqlite").path
        _ = try runProgram(Reliability.sqlite3, [otherApp, "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY); INSERT INTO grdb_migrations VALUES ('createPlayers');"])
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
            // No -wal beside it either: its presence alone switched another program's database to
            // WAL mode for every later reader (a refused import left 32 bytes of -wal and a -shm).
            // The truncated GeoSpend file is in WAL mode: SQLite itself makes both on any open.
            for suffix in ["-wal", "-shm", "-journal"] where file.name != "truncated.sqlite" {
                #expect(!FileManager.default.fileExists(atPath: path + suffix), "\(file.name)\(suffix) was left beside it")
            }
            if file.bytes == nil {
                let mode = try runProgram(Reliability.sqlite3, [path, "PRAGMA journal_mode"])
                #expect(mode.out.trimmingCharacters(in: .whitespacesAndNewlines) == "delete", "\(file.name): journal mode \(mode.out)")
            }
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
            try runProgram(prefix.first ?? CLITests.binary, Array(prefix.dropFirst()) + (prefix.isEmpty ? [] : [CLITests.binary]) + args, directory: CLITests.repo)
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
        let holder = try SQLiteLockHolder(db)  // returns once the shell holds the lock

        let start = ContinuousClock.now
        let r = try Reliability.geospend(["import", "expenses", "Data/sample-expenses.csv", "--db", db], env: ["GEOSPEND_BUSY_TIMEOUT": "1"])
        let waited = ContinuousClock.now - start
        expectOneClearLine(r, file: db, "locked by another process", "import while locked")
        #expect(waited >= .milliseconds(950), "gave up after \(waited), before the timeout")
        let reader = try Reliability.geospend(Self.query + ["--db", db, "--format", "json"], env: ["GEOSPEND_BUSY_TIMEOUT": "1"])
        #expect(reader.status == 0, "a reader must not wait for a writer: \(reader.err)")

        try holder.release()
        #expect(try Reliability.geospend(["import", "expenses", "Data/sample-expenses.csv", "--db", db]).status == 0)
    }

    /// A real full disk: a 1 MiB-larger-than-the-file tmpfs (needs root with CAP_SYS_ADMIN, as
    /// here; skipped elsewhere — GeoSpendSpatiaLiteTests' `PRAGMA max_page_count` test always runs).
    @Test(.enabled(if: SmallDisk.canMount, SmallDisk.why)) func fullDiskIsAClearErrorAndKeepsThePreviousData() throws {
        let db = try demo()
        let size = (try FileManager.default.attributesOfItem(atPath: db)[.size] as? Int) ?? 0
        let mount = try smallDisk("small-disk", bytes: size + 1_048_576)
        defer { unmount(mount) }
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

    /// SQLite's temporary folder on a full tmpfs: a first import's indexes, whose sorted runs go
    /// there (`SpatiaLiteBulkWriter.rebuild`), are sorted in memory instead and the import goes
    /// through. 100,000 expenses: the largest index is past the 8 MB of one run.
    @Test(.enabled(if: SmallDisk.canMount, SmallDisk.why)) func aFullTemporaryFolderDoesNotFailAFirstImport() throws {
        let tmp = try smallDisk("small-tmp", bytes: 65_536)
        defer { unmount(tmp) }
        let csv = try Reliability.expenseFiles([100_000], seed: 9, in: dir)[0]
        let db = dir.appendingPathComponent("tmp-full.sqlite").path
        #expect(try Reliability.geospend(["import", "stores", "Data/helsinki-places.geojson", "--db", db]).status == 0)
        let r = try Reliability.geospend(["import", "expenses", csv, "--db", db], env: ["SQLITE_TMPDIR": tmp])
        #expect(r.status == 0, "\(r.err)")
        let state = try Reliability.state(of: db)
        #expect(state.integrity == "ok" && state.expenses == 100_000, "\(state)")
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

/// Issue 22: paths that are not files, first opens and deletions on a full disk, re-imports.
extension BadDatabaseTests {
    /// SQLite calls a folder or a device a disk I/O error, which read "damaged".
    @Test func aFolderOrADeviceAsTheDatabaseIsNamedForWhatItIs() throws {
        let folder = dir.appendingPathComponent("a-folder").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (path, expected) in [(folder, "is a folder, not a database file; pass --db a file inside it"), ("/dev/null", "is not a regular file")] {
            for args in [["import", "expenses", "Data/sample-expenses.csv"], Self.query, ["doctor"]] {
                let r = try Reliability.geospend(args + ["--db", path])
                expectOneClearLine(r, file: path, expected, "\(path) \(args[0])")
                #expect(!r.err.contains("damaged"), "\(r.err)")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    /// Re-importing the same files adds no row and leaves the file byte for byte as it was: the
    /// transaction rolls back instead of recreating triggers and indexes and stamping SpatiaLite's
    /// times, and GRDB's pool no longer commits a CREATE/DROP on open (2,306 bytes changed before).
    @Test func aReImportThatAddsNothingLeavesTheFileAsItWas() throws {
        let db = try demo()
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        for args in [["import", "stores", "Data/helsinki-places.geojson"], ["import", "expenses", "Data/sample-expenses.csv"]] {
            let r = try Reliability.geospend(args + ["--db", db])
            #expect(r.status == 0 && r.err.contains("imported 0 "), "\(r.err)")
        }
        let after = try Data(contentsOf: URL(fileURLWithPath: db))
        let differing = zip(before, after).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        #expect(after.count == before.count && differing.isEmpty, "\(after.count - before.count) bytes more; bytes differ at \(differing.prefix(10))")
        #expect(!FileManager.default.fileExists(atPath: db + "-wal"), "the write-ahead log was left behind")
    }

    /// `doctor --repair` whose owed clean-up fails half-way (here SQLite cannot write the log
    /// past a 2 MB file size limit; a full disk or a failing device alike) says the clean-up is not
    /// finished and to run it again, exit 1 — not that the file is damaged and a backup is needed
    /// (before: "the database file is damaged (disk I/O error) … restore a backup"). Then, without
    /// the limit, `--repair` finishes it.
    @Test func aCleanUpThatFailsIsNotCalledDamage() throws {
        let db = try demo()
        #expect(try Reliability.geospend(["users", "delete", "user1", "--yes", "--no-vacuum", "--db", db]).status == 0)
        // SIGXFSZ ignored: a write past the limit fails with EFBIG instead of killing the process.
        let limited = try runProgram(
            "/bin/sh", ["-c", "trap '' XFSZ; ulimit -f 4000; exec \"$0\" doctor --repair --db \"$1\"", CLITests.binary, db],
            directory: CLITests.repo)
        expectOneClearLine(limited, file: db, "could not finish the clean-up after a user's deletion: could not rewrite the file (VACUUM)", "repair past a file size limit")
        #expect(limited.err.contains("run `geospend doctor --repair` again") && !limited.err.contains("restore a backup"), "\(limited.err)")
        let doctor = try Reliability.geospend(["doctor", "--db", db])
        #expect(doctor.status == 1 && doctor.out.split(separator: "\n").contains { $0.hasPrefix("deleted users scrubbed") && $0.contains("FAIL") }, "\(doctor.out)")
        let repaired = try Reliability.geospend(["doctor", "--repair", "--db", db])
        #expect(repaired.status == 0 && repaired.out.contains("rewrote the file (VACUUM)"), "\(repaired.out) \(repaired.err)")
    }

    /// `doctor` shows ids stored before the identity rule escaped once: its table and its
    /// `repair:` lines alike. Two users, one NFC and one NFD, both with a bidi override (which the
    /// identity rule now refuses, so written with sqlite3 as an earlier GeoSpend could have).
    /// Before: the table said `as "Jose\\u{301}…"` (escaped twice) and the `repair:` line carried
    /// the raw U+202E, reversing the rest of the line on screen.
    @Test func doctorEscapesStoredIdsOnce() throws {
        let db = try demo()
        let made = try runProgram(Reliability.sqlite3, [db, """
            INSERT INTO users (id) VALUES ('Jos' || char(233, 8238) || 'x'), ('Jose' || char(769, 8238) || 'x');
            """])
        try #require(made.status == 0, "\(made.err)")
        for args in [["doctor"], ["doctor", "--repair"]] {
            let r = try Reliability.geospend(args + ["--db", db])
            #expect(r.status == 1, "\(r.err)")
            #expect(r.out.contains("user \"Jos\u{E9}\\u{202E}x\" is stored twice, in NFC and as \"Jose\u{301}\\u{202E}x\" (non-ASCII code points U+0301 U+202E)"), "\(args): \(r.out)")
            #expect(!r.out.unicodeScalars.contains("\u{202E}") && !r.out.contains("\\\\u{"), "\(args): \(r.out)")
        }
    }

    /// Mounts a tmpfs of `bytes`. Only in tests enabled by `SmallDisk.canMount`: a mount that
    /// fails there is a failure, not a quiet pass.
    func smallDisk(_ name: String, bytes: Int) throws -> String {
        let mount = dir.appendingPathComponent(name).path
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        let mounted = try runProgram("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=\(bytes)", "tmpfs", mount])
        try #require(mounted.status == 0, "\(name): cannot mount a \(bytes)-byte tmpfs: \(mounted.err)")
        return mount
    }

    func unmount(_ mount: String) { _ = try? runProgram("/usr/bin/umount", [mount]) }

    /// A first open on a disk too small for the new file, at fill levels landing anywhere in
    /// SpatiaLite's metadata, the migrations and the import: the path then does not exist, or it
    /// opens and `doctor` finds it healthy. (Before, a half-initialised file stayed that no
    /// command, `doctor --repair` included, could open.)
    @Test(.enabled(if: SmallDisk.canMount, SmallDisk.why)) func aFirstOpenOnAFullDiskLeavesNoFileOrAGoodOne() throws {
        // The new file with the stores takes ~7 MB, and ~14 MB while its log is written into it.
        let levels = Reliability.runs(quick: 6)
        var outcomes: [String: Int] = [:]
        for level in 0..<levels {
            let bytes = 65_536 + level * 16_000_000 / max(levels - 1, 1)
            let mount = try smallDisk("first-open-\(level)", bytes: bytes)
            defer { unmount(mount) }
            let db = mount + "/new.sqlite"
            let r = try Reliability.geospend(["import", "stores", "Data/helsinki-places.geojson", "--db", db])
            if r.status == 0 {
                outcomes["imported", default: 0] += 1
            } else {
                expectOneClearLine(r, file: db, "disk full", "first open on \(bytes) bytes")
                outcomes[FileManager.default.fileExists(atPath: db) ? "failed, file left" : "failed, no file", default: 0] += 1
            }
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: mount).filter { $0.contains(".creating-") }
            #expect(leftovers.isEmpty, "\(bytes) bytes: \(leftovers)")
            if FileManager.default.fileExists(atPath: db) {
                let doctor = try Reliability.geospend(["doctor", "--db", db])
                #expect(doctor.status == 0, "\(bytes) bytes: the file left does not open cleanly: \(doctor.err)")
            }
        }
        Reliability.report(["first open on a full tmpfs at \(levels) fill levels: \(outcomes.sorted { $0.key < $1.key })"])
    }

    /// `users delete` on a disk that cannot hold the rewrite refuses before deleting; one whose
    /// rewrite fails after the commit says what was deleted and that `doctor --repair` finishes
    /// the job, which it does: no byte of the user is left in the file or its write-ahead log.
    @Test(.enabled(if: SmallDisk.canMount, SmallDisk.why)) func deletingAUserOnAFullDiskIsFinishedByDoctorRepair() throws {
        let db = try demo()
        var csv = "id,user,amount,currency,occurred_at,title,lat,lon\n"
        for i in 0..<300 { csv += "zed-secret-\(i),zed-secret-user,\(i + 1).50,EUR,2025-05-01T12:00:00+03:00,zed secret title,60.1\(i),24.9\(i)\n" }
        let input = dir.appendingPathComponent("zed.csv").path
        try csv.write(toFile: input, atomically: true, encoding: .utf8)
        #expect(try Reliability.geospend(["import", "expenses", input, "--db", db]).status == 0)
        let size = (try FileManager.default.attributesOfItem(atPath: db)[.size] as? Int) ?? 0
        let delete = ["users", "delete", "zed-secret-user", "--yes"]

        // Free space for less than one copy of the file: refused, nothing deleted.
        let tight = try smallDisk("delete-tight", bytes: size + size / 2)
        defer { unmount(tight) }
        let tightDB = tight + "/demo.sqlite"
        try FileManager.default.copyItem(atPath: db, toPath: tightDB)
        let refused = try Reliability.geospend(delete + ["--db", tightDB])
        expectOneClearLine(refused, file: tightDB, "not enough free disk space to delete user \"zed-secret-user\"", "delete on a tight disk")
        #expect(refused.err.contains("nothing was deleted") && refused.err.contains("--no-vacuum"), "\(refused.err)")
        #expect(try Reliability.geospend(["users", "list", "--db", tightDB]).out.contains("zed-secret-user"))

        // A disk with no byte left: the open itself fails. Disk full, not "damaged … restore a
        // backup" (what an I/O error said before), and nothing deleted.
        let full = try smallDisk("delete-full", bytes: size + size / 2)
        defer { unmount(full) }
        let fullDB = full + "/demo.sqlite"
        try FileManager.default.copyItem(atPath: db, toPath: fullDB)
        _ = try runProgram("/bin/dd", ["if=/dev/zero", "of=\(full)/filler", "bs=4096"])  // until ENOSPC
        let noRoom = try Reliability.geospend(delete + ["--db", fullDB])
        #expect(noRoom.status == 1 && noRoom.err.contains("disk full") && !noRoom.err.contains("damaged"), "\(noRoom.err)")
        try FileManager.default.removeItem(atPath: full + "/filler")
        #expect(try Reliability.geospend(["users", "list", "--db", fullDB]).out.contains("zed-secret-user"))

        // Room for the write-ahead log but not for SQLite's temporary copy too (its temp folder on
        // the same disk): VACUUM fails after the deletion committed.
        let small = try smallDisk("delete-small", bytes: size * 2 + size / 3)
        defer { unmount(small) }
        let smallDB = small + "/demo.sqlite"
        try FileManager.default.copyItem(atPath: db, toPath: smallDB)
        let failed = try Reliability.geospend(delete + ["--db", smallDB], env: ["SQLITE_TMPDIR": small])
        expectOneClearLine(failed, file: smallDB, "deleted user \"zed-secret-user\" (", "delete whose rewrite fails")
        #expect(failed.err.contains("disk full") && failed.err.contains("`geospend doctor --repair`"), "\(failed.err)")
        let retry = try Reliability.geospend(delete + ["--db", smallDB])
        #expect(retry.status == 2 && retry.err.contains("doctor --repair"), "\(retry.err)")
        let doctor = try Reliability.geospend(["doctor", "--db", smallDB])
        #expect(doctor.status == 1 && doctor.out.contains("deleted users scrubbed"), "\(doctor.out)")

        let repaired = try Reliability.geospend(["doctor", "--repair", "--db", smallDB])
        #expect(repaired.status == 0, "\(repaired.out) \(repaired.err)")
        #expect(repaired.out.contains("rewrote the file (VACUUM)"), "\(repaired.out)")
        for file in [smallDB, smallDB + "-wal"] where FileManager.default.fileExists(atPath: file) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            #expect(bytes.range(of: Data("zed-secret".utf8)) == nil, "\(file) still holds the deleted user's text")
        }
        #expect(try Reliability.geospend(["doctor", "--db", smallDB]).status == 0)
    }
}

/// Whether this run can mount small tmpfs disks (root with CAP_SYS_ADMIN), probed once with a
/// 64 KiB mount: the full-disk tests are skipped, and reported as skipped, where it cannot.
enum SmallDisk {
    static let canMount: Bool = {
        guard geteuid() == 0 else { return false }
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-tmpfs-probe-\(getpid())").path
        guard (try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)) != nil else { return false }
        defer { try? FileManager.default.removeItem(atPath: probe) }
        guard let mounted = try? runProgram("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=65536", "tmpfs", probe]), mounted.status == 0 else {
            return false
        }
        _ = try? runProgram("/usr/bin/umount", [probe])
        return true
    }()

    static let why: Comment = "needs root and a working tmpfs mount (CAP_SYS_ADMIN)"
}
