import Foundation
import GeoSpendTestSupport

/// A PostgreSQL server and a hot standby of it that belong to one test (`scripts/postgis.sh
/// start` and `replica` in a folder of its own): the standby replays that test's writes alone.
///
/// make test's shared server once had a standby beside it for the whole run; it replayed every
/// other test's databases too (its data folder held 2.5 GB where the primary's held 1.1 GB, a
/// run cut off at 22:45 on 6 December 2026) and in one CI run it was gone before the end,
/// failing this test with no log left to say why. Here a wait that times out reports the end of
/// the standby's log.
struct ReplicaPair {
    let folder: URL
    private let primaryPort: Substring, replicaPort: Substring

    init(in folder: URL) throws {
        self.folder = folder
        func run(_ args: [String]) throws -> Substring {
            let r = try runProgram("scripts/postgis.sh", args, directory: CLITests.repo, timeout: .seconds(300))
            guard r.status == 0, let port = r.out.split(separator: " ").first(where: { $0.hasPrefix("port=") })?.dropFirst(5) else {
                throw Failed(description: "scripts/postgis.sh \(args.joined(separator: " ")): exit \(r.status): \(r.err)")
            }
            return port
        }
        primaryPort = try run(["start", folder.appendingPathComponent("primary").path])
        do {
            replicaPort = try run(["replica", folder.appendingPathComponent("primary").path, folder.appendingPathComponent("replica").path])
        } catch {
            _ = try? runProgram("scripts/postgis.sh", ["stop", folder.appendingPathComponent("primary").path], directory: CLITests.repo)
            throw error
        }
    }

    /// `database` on the primary, as `--db` takes it.
    func primary(_ database: String) -> String { "postgresql://postgres@127.0.0.1:\(primaryPort)/\(database)" }

    /// `database` on the standby, as `--read-db` takes it.
    func replica(_ database: String) -> String { "postgresql://postgres@127.0.0.1:\(replicaPort)/\(database)" }

    /// Waits until the standby has replayed everything the primary has written so far (its WAL
    /// position now), or throws after `timeout` seconds with the end of the standby's log.
    func waitForReplica(timeout: Double = 60) throws {
        let lsn = try runProgram("/usr/bin/psql", [primary("postgres"), "-qAt", "-c", "SELECT pg_current_wal_lsn()"])
        guard lsn.status == 0 else { throw Failed(description: "psql on the primary: \(lsn.err)") }
        let position = lsn.out.trimmingCharacters(in: .whitespacesAndNewlines)
        let sql = "SELECT pg_last_wal_replay_lsn() >= '\(position)'::pg_lsn"
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            let r = try runProgram("/usr/bin/psql", [replica("postgres"), "-qAt", "-c", sql])
            if r.status == 0 && r.out.hasPrefix("t") { return }
            last = r.err
            Thread.sleep(forTimeInterval: 0.05)
        }
        let log = (try? String(contentsOf: folder.appendingPathComponent("replica/server.log"), encoding: .utf8)) ?? "(no log)"
        throw Failed(description: "the standby did not reach \(position) within \(timeout) s (\(last)); its log ends:\n\(log.suffix(3000))")
    }

    /// Stops both servers and deletes their folders.
    func stop() {
        for server in ["replica", "primary"] {
            _ = try? runProgram("scripts/postgis.sh", ["stop", folder.appendingPathComponent(server).path], directory: CLITests.repo)
        }
    }

    struct Failed: Error, CustomStringConvertible {
        let description: String
    }
}
