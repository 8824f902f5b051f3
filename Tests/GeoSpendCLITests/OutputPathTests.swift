import Foundation
import GeoSpendTestSupport
import Testing

/// Where the CLI writes (issue 22, items 1–3, 9–11, 14): the real binary asked to write over its
/// own database, into devices and FIFOs, through planted symlinks, killed mid-export; absurd
/// generator counts; hostile tile URLs; weak mask keys.
@Suite(.serialized) final class OutputPathTests {
    let dir = Reliability.scratch("out")
    deinit { try? FileManager.default.removeItem(at: dir) }

    func geospend(_ args: [String], env: [String: String] = [:]) throws -> (status: Int32, out: String, err: String) {
        try Reliability.geospend(args, env: env)
    }

    /// The demo data in a fresh database.
    func demoDatabase(_ name: String = "d.sqlite") throws -> String {
        let db = dir.appendingPathComponent(name).path
        try #require(try geospend(["import", "stores", "Data/helsinki-places.geojson", "--db", db]).status == 0)
        try #require(try geospend(["import", "expenses", "Data/sample-expenses.csv", "--db", db]).status == 0)
        return db
    }

    func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    func fileType(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
    }

    func temporaries(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".partial") }
    }

    /// Item 1: every writing command refuses the database, its -wal/-journal, its mask key, and a
    /// symlink to the database, with exit 2 and a message; the files stay byte for byte.
    @Test func outputNeverReplacesTheDatabaseOrItsKey() throws {
        let db = try demoDatabase()
        let key = db + ".mask-key"
        let masked = try geospend(["export", "points", "--db", db, "--user", "user1", "--mask-around", "60.17,24.94",
                                   "--mask-radius", "300m", "--out", dir.appendingPathComponent("ok.geojson").path])
        try #require(masked.status == 0, "\(masked.err)")
        let link = dir.appendingPathComponent("link.geojson").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: db)
        let before = (bytes(db), bytes(key))
        let commands: [[String]] = [
            ["export", "points", "--db", db, "--user", "user1", "--out"],
            ["export", "grid", "--db", db, "--all-users", "--out"],
            ["users", "export", "user1", "--db", db, "--out"],
            ["generate", "--users", "2", "--expenses", "5", "--out"],
            ["generate", "--users", "2", "--expenses", "5", "--stores-out"],
        ]
        for command in commands {
            for target in [db, db + "-wal", db + "-journal", link, key] {
                let r = try geospend(command + [target], env: ["GEOSPEND_DB": db])
                #expect(r.status == 2, "\(command) \(target): \(r.status) \(r.err)")
                #expect(r.err.contains(target) && r.err.contains("choose another file"), "\(r.err)")
            }
        }
        #expect(bytes(db) == before.0 && bytes(key) == before.1)
        #expect(fileType(db + "-journal") == nil)
        // --db through a symlink: SQLite names the journals after the real file (found by a
        // review: `--db link.sqlite --out d.sqlite-wal` replaced the log).
        let dbLink = dir.appendingPathComponent("link.sqlite").path
        try FileManager.default.createSymbolicLink(atPath: dbLink, withDestinationPath: db)
        for target in [db + "-wal", db + "-shm", db + "-journal"] {
            let r = try geospend(["export", "points", "--db", dbLink, "--user", "user1", "--out", target])
            #expect(r.status == 2 && r.err.contains("choose another file"), "\(target): \(r.status) \(r.err)")
        }
        #expect(fileType(db + "-journal") == nil)
        // Any other SQLite database, too (generate has no --db).
        let other = try demoDatabase("other.sqlite")
        let copy = bytes(other)
        let r = try geospend(["generate", "--users", "2", "--expenses", "5", "--out", other])
        #expect(r.status == 2 && r.err.contains("is an SQLite database"), "\(r.err)")
        #expect(bytes(other) == copy)
    }

    /// Item 2: an empty path, a folder, a non-bundle folder for the bundle are refused; the
    /// bundle refuses a folder holding the database.
    @Test func emptyPathsAndForeignFoldersAreRefused() throws {
        let db = try demoDatabase()
        let empty = try geospend(["export", "points", "--db", db, "--user", "user1", "--out", ""])
        try #require(empty.status == 2 && empty.err.contains("--out is empty"), "\(empty.err)")
        for args in [["users", "export", "user1", "--db", db, "--out", ""], ["generate", "--out", ""]] {
            let r = try geospend(args)
            #expect(r.status == 2 && r.err.contains("is empty"), "\(args): \(r.err)")
        }
        let folder = try geospend(["export", "points", "--db", db, "--user", "user1", "--out", dir.path])
        #expect(folder.status == 2 && folder.err.contains("is a folder"), "\(folder.err)")
        let bundle = try geospend(["export", "bundle", "--db", db, "--user", "user1", "--out", ""])
        #expect(bundle.status == 2 && bundle.err.contains("--out is empty"), "\(bundle.err)")
        #expect(fileType("/layers.js") == nil && fileType("/index.html") == nil)
        // The folder holding the database is not an earlier bundle: refused, nothing written.
        let before = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        let foreign = try geospend(["export", "bundle", "--db", db, "--user", "user1", "--out", dir.path])
        #expect(foreign.status == 2 && foreign.err.contains("not an earlier bundle"), "\(foreign.err)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == before)
        // A new folder, then the same folder again (an earlier bundle): both fine.
        let map = dir.appendingPathComponent("map").path
        for _ in 0..<2 {
            let r = try geospend(["export", "bundle", "--db", db, "--user", "user1", "--out", map])
            #expect(r.status == 0, "\(r.err)")
        }
        // A bundle file planted as a symlink to the database: refused before anything is written.
        try FileManager.default.removeItem(atPath: map + "/points.geojson")
        try FileManager.default.createSymbolicLink(atPath: map + "/points.geojson", withDestinationPath: db)
        let copy = bytes(db)
        let planted = try geospend(["export", "bundle", "--db", db, "--user", "user1", "--out", map])
        #expect(planted.status == 2 && planted.err.contains("the database itself"), "\(planted.err)")
        #expect(bytes(db) == copy)
    }

    /// Item 2: a FIFO and /dev/null are written in place and stay what they are.
    @Test func devicesAndFIFOsAreWrittenInPlace() throws {
        let db = try demoDatabase()
        let fifo = dir.appendingPathComponent("fifo").path
        try #require(mkfifo(fifo, 0o600) == 0)
        let received = dir.appendingPathComponent("received.json").path
        let reader = try RunningProgram("/bin/sh", ["-c", "cat \"$0\" > \"$1\"", fifo, received])
        let r = try geospend(["export", "points", "--db", db, "--user", "user1", "--out", fifo])
        // Had geospend failed before opening the FIFO, `cat` would wait in open() for a writer
        // forever: a writer that opens and closes lets it see the end. Then a bounded wait.
        let fd = open(fifo, O_WRONLY | O_NONBLOCK)
        if fd >= 0 { close(fd) }
        let deadline = ContinuousClock.now + .seconds(60)
        while reader.isRunning && ContinuousClock.now < deadline { usleep(10_000) }
        if reader.isRunning { reader.terminate() }
        #expect(r.status == 0, "\(r.err)")
        // Checked before the system's devices are tried: a FIFO turned into a file stops here.
        try #require(fileType(fifo) == S_IFIFO, "the FIFO was replaced")
        let doc = try JSONSerialization.jsonObject(with: try #require(bytes(received))) as? [String: Any]
        #expect(doc?["type"] as? String == "FeatureCollection")

        let null = try geospend(["export", "points", "--db", db, "--user", "user1", "--out", "/dev/null"])
        #expect(null.status == 0, "\(null.err)")
        try #require(fileType("/dev/null") == S_IFCHR)
    }

    /// Item 2: /dev/full's ENOSPC is a runtime failure (exit 1) and it stays a character device.
    @Test(.enabled(if: geteuid() == 0, "only root could replace /dev/full")) func devFullIsWrittenInPlace() throws {
        let db = try demoDatabase()
        let full = try geospend(["export", "points", "--db", db, "--user", "user1", "--out", "/dev/full"])
        #expect(full.status == 1 && full.err.contains("/dev/full: No space left on device"), "\(full.err)")
        #expect(fileType("/dev/full") == S_IFCHR)
    }

    /// Item 3: symlinks planted at every name the old scheme (OUT.partial-PID) would use for the
    /// next few hundred process ids are not followed; the victim stays as it was.
    @Test func plantedSymlinksAreNotFollowed() throws {
        let db = try demoDatabase()
        let victim = dir.appendingPathComponent("victim.txt").path
        try "precious\n".write(toFile: victim, atomically: false, encoding: .utf8)
        let out = dir.appendingPathComponent("out.geojson").path
        let p = try RunningProgram("/bin/true", [])
        try #require(p.waitUntilExit(timeout: .seconds(30)), "/bin/true did not end")
        let next = p.processIdentifier
        for pid in next..<next + 400 {
            try FileManager.default.createSymbolicLink(atPath: out + ".partial-\(pid)", withDestinationPath: victim)
        }
        for args in [["export", "points", "--db", db, "--user", "user1", "--out", out],
                     ["users", "export", "user1", "--db", db, "--out", out]] {
            let r = try geospend(args)
            #expect(r.status == 0, "\(r.err)")
        }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
        #expect(fileType(out) == S_IFREG)
        #expect(try JSONSerialization.jsonObject(with: try #require(bytes(out))) is [String: Any])
    }

    /// Item 9: SIGTERM or SIGINT during a long export (half a second or so) leaves no temporary
    /// file, and the process still ends by that signal. (40,000 expenses: the 100,000 this had
    /// took 11 s of CPU to import; the signal comes once the temporary file is seen.)
    @Test func interruptedExportsLeaveNoTemporaryFile() throws {
        let db = dir.appendingPathComponent("big.sqlite").path
        let csv = dir.appendingPathComponent("big.csv").path
        try #require(try geospend(["generate", "--users", "30", "--expenses", "40000", "--seed", "9", "--out", csv]).status == 0)
        try #require(try geospend(["import", "stores", "Data/helsinki-places.geojson", "--db", db]).status == 0)
        try #require(try geospend(["import", "expenses", csv, "--db", db]).status == 0)
        let outputs = dir.appendingPathComponent("outputs")
        try FileManager.default.createDirectory(at: outputs, withIntermediateDirectories: true)
        for signo in [SIGTERM, SIGINT] {
            let out = outputs.appendingPathComponent("all-\(signo).geojson").path
            let p = try RunningProgram(CLITests.binary, ["export", "points", "--db", db, "--all-users", "--allow-raw-positions", "--out", out])
            let deadline = Date().addingTimeInterval(20)
            while try temporaries(outputs).isEmpty && p.isRunning && Date() < deadline { usleep(2_000) }
            try #require(p.isRunning && !(try temporaries(outputs)).isEmpty, "the export ended before its temporary file was seen")
            kill(p.processIdentifier, signo)
            try #require(p.waitUntilExit(timeout: .seconds(30)), "the export did not end on signal \(signo)")
            #expect(p.wasSignalled && p.terminationStatus == signo)
            let left = try temporaries(outputs)
            #expect(left.isEmpty, "left behind: \(left)")
            #expect(fileType(out) == nil)
        }
    }

    /// Item 9: leftovers of a crash (process gone, or over an hour old) are removed by the next
    /// write of the same target; a live export's file, a symlink and its target stay.
    @Test func staleTemporaryFilesAreRemoved() throws {
        let db = try demoDatabase()
        let p = try RunningProgram("/bin/true", [])
        try #require(p.waitUntilExit(timeout: .seconds(30)), "/bin/true did not end")
        let dead = p.processIdentifier, alive = getpid()
        let victim = dir.appendingPathComponent("victim.txt").path
        try "precious\n".write(toFile: victim, atomically: false, encoding: .utf8)
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        let crashed = path(".out.geojson.partial-\(dead)-a1b2c3"), oldScheme = path("out.geojson.partial-\(dead)")
        let oldButAlive = path(".out.geojson.partial-\(alive)-d4e5f6"), live = path(".out.geojson.partial-\(alive)-g7h8i9")
        let link = path(".out.geojson.partial-\(dead)-j0k1l2")
        for file in [crashed, oldScheme, oldButAlive, live] { try "half a file".write(toFile: file, atomically: false, encoding: .utf8) }
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-7200)], ofItemAtPath: oldButAlive)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: victim)
        let r = try geospend(["export", "points", "--db", db, "--user", "user1", "--out", path("out.geojson")])
        #expect(r.status == 0, "\(r.err)")
        #expect(fileType(crashed) == nil && fileType(oldScheme) == nil && fileType(oldButAlive) == nil)
        #expect(fileType(live) == S_IFREG && fileType(link) == S_IFLNK)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
    }

    /// Item 10: absurd counts are refused at once with the bound, nothing written.
    @Test(arguments: [
        ["--users", "100000000"], ["--users", "9223372036854775807"], ["--expenses", "9223372036854775807"],
        ["--scale", "region", "--stores", "100000000000000"], ["--stores", "0"], ["--users", "0"],
    ])
    func generateRefusesAbsurdCounts(args: [String]) throws {
        let out = dir.appendingPathComponent("g.csv").path
        let start = Date()
        let r = try geospend(["generate"] + args + ["--out", out])
        #expect(r.status == 2 && r.err.contains("must be between"), "\(args): \(r.status) \(r.err)")
        #expect(Date().timeIntervalSince(start) < 10)
        #expect(fileType(out) == nil)
    }

    /// Item 11: a tile URL that could leave its script string or the script is refused; a benign
    /// one with `&` lands escaped (\u0026) and reaches the page's script intact in Chromium.
    @Test func tileURLsAreCheckedAndEscapedForTheScript() throws {
        let db = try demoDatabase()
        let map = dir.appendingPathComponent("map").path
        for tiles in [
            "https://x.test/{z}/{x}/{y}.png</script><script>alert(1)</script>",
            "https://x.test/{z}/{x}/{y}.png\"+alert(1)+\"", "javascript:alert(1)//{z}/{x}/{y}",
            "https://x.test/{z}/{x}.png", "https://x.test/{z}/{x}/{y}.png\u{2028}alert(1)", "https://x.test/ {z}/{x}/{y}",
        ] {
            let r = try geospend(["export", "bundle", "--db", db, "--user", "user1", "--out", map, "--tiles", tiles])
            #expect(r.status == 2 && r.err.contains("--tiles"), "\(tiles): \(r.status) \(r.err)")
            #expect(fileType(map) == nil)
        }
        let tiles = "https://tiles.invalid/{z}/{x}/{y}.png?key=a&style=b"
        let r = try geospend(["export", "bundle", "--db", db, "--user", "user1", "--out", map, "--tiles", tiles])
        #expect(r.status == 0, "\(r.err)")
        let html = try String(contentsOfFile: map + "/index.html", encoding: .utf8)
        #expect(html.contains(#"key=a\u0026style=b"#) && !html.contains("key=a&style"))
        let chromium = try #require(["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) })
        let flags = ["--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=3000", "--window-size=800,600"]
        let dom = try runProgram(chromium, flags + ["--dump-dom", URL(fileURLWithPath: map + "/index.html").absoluteString])
        let status = try #require(dom.out.range(of: #"<pre id="geospend-status">([^<]*)</pre>"#, options: .regularExpression).map {
            String(dom.out[$0]).replacingOccurrences(of: #"<pre id="geospend-status">"#, with: "").replacingOccurrences(of: "</pre>", with: "")
        }, "no status line: the page's script did not finish")
        let decoded = status.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(decoded.utf8)) as? [String: Any])
        #expect(json["tiles"] as? String == tiles)
        #expect((json["errors"] as? [Any])?.isEmpty == true, "script errors: \(json["errors"] ?? "")")
        #expect(((json["loaded"] as? [String: Int])?["points"] ?? 0) > 0)
    }

    /// Item 14: an all-zero key is refused (file or environment), naming the fix and what
    /// deleting costs; a key file others can read is used with a warning naming chmod 600.
    @Test func weakMaskKeysAreRefusedOrWarnedAbout() throws {
        let db = try demoDatabase()
        let key = db + ".mask-key"
        let args = ["export", "points", "--db", db, "--user", "user1", "--mask-around", "60.17,24.94", "--mask-radius", "300m"]
        try (String(repeating: "0", count: 32) + "\n").write(toFile: key, atomically: false, encoding: .utf8)
        let zero = try geospend(args)
        #expect(zero.status == 2 && zero.err.contains(key) && zero.err.contains("all-zero") && zero.err.contains("masks then move"), "\(zero.err)")
        #expect(zero.out.isEmpty)
        let zeroEnv = try geospend(args, env: ["GEOSPEND_MASK_KEY": String(repeating: "0", count: 32)])
        #expect(zeroEnv.status == 2 && zeroEnv.err.contains("all zeros"), "\(zeroEnv.err)")

        try "00112233445566778899aabbccddeeff\n".write(toFile: key, atomically: false, encoding: .utf8)
        try #require(chmod(key, 0o644) == 0)
        let open = try geospend(args)
        #expect(open.status == 0 && open.err.contains("warning") && open.err.contains("chmod 600 \(key)"), "\(open.err)")
        try #require(chmod(key, 0o600) == 0)
        let closed = try geospend(args)
        #expect(closed.status == 0 && !closed.err.contains("warning"), "\(closed.err)")
    }

    /// Eight masked exports of a database without a key, at once: one key is created and every
    /// export uses it (the same points dropped), none reads a half-written key or fails with
    /// "File exists" (found by a review of `open(O_CREAT | O_EXCL)` then `write`).
    @Test func concurrentFirstMaskedExportsShareOneKey() throws {
        let db = try demoDatabase("keyless.sqlite")
        let key = db + ".mask-key"
        try? FileManager.default.removeItem(atPath: key)
        let args = ["export", "points", "--db", db, "--user", "user1", "--mask-around", "60.17,24.94", "--mask-radius", "300m"]
        let results = Locked<[(status: Int32, out: String, err: String)]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let r = (try? Reliability.geospend(args, env: ["SOURCE_DATE_EPOCH": "0"])) ?? (-1, "", "could not run")
            results.withLock { $0.append(r) }
        }
        let all = results.withLock { $0 }
        #expect(all.allSatisfy { $0.status == 0 }, "\(all.map(\.err))")
        #expect(Set(all.map(\.out)).count == 1)
        #expect(all.filter { $0.err.contains("created the mask key") }.count == 1)
        #expect(bytes(key)?.count == 33)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".mask-key-") }
        #expect(leftovers.isEmpty)
    }
}

/// A value shared between threads behind a lock.
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
