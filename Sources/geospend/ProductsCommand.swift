import ArgumentParser
import Foundation
import GeoSpend
import GeoSpendSpatiaLite

struct ProductsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "products",
        abstract: "The shared product catalogue: search it.",
        discussion: """
            Example:
              geospend products search milch
            """,
        subcommands: [Search.self])

    struct Search: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "search",
            abstract: "Products ranked by how well their name answers TEXT.",
            usage: """
                geospend products search [--db <db>] <text> [--user <ID>]
                  [--format <format>]
                """,
            discussion: """
                Names and TEXT are folded first (case, accents, spaces, pack sizes).
                Score, added up: name equals TEXT +100, starts with it +50, contains
                it +25; brand equals or contains it +10. A name that does none of the
                first three but is more than 85 % similar to TEXT (1 − edit distance /
                longer length; the whole name or one of its words) scores +20, so a
                typo still finds it. Best first, then by name. An empty TEXT lists
                every product.

                The catalogue is shared by the database's users, like stores: without
                --user every product anyone recorded is searched; with --user only the
                products that user has prices of.

                Examples:
                  geospend products search milch
                  geospend products search vollmilsh --format json
                  geospend products search "" --user alice
                """)
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "What to look for (empty: every product).") var text: String
        @Option(help: ArgumentHelp("Only products this user has prices of.", valueName: "ID"), transform: Identity.normalized)
        var user: String?
        @Option(help: "table, json or csv.") var format: OutputFormat = .table

        func run() async throws {
            let db = try await database.openPrices()
            if let user { try await NameChecks.user(user, in: db, database: database.path) }
            let hits = try await ProductLookup.search(text, userID: user, in: db)
            let headers = ["id", "name", "brand", "category", "barcode", "unit", "score"]
            let rows = hits.map { h in
                [String(h.product.id), h.product.name, h.product.brand ?? "", h.product.category, h.product.barcode?.digits ?? "",
                 h.product.defaultUnit.rawValue, String(h.score)]
            }
            switch format {
            case .table: printOut(TextTable(headers: headers, rows: rows, rightAligned: [0, 6]).rendered())
            case .csv: printOut(CSVTable(headers: headers, rows: rows, textColumns: [1, 2, 3, 4]).rendered())
            case .json: printOut(ProductLookup.json(hits).serialized() + "\n")
            }
        }
    }
}
