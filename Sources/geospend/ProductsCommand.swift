import ArgumentParser
import Foundation
import GeoSpend
import GeoSpendSpatiaLite

struct ProductsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "products",
        abstract: "The shared product catalogue: search it, tag and mark your products.",
        discussion: """
            Products are shared by the database's users; tags, favourites and the
            on-sale flag are each user's own, and so are edits: a user's products
            are those they have a price record of.

            Examples:
              geospend products search milch
              geospend products list --user alice --favourites
              geospend products tag "Vollmilch 1,5%" --tag dairy --color blue \\
                  --user alice
            """,
        subcommands: [
            Search.self, List.self, Tags.self, Tag.self, Untag.self, Favourite.self, Unfavourite.self, Sale.self, Edit.self,
            Merge.self, Delete.self,
        ])

    typealias Store = ExpenseStore & PriceStore & ProductStore

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "A user's products by name, with their tags and flags.",
            usage: """
                geospend products list [--db <db>] --user <ID> [--tag <T>]
                  [--favourites] [--on-sale] [--category <C>] [--format <format>]
                """,
            discussion: """
                The products the user has a price record of, by name ascending (case
                and accents folded, then the name's bytes). --category browses one
                category (compared without case); --tag, --favourites and --on-sale
                narrow to the user's own marks. created_at and updated_at are the
                product's (UTC), empty for products older than GeoSpend's times.

                Examples:
                  geospend products list --user alice
                  geospend products list --user alice --category Dairy
                  geospend products list --user alice --tag dairy --format json
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: ArgumentHelp("Whose products.", valueName: "ID"), transform: Identity.normalized) var user: String
        @Option(help: ArgumentHelp("Only products with this tag.", valueName: "T")) var tag: String?
        @Flag(help: "Only favourites.") var favourites = false
        @Flag(help: "Only products marked on sale.") var onSale = false
        @Option(help: ArgumentHelp("Only this category's products.", valueName: "C")) var category: String?
        @Option(help: "table, json or csv.") var format: OutputFormat = .table

        func run() async throws {
            let db = try await database.openBackend()
            try await NameChecks.user(user, in: db, database: database.path)
            let listed = try await ProductCatalogue.list(
                userID: user, ProductCatalogue.Filter(tag: tag, favourites: favourites, onSale: onSale, category: category), store: db)
            let headers = ["id", "name", "brand", "category", "barcode", "unit", "favourite", "on_sale", "tags", "created_at", "updated_at"]
            let rows = listed.map { p, m in
                [String(p.id), p.name, p.brand ?? "", p.category, p.barcode?.digits ?? "", p.defaultUnit.rawValue, m.favourite ? "yes" : "",
                 m.onSale ? "yes" : "", m.tags.joined(separator: ";"), p.createdAt ?? "", p.updatedAt ?? ""]
            }
            switch format {
            case .table: printOut(TextTable(headers: headers, rows: rows, rightAligned: [0]).rendered())
            case .csv: printOut(CSVTable(headers: headers, rows: rows, textColumns: [1, 2, 3, 4, 8]).rendered())
            case .json: printOut(JSONOutput.array(listed.map { ProductCatalogue.json($0.product, $0.marks) }).serialized() + "\n")
            }
        }
    }

    struct Tags: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tags",
            abstract: "A user's product tags with their colours.",
            usage: "geospend products tags [--db <db>] --user <ID> [--format <format>]",
            discussion: """
                Example:
                  geospend products tags --user alice
                """)
        @OptionGroup var database: DatabaseOptions
        @Option(help: ArgumentHelp("Whose tags.", valueName: "ID"), transform: Identity.normalized) var user: String
        @Option(help: "table, json or csv.") var format: OutputFormat = .table

        func run() async throws {
            let db = try await database.openBackend()
            try await NameChecks.user(user, in: db, database: database.path)
            let tags = try await db.productTags(userID: user)
            let rows = tags.map { [$0.name, $0.color ?? "", String($0.products)] }
            switch format {
            case .table: printOut(TextTable(headers: ["tag", "color", "products"], rows: rows, rightAligned: [2]).rendered())
            case .csv: printOut(CSVTable(headers: ["tag", "color", "products"], rows: rows, textColumns: [0]).rendered())
            case .json: printOut(JSONOutput.array(tags.map(ProductCatalogue.json)).serialized() + "\n")
            }
        }
    }

    struct Tag: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tag",
            abstract: "Tag one of a user's products (the tag is made when new).",
            usage: """
                geospend products tag [--db <db>] <product> --tag <T> [--color <C>]
                  --user <ID>
                """,
            discussion: """
                PRODUCT is an id, a barcode or a name among the user's products. Tags
                are the user's own, compared without case; --color (#RRGGBB or a name
                such as orange) sets the tag's colour, for every product it is on.

                Example:
                  geospend products tag "Vollmilch 1,5%" --tag dairy --color "#34C759" \\
                      --user alice
                """)
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "An id, barcode or name.") var product: String
        @Option(help: ArgumentHelp("The tag's name.", valueName: "T")) var tag: String
        @Option(help: ArgumentHelp("#RRGGBB or a colour name.", valueName: "C")) var color: String?
        @Option(help: ArgumentHelp("Whose product.", valueName: "ID"), transform: Identity.normalized) var user: String

        func run() async throws {
            let db: any Store = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: db, database: database.path)
            let t = try await ProductCatalogue.tag(tag, product: product, color: color, userID: user, store: db)
            printErr("tagged \(OutputEscaping.visible(product)) \(OutputEscaping.visible(t.name))\(t.color.map { " (\($0))" } ?? ""); the tag is on \(t.products) products")
        }
    }

    struct Untag: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "untag",
            abstract: "Take a tag off one of a user's products.",
            usage: "geospend products untag [--db <db>] <product> --tag <T> --user <ID>",
            discussion: """
                A tag left on no product is deleted.

                Example:
                  geospend products untag "Vollmilch 1,5%" --tag dairy --user alice
                """)
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "An id, barcode or name.") var product: String
        @Option(help: ArgumentHelp("The tag's name.", valueName: "T")) var tag: String
        @Option(help: ArgumentHelp("Whose product.", valueName: "ID"), transform: Identity.normalized) var user: String

        func run() async throws {
            let db: any Store = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: db, database: database.path)
            try await ProductCatalogue.untag(tag, product: product, userID: user, store: db)
            printErr("untagged \(OutputEscaping.visible(product)) \(OutputEscaping.visible(tag))")
        }
    }

    /// `favourite`, `unfavourite` and `sale` set one flag.
    static func mark(_ database: DatabaseOptions, _ product: String, user: String, favourite: Bool?, onSale: Bool?) async throws -> Product {
        let db: any Store = try await database.openBackend(writable: true)
        try await NameChecks.user(user, in: db, database: database.path)
        return try await ProductCatalogue.mark(product: product, favourite: favourite, onSale: onSale, userID: user, store: db)
    }

    struct Favourite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "favourite",
            abstract: "Mark one of a user's products as a favourite.",
            usage: "geospend products favourite [--db <db>] <product> --user <ID>",
            discussion: """
                Example:
                  geospend products favourite "Vollmilch 1,5%" --user alice
                """)
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "An id, barcode or name.") var product: String
        @Option(help: ArgumentHelp("Whose product.", valueName: "ID"), transform: Identity.normalized) var user: String

        func run() async throws {
            let p = try await ProductsCommand.mark(database, product, user: user, favourite: true, onSale: nil)
            printErr("\(OutputEscaping.visible(p.name)) is a favourite of \(OutputEscaping.visible(user))")
        }
    }

    struct Unfavourite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unfavourite",
            abstract: "Unmark one of a user's favourite products.",
            usage: "geospend products unfavourite [--db <db>] <product> --user <ID>",
            discussion: """
                Example:
                  geospend products unfavourite "Vollmilch 1,5%" --user alice
                """)
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "An id, barcode or name.") var product: String
        @Option(help: ArgumentHelp("Whose product.", valueName: "ID"), transform: Identity.normalized) var user: String

        func run() async throws {
            let p = try await ProductsCommand.mark(database, product, user: user, favourite: false, onSale: nil)
            printErr("\(OutputEscaping.visible(p.name)) is no longer a favourite of \(OutputEscaping.visible(user))")
        }
    }

    struct Sale: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sale",
            abstract: "Mark one of a user's products on sale (--off: not on sale).",
            usage: "geospend products sale [--db <db>] <product> --user <ID> [--off]",
            discussion: """
                The flag is the user's own note, like a favourite.

                Examples:
                  geospend products sale "Vollmilch 1,5%" --user alice
                  geospend products sale "Vollmilch 1,5%" --user alice --off
                """)
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "An id, barcode or name.") var product: String
        @Option(help: ArgumentHelp("Whose product.", valueName: "ID"), transform: Identity.normalized) var user: String
        @Flag(help: "Clear the flag.") var off = false

        func run() async throws {
            let p = try await ProductsCommand.mark(database, product, user: user, favourite: nil, onSale: !off)
            printErr("\(OutputEscaping.visible(p.name)) is \(off ? "not " : "")on sale for \(OutputEscaping.visible(user))")
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract: "Change a product only the user's records name.",
            usage: """
                geospend products edit [--db <db>] <product> --user <ID> [--name <N>]
                  [--brand <B>] [--category <C>] [--barcode <code>] [--unit <U>]
                  [--format <format>]
                """,
            discussion: """
                Products are shared: a product other users have records of is refused,
                since an edit would change their records too; products merge moves
                your records to another product instead. --brand "" and --barcode ""
                unset.

                Example:
                  geospend products edit 4 --user alice --name "Äpfel Elstar" \\
                      --category Fruit
                """)
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "An id, barcode or name.") var product: String
        @Option(help: ArgumentHelp("Whose product.", valueName: "ID"), transform: Identity.normalized) var user: String
        @Option(help: ArgumentHelp("A new name.", valueName: "N")) var name: String?
        @Option(help: ArgumentHelp("A brand (\"\" unsets).", valueName: "B")) var brand: String?
        @Option(help: ArgumentHelp("A category.", valueName: "C")) var category: String?
        @Option(help: ArgumentHelp("EAN-13, UPC-A or EAN-8 (\"\" unsets).", valueName: "code")) var barcode: String?
        @Option(help: ArgumentHelp("pcs, kg, g, l or ml.", valueName: "U")) var unit: String?
        @Option(help: "table, json or csv.") var format: OutputFormat = .table

        func run() async throws {
            let db: any Store = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: db, database: database.path)
            var given: [String: String] = [:]
            given["name"] = name; given["brand"] = brand; given["category"] = category; given["barcode"] = barcode; given["unit"] = unit
            let p = try await ProductCatalogue.edit(product: product, given, userID: user, store: db)
            let marks = try await db.productMarks(userID: user)[p.id] ?? ProductMarks()
            switch format {
            case .json: printOut(ProductCatalogue.json(p, marks).serialized() + "\n")
            default: printErr("product \(p.id) is now \"\(OutputEscaping.visible(p.name))\" (\(OutputEscaping.visible(p.category)))")
            }
        }
    }

    struct Merge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "merge",
            abstract: "Move a user's records of one product to another.",
            usage: "geospend products merge [--db <db>] <product> --into <P> --user <ID>",
            discussion: """
                Your price records, tags and flags of PRODUCT move to --into. Other
                users' records of PRODUCT stay where they are: the product leaves the
                catalogue only when no record names it any more.

                Example:
                  geospend products merge "Apfel 500 g" --into Äpfel --user alice
                """)
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "An id, barcode or name.") var product: String
        @Option(help: ArgumentHelp("The product to merge into.", valueName: "P")) var into: String
        @Option(help: ArgumentHelp("Whose records.", valueName: "ID"), transform: Identity.normalized) var user: String

        func run() async throws {
            let db: any Store = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: db, database: database.path)
            let (target, moved) = try await ProductCatalogue.merge(product, into: into, userID: user, store: db)
            printErr("moved \(moved) price records to product \(target.id) \"\(OutputEscaping.visible(target.name))\"")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete a user's records, tags and flags of one product.",
            usage: "geospend products delete [--db <db>] <product> --user <ID>",
            discussion: """
                Other users' records stay; the product leaves the shared catalogue
                when no record names it any more.

                Example:
                  geospend products delete "Apfel 500 g" --user alice
                """)
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "An id, barcode or name.") var product: String
        @Option(help: ArgumentHelp("Whose records.", valueName: "ID"), transform: Identity.normalized) var user: String

        func run() async throws {
            let db: any Store = try await database.openBackend(writable: true)
            try await NameChecks.user(user, in: db, database: database.path)
            let (p, gone) = try await ProductCatalogue.delete(product, userID: user, store: db)
            printErr("deleted \(gone) price records of product \(p.id) \"\(OutputEscaping.visible(p.name))\" of \(OutputEscaping.visible(user))")
        }
    }

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
            let db = try await database.openBackend()
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
