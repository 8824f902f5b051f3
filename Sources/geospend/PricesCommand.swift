import ArgumentParser
import Foundation
import GeoSpend
import GeoSpendSpatiaLite

struct PricesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prices",
        abstract: "Price records: import them, show a product's price history.",
        discussion: """
            A price record is a product at a store at an instant, recorded by one user.
            Products are a shared catalogue (like stores); records are their user's.

            Example:
              geospend prices import prices.csv --user alice
              geospend prices history --product "Vollmilch 1,5%" --user alice
              geospend prices list --user alice
              geospend prices edit 12 --price 1.29 --user alice
            """,
        subcommands: [Import.self, History.self, List.self, Edit.self, Delete.self, Top.self, PricesInflationCommand.self])

    struct Top: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "top",
            abstract: "A user's products by what they spent on them, largest first.",
            usage: """
                geospend prices top [--db <db>] --user <ID> [--from <date>]
                  [--to <date>] [--limit <n>] [--format <format>]
                """,
            discussion: """
                Spending on a product is the exact sum of the prices of the user's
                records of it (a record's price is what was paid for its quantity),
                in local days --from to --to. Currencies are never added together:
                each ranks its own products, the one with the most records first.

                Examples:
                  geospend prices top --user alice
                  geospend prices top --user alice --from 2026-03-01 --limit 3 \\
                      --format json
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: ArgumentHelp("Whose records.", valueName: "ID"), transform: Identity.normalized) var user: String
        @Option(help: ArgumentHelp("First local day (YYYY-MM-DD).", valueName: "date")) var from: String?
        @Option(help: ArgumentHelp("Last local day (YYYY-MM-DD).", valueName: "date")) var to: String?
        @Option(help: "Products per currency (1 to 1000).") var limit: Int = 10
        @Option(help: "table, json or csv.") var format: OutputFormat = .table

        func validate() throws {
            guard (1...1000).contains(limit) else { throw ValidationError("--limit \(limit): give 1 to 1000") }
        }

        func run() async throws {
            let db = try await database.openBackend()
            try await NameChecks.user(user, in: db, database: database.path)
            let rows = try await PriceSpending.top(
                userID: user, from: try PriceSpending.day(from, option: "--from"), to: try PriceSpending.day(to, option: "--to"), limit: limit,
                store: db)
            let headers = ["product_id", "product", "currency", "total", "records"]
            let table = rows.map { [String($0.product.id), $0.product.name, $0.total.currency.code, $0.total.decimalString, String($0.records)] }
            switch format {
            case .table: printOut(TextTable(headers: headers, rows: table, rightAligned: [0, 3, 4]).rendered())
            case .csv: printOut(CSVTable(headers: headers, rows: table, textColumns: [1]).rendered())
            case .json: printOut(PriceSpending.json(rows).serialized() + "\n")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "A user's price records with their ids, oldest first.",
            usage: """
                geospend prices list [--db <db>] --user <ID> [--product <P>]
                  [--format <format>]
                """,
            discussion: """
                The ids are what prices edit and prices delete take. --product is a
                product id, a barcode or a name, looked up among the user's products.
                created_at and updated_at are when the database added and last
                changed the record (UTC); empty for records stored before GeoSpend
                kept them.

                Examples:
                  geospend prices list --user alice
                  geospend prices list --user alice --product milch --format json
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: ArgumentHelp("Whose records.", valueName: "ID"), transform: Identity.normalized) var user: String
        @Option(help: ArgumentHelp("Only this product's (id, barcode or name).", valueName: "P")) var product: String?
        @Option(help: "table, json or csv.") var format: OutputFormat = .table

        func run() async throws {
            let db = try await database.openBackend()
            try await NameChecks.user(user, in: db, database: database.path)
            let records = try await PriceRecordJSON.list(userID: user, product: product, in: db)
            Edit.write(records, format: format)
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract: "Correct one of a user's price records.",
            usage: """
                geospend prices edit [--db <db>] <id> --user <ID> [--price <P>]
                  [--currency <C>] [--store <ID>] [--at <time>] [--quantity <Q>]
                  [--unit <U>] [--format <format>]
                """,
            discussion: """
                Changes what is given; the product, the source and the rest stay.
                --price is in the record's currency unless --currency is given too.
                Values are checked as prices import checks them. Another user's id is
                "no such record". Outliers are flagged when prices history reads, so
                a corrected price counts at once. Importing the original file again
                adds nothing: the correction stays.

                Examples:
                  geospend prices edit 12 --price 1.29 --user alice
                  geospend prices edit 12 --quantity 500 --unit g --user alice
                  geospend prices edit 12 --at 2026-03-05T10:00:00+02:00 \\
                      --store s1 --user alice --format json
                """)
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The record's id (prices list shows it).") var id: Int64
        @Option(help: ArgumentHelp("Whose record.", valueName: "ID"), transform: Identity.normalized) var user: String
        @Option(help: ArgumentHelp("The price paid, a positive decimal.", valueName: "P")) var price: String?
        @Option(help: ArgumentHelp("The price's currency (with --price).", valueName: "C")) var currency: String?
        @Option(help: ArgumentHelp("A known store's id.", valueName: "ID")) var store: String?
        @Option(help: ArgumentHelp("When: RFC 3339 with an offset, or a date.", valueName: "time")) var at: String?
        @Option(help: ArgumentHelp("How much the price is for, above 0.", valueName: "Q")) var quantity: String?
        @Option(help: ArgumentHelp("pcs, kg, g, l or ml.", valueName: "U")) var unit: String?
        @Option(help: "table, json or csv.") var format: OutputFormat = .table

        func validate() throws {
            guard [price, currency, store, at, quantity, unit].contains(where: { $0 != nil }) else {
                throw ValidationError("nothing to change: give --price, --store, --at, --quantity or --unit")
            }
        }

        func run() async throws {
            let db = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: db, database: database.path)
            var given: [String: String] = [:]
            given["price"] = price; given["currency"] = currency; given["store"] = store
            given["at"] = at; given["quantity"] = quantity; given["unit"] = unit
            let record = try await PriceCorrection.edit(id: id, given, user: user, store: db)
            Self.write([record], format: format)
        }

        static func write(_ records: [PriceRecord], format: OutputFormat) {
            let headers = ["id", "recorded_at", "product", "store_id", "price", "currency", "quantity", "unit", "source", "created_at", "updated_at"]
            let rows = records.map { r in
                [String(r.id), r.recordedAt.text, r.product.name, r.storeID, r.price.decimalString, r.price.currency.code,
                 History.number(r.quantity), r.unit.rawValue, r.source.rawValue, r.createdAt ?? "", r.updatedAt ?? ""]
            }
            switch format {
            case .table: printOut(TextTable(headers: headers, rows: rows, rightAligned: [0, 4, 6]).rendered())
            case .csv: printOut(CSVTable(headers: headers, rows: rows, textColumns: [2, 3]).rendered())
            case .json: printOut(JSONOutput.array(records.map(PriceRecordJSON.record)).serialized() + "\n")
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete one of a user's price records.",
            usage: "geospend prices delete [--db <db>] <id> --user <ID>",
            discussion: """
                Another user's id is "no such record". A product no record names any
                more leaves the shared catalogue (as with users delete); a community
                feed entry made from the record stays, without its link.

                Example:
                  geospend prices delete 12 --user alice
                """)
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The record's id (prices list shows it).") var id: Int64
        @Option(help: ArgumentHelp("Whose record.", valueName: "ID"), transform: Identity.normalized) var user: String

        func run() async throws {
            let db = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: db, database: database.path)
            try await PriceCorrection.delete(id: id, user: user, store: db)
            printErr("deleted price record \(id) of \(OutputEscaping.visible(user)) (\(database.path))")
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import price records from CSV or JSON Lines (all rows or none, unless --skip-invalid).",
            usage: """
                geospend prices import [--db <db>] --user <ID> [--format <format>]
                  [--skip-invalid] <file>
                """,
            discussion: """
                GeoSpend's columns (CSV header or JSON keys): product, brand, barcode,
                category, store_id, price, currency, recorded_at, quantity, unit.
                store_id, price, currency and recorded_at are required; a row names
                its product by product, barcode or both. price is a positive decimal
                (1.29) for quantity (default 1) of unit (pcs, kg, g, l, ml; default
                pcs); recorded_at is RFC 3339 with an offset or a bare date; barcode
                an EAN-13, UPC-A or EAN-8 with a valid check digit; store_id a store
                already imported (geospend import stores).

                Open Prices' export (a header or first object with location_osm_id):
                product_code, product_name, category_tag, price, currency, date,
                price_per (UNIT, KILOGRAM, LITER), location_osm_type and
                location_osm_id; the store is the one imported from that
                OpenStreetMap element (source id osm:node/ID). Other columns are
                ignored.

                A product name is matched to the catalogue: the same barcode, else a
                folded name (case, accents, spaces, pack sizes like 1 kg) more than
                85 % similar (1 − edit distance / longer length); otherwise it is a
                new product, category Other unless given. Importing the same file
                again adds nothing. Bad rows are listed as FILE:LINE: COLUMN: reason
                and nothing is written, unless --skip-invalid.

                Examples:
                  geospend prices import Data/examples/prices.csv --user alice
                  geospend prices import open-prices.csv --user alice
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: ArgumentHelp("Whose records these are (created when new).", valueName: "ID"), transform: Identity.normalized)
        var user: String
        @Option(help: "csv or jsonl (default: from the extension).") var format: ImportFormat?
        @Flag(help: "Import the good rows and list the bad ones, instead of importing nothing.") var skipInvalid = false
        @Argument(help: "The file to import.") var file: String

        func run() async throws {
            let store = try await database.openBackend(writable: true)
            let report = try await PriceImport.importPrices(
                from: file, format: format, userID: user, into: store, options: ImportOptions(skipInvalid: skipInvalid))
            for e in report.rows.errors { printErr(e.description) }
            if report.rows.rejected > report.rows.errors.count { printErr("… and \(report.rows.rejected - report.rows.errors.count) more bad rows") }
            var line = "imported \(report.rows.inserted) price records (\(report.newProducts) new products), \(report.rows.unchanged) already present"
            if report.rows.rejected > 0 { line += ", \(report.rows.rejected) bad rows skipped" }
            printErr(line + (report.openPrices ? " from Open Prices columns" : "") + " (\(database.path))")
        }
    }

    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "history",
            abstract: "A product's prices, oldest first, outliers flagged.",
            usage: """
                geospend prices history [--db <db>] --product <P> [--store <ID>]
                  (--user <ID> | --all-users) [--format <format>]
                """,
            discussion: """
                --product is a product id, a barcode or a name (matched like an
                import: folded, more than 85 % similar). --user shows that user's
                records; --all-users everyone's, without who recorded them and with
                the day only.

                Outliers: a price is flagged when its unit price (per kg, l or
                piece) has a modified z-score |0.6745 × (x − median) / MAD| above
                3.5 among the product's prices in the same currency (Iglewicz and
                Hoaglin). Median and MAD are not moved by the outlier itself, as a
                mean and standard deviation would be, so one mistyped 129.00 among
                1.29s is found even in a short history. When most prices are equal
                (MAD 0) the mean absolute deviation stands in; under 3 prices nothing
                is flagged.

                Examples:
                  geospend prices history --product "Vollmilch 1,5%" --user alice
                  geospend prices history --product 4006381333931 --all-users \\
                      --store 288130404 --format csv
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: ArgumentHelp("A product id, barcode or name.", valueName: "P")) var product: String
        @Option(help: ArgumentHelp("Only records of this store.", valueName: "ID")) var store: String?
        @Option(help: ArgumentHelp("Only this user's records.", valueName: "ID"), transform: Identity.normalized) var user: String?
        @Flag(help: "Every user's records (no user ids, days only).") var allUsers = false
        @Option(help: "table, json or csv.") var format: OutputFormat = .table

        func validate() throws {
            guard (user == nil) != !allUsers else { throw ValidationError("give --user ID for one user's prices, or --all-users") }
        }

        func run() async throws {
            let db = try await database.openBackend()
            if let user { try await NameChecks.user(user, in: db, database: database.path) }
            let report = try await PriceHistoryReport.make(product: product, storeID: store, userID: user, in: db)
            let (found, entries, names) = (report.product, report.entries, report.storeNames)
            let headers = ["recorded_at", "store_id", "store", "price", "currency", "quantity", "unit", "unit_price", "per", "source", "outlier"]
            let rows = entries.map { e -> [String] in
                let r = e.record
                return [report.when(r), r.storeID, names[r.storeID] ?? "", r.price.decimalString, r.price.currency.code, Self.number(r.quantity),
                        r.unit.rawValue, Self.unitPrice(r), r.unit.base.rawValue, r.source.rawValue, e.isOutlier ? "outlier" : ""]
            }
            switch format {
            case .table:
                printOut("\(found.name)\(found.brand.map { " (\($0))" } ?? "") — \(entries.count) prices, \(entries.filter(\.isOutlier).count) outliers\n")
                printOut(TextTable(headers: headers, rows: rows, rightAligned: [3, 5, 7]).rendered())
            case .csv:
                printOut(CSVTable(headers: headers, rows: rows, textColumns: [1, 2]).rendered())
            case .json:
                printOut(report.json.serialized() + "\n")
            }
        }

        static func number(_ q: Double) -> String { q == q.rounded() && abs(q) < 1e15 ? String(Int64(q)) : String(q) }
        static func unitPrice(_ r: PriceRecord) -> String {
            let digits = r.price.currency.minorDigits + 2
            return String(format: "%.\(digits)f", r.unitPrice)
        }
    }
}
