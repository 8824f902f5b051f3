import ArgumentParser
import Foundation
import GeoSpend

/// `geospend pantry`: what a user bought and keeps, its expiry, and when they usually buy again.
struct PantryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pantry",
        abstract: "Pantry: bought items with expiry days; what you usually buy when.",
        discussion: """
            An item is open until `use` or `discard` closes it. An open item's
            expiry reminder ("Item Expiring Soon") falls 2 days before it expires,
            raised by `notifications run` and serve's scheduler as a
            pantry.expiring event. `predict` reads the user's price records: a
            product bought on 3 or more days is due again the median gap after the
            last one (purchase.predicted events on that day).

            Example:
              geospend pantry add --user user1 --name Milch --quantity 2 \\
                  --expires 2025-06-10
              geospend pantry list --user user1
              geospend pantry use --user user1 1
              geospend pantry predict --user user1 --as-of 2025-06-01
            """,
        subcommands: [Add.self, List.self, Use.self, Discard.self, Predict.self])

    enum Format: String, ExpressibleByArgument, CaseIterable { case table, json }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a bought item; prints it with its id.",
            usage: """
                geospend pantry add --user <user> --name <name> [--quantity <q>]
                  [--expires <day>] [--format table|json]
                """,
            discussion: """
                --quantity is a count (2) or an amount (1.5kg, 500g, 2l); --expires the
                last day it is good.

                Example:
                  geospend pantry add --user user1 --name Joghurt --expires 2025-06-10
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Option(help: "What it is: 1–100 characters.") var name: String
        @Option(help: "A count (2) or an amount (1.5kg).") var quantity: String?
        @Option(help: "The last day it is good, YYYY-MM-DD.") var expires: String?
        @Option(help: "table or json.") var format: Format = .table

        func run() async throws {
            let fields = try PantryFields.checked(name: name, quantity: quantity, expires: expires)
            let store = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: store, database: database.path)
            guard let item = try await store.addPantryItem(userID: user, fields) else { throw UsageError("--user \(user): no such user") }
            PantryCommand.show([item], format: format, single: true)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "Open items, the soonest expiry first; --all adds used and discarded.",
            usage: "geospend pantry list --user <user> [--all] [--format table|json]",
            discussion: """
                Example:
                  geospend pantry list --user user1 --all --format json
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Flag(help: "Also the used and discarded items.") var all = false
        @Option(help: "table or json.") var format: Format = .table

        func run() async throws {
            let store = try await database.openBackend()
            try await NameChecks.user(user, in: store, database: database.path)
            PantryCommand.show(PantryListing.ordered(try await store.pantryItems(userID: user), all: all), format: format, single: false)
        }
    }

    struct Use: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "use", abstract: "Close an open item as used.",
            discussion: "Example:\n  geospend pantry use --user user1 3")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Argument(help: "The item's id (`pantry list`).") var id: Int64

        func run() async throws { try await PantryCommand.close(database, user, id, .used) }
    }

    struct Discard: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "discard", abstract: "Close an open item as thrown away.",
            discussion: "Example:\n  geospend pantry discard --user user1 3")
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Argument(help: "The item's id (`pantry list`).") var id: Int64

        func run() async throws { try await PantryCommand.close(database, user, id, .discarded) }
    }

    struct Predict: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "predict",
            abstract: "When the user usually buys each product again.",
            usage: "geospend pantry predict --user <user> [--as-of <day>] [--format <f>]",
            discussion: """
                From the user's own price records on or before --as-of: a product with
                3 or more distinct purchase days; the interval is the median of the
                gaps in days between consecutive ones (even count: the mean of the two
                middle gaps, rounded down); predicted = last purchase + interval.

                Example:
                  geospend pantry predict --user user1 --as-of 2025-06-01
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: "The user.") var user: String
        @Option(help: "Records on or before this day, YYYY-MM-DD (default: today).") var asOf: String?
        @Option(help: "table or json.") var format: Format = .table

        func run() async throws {
            let store = try await database.openBackend()
            try await NameChecks.user(user, in: store, database: database.path)
            let day: LocalDay
            if let asOf {
                do { day = try LocalDay(parsing: asOf) } catch { throw ValidationError("--as-of: \(error)") }
            } else {
                day = LocalDay.today(in: try await store.timeZone(of: user, else: .current))
            }
            let predictions = try await PantryListing.predictions(user: user, asOf: day, store: store)
            switch format {
            case .json: printOut(JSONOutput.array(predictions.map(\.json)).serialized() + "\n")
            case .table:
                printOut(predictions.isEmpty
                    ? "no predictions: a product needs purchases on 3 or more days\n"
                    : TextTable(
                        headers: ["product", "name", "purchases", "last", "every", "predicted"],
                        rows: predictions.map {
                            [String($0.productID), OutputEscaping.visible($0.name), String($0.purchases), $0.lastPurchase.description,
                             "\($0.intervalDays)d", $0.predicted.description]
                        }, rightAligned: [0, 2, 4]).rendered())
            }
        }
    }

    static func close(_ database: DatabaseOptions, _ user: String, _ id: Int64, _ status: PantryItem.Status) async throws {
        let store = try await database.openBackend(writable: true)
        try await NameChecks.user(user, in: store, database: database.path)
        let item = try await PantryListing.close(user: user, id: id, as: status, store: store)
        printOut("pantry item \(item.id) (\(OutputEscaping.visible(item.name))) \(item.status.rawValue)\n")
    }

    static func show(_ items: [PantryItem], format: Format, single: Bool) {
        switch format {
        case .json: printOut((single ? PantryListing.json(items[0]) : JSONOutput.array(items.map(PantryListing.json))).serialized() + "\n")
        case .table:
            printOut(!single && items.isEmpty
                ? "no pantry items\n"
                : TextTable(
                    headers: ["id", "name", "quantity", "expires", "status", "from"],
                    rows: items.map {
                        [String($0.id), OutputEscaping.visible($0.name), $0.quantity ?? "", $0.expires?.description ?? "", $0.status.rawValue,
                         $0.source == .hand ? "by hand" : $0.source.rawValue]
                    },
                    rightAligned: [0]).rendered())
        }
    }
}
