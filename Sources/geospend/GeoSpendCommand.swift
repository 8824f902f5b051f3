import ArgumentParser
import Foundation
import GeoSpend
import GeoSpendSpatiaLite

@main
struct GeoSpendCommand: AsyncParsableCommand {
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
            ExpensesCommand.self, RemindersCommand.self, GeotagCommand.self, PositionsCommand.self,
            BudgetsCommand.self, RecurringCommand.self, PantryCommand.self, CommunityCommand.self, WebhooksCommand.self, NotificationsCommand.self, H3Command.self,
            PricesCommand.self, ProductsCommand.self, StoresCommand.self,
            TrendsCommand.self, ReceiptsCommand.self, BasketCommand.self, ListsCommand.self,
            ServeCommand.self, TokensCommand.self, EvaluateCommand.self,
        ])

    /// Runs the command; every error is turned into a message and an exit code here, in one place.
    static func main() async {
        TemporaryFiles.installHandlers()
        var command: ParsableCommand
        if let leaf = parsedLeaf(Array(CommandLine.arguments.dropFirst())) {
            command = leaf
        } else {
            do { command = try parseAsRoot() } catch { fail(error, in: Self.self) }
        }
        do {
            if var asynchronous = command as? AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch { fail(error, in: type(of: command)) }
    }

    /// The subcommand that `arguments` name, when it has no subcommands of its own, parsed by itself;
    /// nil when the names lead elsewhere or the parse fails (help, a bad option), which the whole
    /// tree's parse then does with the root's wording. ArgumentParser's parse of the whole tree
    /// builds and checks every level's arguments by reflection: in a debug build about a third of a
    /// small command's CPU (docs/MEASUREMENTS.md § Parsing a subcommand by itself).
    static func parsedLeaf(_ arguments: [String]) -> ParsableCommand? {
        var children = subcommands, rest = arguments[...]
        var leaf: ParsableCommand.Type?
        while let name = rest.first, let child = children.first(where: { $0._commandName == name || $0.configuration.aliases.contains(name) }) {
            leaf = child
            children = child.configuration.subcommands
            rest = rest.dropFirst()
        }
        guard let leaf, children.isEmpty else { return nil }
        return try? leaf.parseAsRoot(Array(rest))
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
        case let error as UserRestoreError:
            printErr("geospend: \(error)")
            Foundation.exit(2)
        case let error as H3Error:
            printErr("geospend: \(error)")
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
        case let error as CommunityRefusal:
            printErr("Error: \(error)")
            if case .rateLimited = error { Foundation.exit(1) }
            Foundation.exit(2)
        case let error as UsageError:
            // The core's usage error (shared with the service): shown as the CLI's own.
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
