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
            Results go to stdout, diagnostics to stderr. Exit status: 0 ok, 1 runtime
            failure, 2 bad usage or bad input.

            Example:
              geospend import stores Data/helsinki-places.geojson
              geospend import expenses Data/sample-expenses.csv
              geospend near --user user1 --lat 60.1710 --lon 24.9414 --radius 300m
            """,
        version: GeoSpendVersion.string,
        subcommands: [
            ImportCommand.self, NearCommand.self, NearestStoresCommand.self, SnapCommand.self, InsightsCommand.self,
            SummaryCommand.self, ReportCommand.self, ExportCommand.self, GenerateCommand.self,
            InfoCommand.self, UsersCommand.self, CategoriesCommand.self, PeriodsCommand.self, KindsCommand.self, DoctorCommand.self,
            ExpensesCommand.self, RemindersCommand.self,
            BudgetsCommand.self,
        ])

    /// Runs the command; every error is turned into a message and an exit code here, in one place.
    static func main() {
        var command: ParsableCommand
        do { command = try parseAsRoot() } catch { fail(error, in: Self.self) }
        do { try command.run() } catch { fail(error, in: type(of: command)) }
    }

    /// Reports `error` of `command` (the subcommand that ran, or the root while parsing) and exits.
    static func fail(_ error: Error, in command: ParsableCommand.Type) -> Never {
        switch error {
        case let error as ImportError:
            printErr(error.description)
            Foundation.exit(2)
        case let error as ValueError:
            printErr("geospend: \(error)")
            Foundation.exit(2)
        case let error as EditError:
            printErr("geospend: \(error)")
            Foundation.exit(2)
        case let error as ExportError:
            printErr("geospend: \(error)")
            if case .writeFailed = error { Foundation.exit(1) }
            Foundation.exit(2)
        case let error as ExitCode:
            Foundation.exit(error.rawValue)  // the command has said why on stderr
        case let error as StoreError:
            printErr("geospend: \(error)")
            Foundation.exit(1)
        case let error as ValidationError where ObjectIdentifier(command) != ObjectIdentifier(Self.self):
            // Thrown by a subcommand's run(): ArgumentParser would show the root's usage.
            printErr("Error: \(error.message)\n" + usage(of: command))
            Foundation.exit(2)
        case let error as CocoaError:
            // Foundation's own text ("The operation could not be completed… NSCocoaErrorDomain")
            // tells a user nothing: name the file and the cause.
            printErr("geospend: \(FileErrors.describe(error))")
            Foundation.exit(1)
        default:
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

    /// "Usage: geospend export <layer> …" and where its help is, as ArgumentParser writes it
    /// for errors found while parsing.
    static func usage(of command: ParsableCommand.Type) -> String {
        let names = ["geospend"] + path(to: command, from: subcommands).map { $0._commandName }
        let lines = usageString(for: command).split(separator: "\n", omittingEmptySubsequences: false)
        return "Usage: " + lines.joined(separator: "\n       ") + "\n  See '\(names.joined(separator: " ")) --help' for more information."
    }

    private static var subcommands: [ParsableCommand.Type] { configuration.subcommands }

    /// The subcommands from the root down to `command` (empty when not found).
    private static func path(to command: ParsableCommand.Type, from children: [ParsableCommand.Type]) -> [ParsableCommand.Type] {
        for child in children {
            if ObjectIdentifier(child) == ObjectIdentifier(command) { return [child] }
            let below = path(to: command, from: child.configuration.subcommands)
            if !below.isEmpty { return [child] + below }
        }
        return []
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

    /// - Throws: a usage error when the window can hold nothing: --from later than --to.
    func parsed() throws -> (from: Timestamp?, to: Timestamp?) {
        let window = (from: try Parse.timestamp(from, option: "--from"), to: try Parse.timestamp(to, option: "--to"))
        if let f = window.from, let t = window.to, Self.isEmpty(from: f, to: t) {
            throw ValidationError("--from \(f) is later than --to \(t), so nothing can match: swap them")
        }
        return window
    }

    /// Whether no expense can fall in [from, to] (a bare date is a local day, inclusive; an
    /// instant's --to is exclusive). A bare date's day starts within a day of its UTC midnight
    /// (offsets are less than 24 h), so mixed forms are only refused when no offset could help.
    static func isEmpty(from: Timestamp, to: Timestamp) -> Bool {
        let day: Int64 = 86_400_000
        switch (from.isDateOnly, to.isDateOnly) {
        case (true, true): return from.localDate > to.localDate
        case (false, false): return from.epochMilliseconds >= to.epochMilliseconds
        case (true, false): return to.epochMilliseconds <= from.epochMilliseconds - day
        case (false, true): return from.epochMilliseconds >= to.epochMilliseconds + 2 * day
        }
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
