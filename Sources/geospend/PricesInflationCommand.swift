import ArgumentParser
import Foundation
import GeoSpend

struct PricesInflationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inflation",
        abstract: "How fast a product's or a category's prices rose, at one place or all.",
        usage: """
            geospend prices inflation (--product <name> | --category <name>)
              [--days 365] [--as-of <date>]
              [--store <id> | --near <lat,lon> --radius <r>]
              [--currency <code>] [--format table|json] [--db <db>]
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
            as a change in price.

            --store limits to one store, --near/--radius to the stores within a
            geodesic radius. One currency (--currency, else the most common).

            Example:
              geospend prices inflation --product "Milch 1,5%" --as-of 2025-12-31
              geospend prices inflation --category Dairy --near 60.1699,24.9384 \\
                  --radius 2km --format json
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
    @Option(help: "table or json.") var format: BasketCommand.BasketFormat = .table

    func validate() throws {
        if (product == nil) == (category == nil) { throw ValidationError("give --product NAME or --category NAME") }
        if (near == nil) != (radius == nil) { throw ValidationError("--near and --radius go together: the stores within R of LAT,LON") }
        if store != nil && near != nil { throw ValidationError("give --store ID or --near/--radius, not both") }
        if days < 1 { throw ValidationError("--days \(days): give 1 or more") }
    }

    func run() async throws {
        let asOfDay = try BasketCommand.day(asOf)
        let asked = try currency.map { try Currency(code: $0) }
        let db = try await database.openPrices()
        var query = PriceQuery(from: asOfDay.adding(days: -Int64(days)), to: asOfDay, currency: asked)
        var names: [Int64: String] = [:]
        if let product {
            let products = try await db.products()
            guard let p = ProductMatch.find(name: product, barcode: nil, among: products) else {
                throw ValidationError("--product \(product): no product matches; see `geospend products search \(product)`")
            }
            query.productIDs = [p.id]
            names[p.id] = p.name
        } else {
            query.category = category
        }
        if let store { query.storeIDs = [store] }
        if let near, let radius {
            let center = try ExportCommand.parseCoordinate(near, option: "--near")
            let r = try Parse.distance(radius, option: "--radius")
            query.storeIDs = Set(try await db.read { reader in try reader.stores(within: r, of: center, kind: nil) }.map(\.store.id))
        }
        let records = try await db.priceRecords(query)
        for r in records { names[r.product.id] = r.product.name }
        var request = InflationRequest(
            products: product != nil ? Set(query.productIDs!.map(String.init)) : Set(records.map { String($0.product.id) }), asOf: asOfDay)
        request.days = Int64(days)
        request.currency = asked
        let result = Inflation.compute(request, observations: records.map(PriceObservation.init))
        let name = { (id: String) in Int64(id).flatMap { names[$0] } ?? id }
        switch format {
        case .json: printOut(Self.json(result, name: name).serialized() + "\n")
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

    static func json(_ r: InflationResult, name: (String) -> String) -> JSONOutput {
        func window(_ w: InflationWindow?) -> JSONOutput {
            guard let w else { return .null }
            return .object([
                ("from", .string(w.from.description)), ("to", .string(w.to.description)), ("records", .integer(Int64(w.records))),
                ("mean_unit_price", w.meanUnitPrice.map { .number($0, decimals: 6) } ?? .null),
            ])
        }
        return .object([
            ("rate_percent", .number(r.ratePercent, decimals: 6)), ("records", .integer(Int64(r.records))),
            ("first_window", window(r.firstWindow)), ("last_window", window(r.lastWindow)),
            ("currency", r.currency.map { .string($0.code) } ?? .null),
            ("window", .object([("from", .string(r.windowFrom.description)), ("to", .string(r.windowTo.description))])),
            ("products", .array(r.products.map { p in
                .object([
                    ("product_id", .string(p.productID)), ("name", .string(name(p.productID))), ("rate_percent", .number(p.ratePercent, decimals: 6)),
                    ("records", .integer(Int64(p.records))),
                ])
            })),
        ])
    }
}
