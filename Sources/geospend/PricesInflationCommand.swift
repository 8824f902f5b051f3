import ArgumentParser
import Foundation
import GeoSpend

struct PricesInflationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inflation",
        abstract: "How fast prices rose: a product's, a category's or all, anywhere.",
        usage: """
            geospend prices inflation [--product <name> | --category <name>]
              [--days 365] [--as-of <date>]
              [--store <id> | --near <lat,lon> --radius <r>]
              [--currency <code>] [--user <ID>] [--format table|json] [--db <db>]
            """,
        discussion: """
            AllesTeurer's rate: the records of the last --days days up to --as-of
            (local days, both included), sorted by date; k = n / 4 (whole part);
            rate = (mean of the last k unit prices − mean of the first k) / mean of
            the first k × 100. Unit prices are per kg, l or piece, so pack sizes
            compare. Fewer than 2 records: 0. For 2 or 3 records k is 1 (the seed
            leaves it undefined): the first record against the last.

            A category's rate is each product's own rate weighted by its number of
            records (products with fewer than 2 have none), not the seed's average
            of raw prices across products, which reads a change in what was bought
            as a change in price. Neither --product nor --category: the overall rate,
            every product weighted alike by its number of records.

            --store limits to one store, --near/--radius to the stores within a
            geodesic radius. One currency (--currency, else the most common).
            --user counts that user's own price records only, at the registry's
            stores and their own (mine-N, also within --near/--radius).

            Example:
              geospend prices inflation --product "Milch 1,5%" --as-of 2025-12-31
              geospend prices inflation --category Dairy --near 60.1699,24.9384 \\
                  --radius 2km --format json
              geospend prices inflation --user alice --as-of 2026-03-31
            """)

    @OptionGroup var database: DatabaseOptions
    @Option(help: "A product's name (matched as prices are).") var product: String?
    @Option(help: "A product category.") var category: String?
    @Option(help: "The window's length in days, up to --as-of.") var days: Int = 365
    @Option(help: "The window's last local day (default: today, UTC).") var asOf: String?
    @Option(help: "Only this store's records.") var store: String?
    @Option(parsing: .unconditional, help: "Only stores within --radius of this point, LAT,LON.") var near: String?
    @Option(help: "The radius around --near (500m, 2km).") var radius: String?
    @Option(help: "The currency (default: the one most records have).") var currency: String?
    @Option(help: ArgumentHelp("Only this user's price records (default: every user's).", valueName: "ID"), transform: Identity.normalized)
    var user: String?
    @Option(help: "table or json.") var format: BasketCommand.BasketFormat = .table

    var query: InflationQuery {
        var q = InflationQuery()
        (q.product, q.category, q.days, q.asOf, q.store) = (product, category, days, asOf, store)
        (q.near, q.radius, q.currency, q.userID) = (near, radius, currency, user)
        return q
    }

    func validate() throws {
        do { try query.validate() } catch let e as UsageError { throw ValidationError(e.message) }
    }

    func run() async throws {
        let db = try await database.openBackend()
        if let user { try await NameChecks.user(user, in: db, database: database.path) }
        let (result, names) = try await query.compute(in: db)
        let name = { (id: String) in Int64(id).flatMap { names[$0] } ?? id }
        switch format {
        case .json: printOut(InflationQuery.json(result, names: names).serialized() + "\n")
        case .table:
            var out = "rate: \(formatDecimal(result.ratePercent, digits: 2)) % over \(result.records) records, \(result.windowFrom) to \(result.windowTo)"
            out += result.currency.map { " (\($0.code))\n" } ?? "\n"
            out += TextTable(
                headers: ["product", "records", "rate %"],
                rows: result.products.map { [OutputEscaping.visible(name($0.productID)), String($0.records), formatDecimal($0.ratePercent, digits: 2)] },
                rightAligned: [1, 2]).rendered()
            printOut(out)
        }
    }
}
