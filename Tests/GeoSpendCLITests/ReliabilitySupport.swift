import Foundation
import GeoSpendTestSupport
import GeoSpend
import Testing

/// Shared by the crash, concurrency and bad-file tests: knobs from the environment, the
/// outside checker (Debian's `spatialite` shell, not GeoSpend's code), and the summary that
/// `make reliability` prints.
enum Reliability {
    /// `GEOSPEND_RELIABILITY_RUNS` (set by `make reliability`), else `quick` for `make test`.
    static func runs(quick: Int) -> Int {
        ProcessInfo.processInfo.environment["GEOSPEND_RELIABILITY_RUNS"].flatMap(Int.init) ?? quick
    }

    /// Whether this is the long `make reliability` run.
    static var isLong: Bool { ReliabilityFigures.isLong }

    static var seed: UInt64 {
        ProcessInfo.processInfo.environment["GEOSPEND_RELIABILITY_SEED"].flatMap(UInt64.init) ?? 20_260_707
    }

    /// Appends lines to `$GEOSPEND_RELIABILITY_SUMMARY` (which `make reliability` prints), and to stdout.
    static func report(_ lines: [String]) { ReliabilityFigures.report(lines) }

    /// The p-th percentile (0–100) by nearest rank.
    static func percentile(_ values: [Double], _ p: Double) -> Double { ReliabilityFigures.percentile(values, p) }

    static let spatialite = "/usr/bin/spatialite"
    static let sqlite3 = "/usr/bin/sqlite3"

    /// Runs SQL with Debian's `spatialite` shell (SQLite + SpatiaLite, none of GeoSpend's code),
    /// or its `sqlite3` shell, and returns the output lines; stderr must be empty. The spatialite
    /// shell initialises SpatiaLite's metadata in a file that has no tables: use sqlite3 there.
    static func sql(_ database: String, _ statements: String, shell: String = spatialite) throws -> [String] {
        let r = try runProgram(shell, shell == spatialite ? ["-silent", database, statements] : [database, statements])
        #expect(r.status == 0 && r.err.isEmpty, "\(shell): \(r.err)")
        return r.out.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// What a crash must never break, read by the outside checker. `expenses` is nil when the
    /// file has no GeoSpend tables yet (a first open killed before its migrations committed).
    struct FileState: Equatable {
        var integrity: String
        var expenses: Int?
        var stores: Int?
        /// `CheckSpatialIndex` of expenses.geom and stores.geom (1 = agrees with the table).
        var spatialIndexes: [String]
        /// Every table, index, trigger and view with its SQL: triggers and indexes set aside by a
        /// bulk import must be back exactly as they were.
        var schema: String
    }

    static func state(of database: String) throws -> FileState {
        let tables = try sql(database, "SELECT count(*) FROM sqlite_master WHERE name IN ('expenses', 'stores')", shell: sqlite3)
        let schema = try sql(
            database, "SELECT type || ' ' || name || ' ' || ifnull(sql, '') FROM sqlite_master ORDER BY type, name", shell: sqlite3
        ).joined(separator: "\n")
        let integrity = try sql(database, "PRAGMA integrity_check", shell: sqlite3).joined(separator: "; ")
        guard tables == ["2"] else {
            return FileState(integrity: integrity, expenses: nil, stores: nil, spatialIndexes: [], schema: schema)
        }
        let counts = try sql(database, """
            SELECT count(*) FROM expenses; SELECT count(*) FROM stores;
            SELECT CheckSpatialIndex('expenses', 'geom'); SELECT CheckSpatialIndex('stores', 'geom');
            """)
        return FileState(
            integrity: integrity, expenses: Int(counts[0]), stores: Int(counts[1]), spatialIndexes: Array(counts[2...3]),
            schema: schema)
    }

    /// Synthetic expenses (`geospend generate --users 30 --seed SEED`), split into CSV files of
    /// the given sizes, each with the header.
    static func expenseFiles(_ sizes: [Int], seed: UInt64, in dir: URL) throws -> [String] {
        let all = dir.appendingPathComponent("all-\(seed).csv").path
        let r = try runProgram(
            CLITests.binary,
            ["generate", "--users", "30", "--expenses", "\(sizes.reduce(0, +))", "--seed", "\(seed)", "--out", all],
            directory: CLITests.repo)
        try #require(r.status == 0, "\(r.err)")
        var lines = try String(contentsOfFile: all, encoding: .utf8).split(separator: "\n")
        let header = lines.removeFirst()
        var files: [String] = []
        var start = 0
        for (i, size) in sizes.enumerated() {
            let path = dir.appendingPathComponent("part-\(seed)-\(i).csv").path
            // Ids prefixed with the seed, so files of different seeds (and Data/'s e1, e2, …) never collide.
            try ([header] + lines[start..<start + size].map { "s\(seed)-" + $0 }).joined(separator: "\n").appending("\n")
                .write(toFile: path, atomically: true, encoding: .utf8)
            files.append(path)
            start += size
        }
        return files
    }

    /// Runs `geospend ARGS` with its output discarded, sends SIGKILL after `killAfter` seconds
    /// (unless nil), and returns how long it ran and whether it exited by itself.
    static func launch(_ args: [String], killAfter: Double?) throws -> (seconds: Double, exited: Bool) {
        let start = ContinuousClock.now
        let p = try RunningProgram(CLITests.binary, args, directory: CLITests.repo)
        if let killAfter {
            usleep(useconds_t(killAfter * 1_000_000))
            kill(p.processIdentifier, SIGKILL)
        }
        try #require(p.waitUntilExit(timeout: .seconds(600)), "geospend \(args.first ?? "") did not end within 10 min")
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return (seconds, !p.wasSignalled && p.terminationStatus == 0)
    }

    /// A fresh scratch directory.
    static func scratch(_ name: String) -> URL {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-\(name)-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }

    /// `geospend ARGS` from the repository folder (where `Data/` is), with extra environment.
    static func geospend(_ args: [String], env: [String: String] = [:]) throws -> (status: Int32, out: String, err: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["GEOSPEND_DB"] = nil
        for (k, v) in env { environment[k] = v }
        return try runProgram(CLITests.binary, args, directory: CLITests.repo, environment: environment)
    }

    /// Copies a database file with its WAL, if any.
    static func copy(_ from: String, to: String) throws {
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: to + suffix)
            if FileManager.default.fileExists(atPath: from + suffix) { try FileManager.default.copyItem(atPath: from + suffix, toPath: to + suffix) }
        }
    }
}

/// A `sqlite3` shell holding `BEGIN IMMEDIATE` on `db` until `release()`.
///
/// The shell's script is a file: inside the transaction, its `.shell` line marks the lock held
/// (a file `locked`) and waits for a file `release` before the COMMIT.
final class SQLiteLockHolder: Sendable {
    let process: RunningProgram
    private let folder: URL

    struct NotLocked: Error, CustomStringConvertible { let description: String }

    init(_ db: String) throws {
        folder = Reliability.scratch("lock")
        let locked = folder.appendingPathComponent("locked").path, release = folder.appendingPathComponent("release").path
        let script = folder.appendingPathComponent("hold.sql")
        try """
            BEGIN IMMEDIATE;
            UPDATE users SET display_name = 'x';
            .shell touch '\(locked)' && while [ ! -e '\(release)' ]; do sleep 0.01; done
            COMMIT;

            """.write(to: script, atomically: true, encoding: .utf8)
        process = try RunningProgram(Reliability.sqlite3, [db], input: script)
        let deadline = ContinuousClock.now + .seconds(60)
        while !FileManager.default.fileExists(atPath: locked) {
            guard process.isRunning, ContinuousClock.now < deadline else {
                process.killGroup()
                throw NotLocked(description: "sqlite3 did not take the lock: \(process.standardError)")
            }
            usleep(5_000)
        }
    }

    func release() throws {
        _ = FileManager.default.createFile(atPath: folder.appendingPathComponent("release").path, contents: nil)
        try #require(process.waitUntilExit(timeout: .seconds(60)), "the lock holder did not end after its release")
        try? FileManager.default.removeItem(at: folder)
    }
}
