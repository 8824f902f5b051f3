import ArgumentParser
import Foundation
import GeoSpend
import GeoSpendSpatiaLite

@main
struct GeoSpendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geospend",
        abstract: "Geospatial expense analytics on a SpatiaLite file.",
        discussion: """
            The database is --db PATH, else $GEOSPEND_DB, else ./geospend.sqlite.
            Results go to stdout, diagnostics to stderr. Exit status: 0 ok, 1 runtime failure,
            2 bad usage or bad input.

            Example:
              geospend import stores Data/helsinki-places.geojson
              geospend import expenses Data/sample-expenses.csv
              geospend near --user user1 --lat 60.1710 --lon 24.9414 --radius 300m
            """,
        version: GeoSpendVersion.string,
        subcommands: [
            ImportCommand.self, NearCommand.self, NearestStoresCommand.self, SnapCommand.self, InsightsCommand.self,
            SummaryCommand.self, ReportCommand.self, ExportCommand.self, GenerateCommand.self,
            InfoCommand.self, UsersCommand.self, DoctorCommand.self,
        ])

    /// Runs the command; every error is turned into a message and an exit code here, in one place.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let error as ImportError {
            FileHandle.standardError.write(Data((error.description + "\n").utf8))
            Foundation.exit(2)
        } catch let error as ValueError {
            FileHandle.standardError.write(Data("geospend: \(error)\n".utf8))
            Foundation.exit(2)
        } catch let error as ExportError {
            FileHandle.standardError.write(Data("geospend: \(error)\n".utf8))
            if case .writeFailed = error { Foundation.exit(1) }
            Foundation.exit(2)
        } catch let error as ExitCode {
            Foundation.exit(error.rawValue)  // the command has said why on stderr
        } catch let error as StoreError {
            FileHandle.standardError.write(Data("geospend: \(error)\n".utf8))
            Foundation.exit(1)
        } catch {
            // ArgumentParser's own errors: help goes to stdout; usage errors (its EX_USAGE 64)
            // become 2 like every other bad input; anything else is a runtime failure.
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                printOut(message + "\n")
                Foundation.exit(0)
            }
            printErr(message.isEmpty ? "geospend: \(error)" : message)
            Foundation.exit(code == .validationFailure ? 2 : (error is ExitCode ? code.rawValue : 1))
        }
    }
}

enum GeoSpendVersion {
    static let string = GeoSpendInfo.version
}

/// `--db`, shared by every command that touches the database.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .long, help: "The database file (default: $GEOSPEND_DB, else ./geospend.sqlite).")
    var db: String?

    var path: String { db ?? ProcessInfo.processInfo.environment["GEOSPEND_DB"] ?? "geospend.sqlite" }

    func open() throws -> SpatiaLiteStore { try Self.logLockWaits(SpatiaLiteStore(path: path, busyTimeout: try busyTimeout())) }

    /// Opens a database that must exist already (queries never create an empty file). Unless
    /// `writable`, it is opened read-only and every read sees one snapshot: an import running
    /// meanwhile is seen whole or not at all, and is never waited for. `splitReads`: for
    /// commands that read a heavy user's rows (`SpatiaLiteStore.init`).
    func openExisting(writable: Bool = false, splitReads: Bool = false) throws -> SpatiaLiteStore {
        guard FileManager.default.fileExists(atPath: path) else {
            throw ValidationError("no database at \(path); create one with `geospend import stores FILE` or pass --db")
        }
        return try Self.logLockWaits(
            SpatiaLiteStore(
                path: path, readOnly: !writable, busyTimeout: try busyTimeout(), snapshotReads: !writable, splitReads: splitReads))
    }

    /// `$GEOSPEND_BUSY_TIMEOUT` seconds, else the store's default (30 s).
    func busyTimeout() throws -> TimeInterval {
        guard let text = ProcessInfo.processInfo.environment["GEOSPEND_BUSY_TIMEOUT"] else { return SpatiaLiteStore.defaultBusyTimeout }
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0 else {
            throw ValidationError("GEOSPEND_BUSY_TIMEOUT must be a number of seconds, not \"\(text)\"")
        }
        return seconds
    }

    /// With `$GEOSPEND_LOCK_WAIT_LOG` set, appends "<milliseconds waited> <waits>" to that file when
    /// the store closes: how `make reliability` measures the time readers spend blocked on locks.
    private static func logLockWaits(_ store: SpatiaLiteStore) -> SpatiaLiteStore {
        guard let log = ProcessInfo.processInfo.environment["GEOSPEND_LOCK_WAIT_LOG"] else { return store }
        store.lockWaits.onClose = { waited, waits in
            let ms = Double(waited.components.seconds) * 1000 + Double(waited.components.attoseconds) / 1e15
            // One O_APPEND write per process: lines from concurrent readers never interleave.
            let fd = Foundation.open(log, O_WRONLY | O_APPEND | O_CREAT, 0o644)
            guard fd >= 0 else { return }
            let line = Array(String(format: "%.3f %d\n", ms, waits).utf8)
            _ = line.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        return store
    }
}

/// `--from`/`--to`, shared by every command with a time window.
struct WindowOptions: ParsableArguments {
    @Option(help: "From this date (a bare date is a local day) or RFC 3339 instant; inclusive.")
    var from: String?
    @Option(help: "To this date (a bare date is a local day, inclusive) or RFC 3339 instant (exclusive).")
    var to: String?

    var isEmpty: Bool { from == nil && to == nil }

    func parsed() throws -> (from: Timestamp?, to: Timestamp?) {
        (try Parse.timestamp(from, option: "--from"), try Parse.timestamp(to, option: "--to"))
    }
}

/// `--min-users`, shared by the cross-user reports.
struct SuppressionOptions: ParsableArguments {
    @Option(help: "Suppress figures from fewer distinct users than this.")
    var minUsers: Int = 3

    func validate() throws {
        guard minUsers >= 1 else { throw ValidationError("--min-users must be at least 1") }
    }
}

enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json, csv
}

/// Parsers for option values, turning `ValueError` into usage errors (exit 2).
enum Parse {
    static func distance(_ text: String, option: String) throws -> Distance {
        do { return try Distance(parsing: text) } catch { throw ValidationError("\(option): \(error)") }
    }

    static func coordinate(lat: Double, lon: Double) throws -> Coordinate {
        do { return try Coordinate(latitude: lat, longitude: lon) } catch {
            throw ValidationError("--lat/--lon: \(error)")
        }
    }

    static func timestamp(_ text: String?, option: String) throws -> Timestamp? {
        guard let text else { return nil }
        do { return try Timestamp(parsing: text) } catch { throw ValidationError("\(option): \(error)") }
    }
}

func printOut(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
}

func printErr(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// Whether stderr is a terminal: progress lines only then.
let stderrIsTerminal = isatty(2) == 1
