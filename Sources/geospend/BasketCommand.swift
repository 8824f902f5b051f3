import ArgumentParser
import Foundation
import GeoSpend

struct BasketCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "basket",
        abstract: "Where a shopping list costs least: stores ranked by the list's total, within reach.",
        usage: """
            geospend basket (--item <name[=qty]> ... | --items-file <file>)
              [--as-of <date>] [--near <lat,lon> --radius <r>] [--cost-per-km <x>]
              [--currency <code>] [--min-availability 0.85] [--min-users 1]
              [--top 3] [--user <ID>] [--format table|json]
            """,
        discussion: """
            CartWise's rule: a store's price for an item is its latest record on or
            before --as-of; stores with prices for fewer than --min-availability of
            the items are dropped; the rest are ranked by the total of the items
            they price (price × quantity), ties by store id.

            QTY is a count of packs (Milch=2) or an amount (Milch=1.5l, Äpfel=500g)
            priced by each store's price per kg or l. When an item's packs differ
            between stores, a count means that many of its most common pack, priced
            per kg or l.

            Beyond the seed: --near/--radius keeps stores within the geodesic
            radius; --cost-per-km adds each store's round trip (home → store → home,
            straight legs) and ranks by total with travel; a two-store split (trip
            home → A → B → home) is shown when it prices as many items and costs
            less with its trip; each store's estimated total prices its missing
            items at their median at the other stores (the seed's total makes a
            store missing items look cheaper). One currency per comparison
            (--currency, else the most common). --min-users N publishes a store's
            price for a product only when N distinct users recorded it there.
            --user compares that user's own price records only.

            Example:
              geospend basket --item Milch=2 --item "Brot Vollkorn" --item Äpfel=1kg \\
                  --near 60.1699,24.9384 --radius 2km --cost-per-km 0.30 --format json
            """)

    @OptionGroup var database: DatabaseOptions
    @Option(parsing: .unconditionalSingleValue, help: "An item, NAME or NAME=QTY (2, 1.5l, 500g); repeatable.") var item: [String] = []
    @Option(help: "A file with one item per line (NAME or NAME=QTY; # starts a comment).") var itemsFile: String?
    @Option(help: "Prices on or before this local day (default: today, UTC).") var asOf: String?
    @Option(help: ArgumentHelp("Only this user's price records (default: every user's).", valueName: "ID"), transform: Identity.normalized)
    var user: String?
    @OptionGroup var reach: BasketOptions
    @Option(help: "table or json.") var format: BasketFormat = .table

    enum BasketFormat: String, ExpressibleByArgument, CaseIterable { case table, json }

    func validate() throws {
        if item.isEmpty == (itemsFile == nil) { throw ValidationError("give the list as --item NAME[=QTY] (repeatable) or --items-file FILE") }
    }

    func run() async throws {
        let specs = try itemsFile.map(Self.readItems) ?? item.map { (line: 0, spec: $0) }
        var wanted: [(name: String, want: BasketItem.Want)] = []
        for (line, spec) in specs {
            do { wanted.append(try BasketItem.parseSpec(spec)) } catch {
                throw ValidationError(line > 0 ? "\(itemsFile!), line \(line): \(error)" : "--item: \(error)")
            }
        }
        let asOfDay = try Self.day(asOf)
        let store = try await database.openBackend()
        if let user { try await NameChecks.user(user, in: store, database: database.path) }
        let result = try await reach.compare(wanted, asOf: asOfDay, in: store, userID: user)
        // An item read as a product of another name says which (the JSON has every item's).
        for m in result.matched {
            guard let p = m.product, ProductName.normalized(m.item) != p.normalizedName else { continue }
            printErr("geospend: \"\(OutputEscaping.visible(m.item))\" is read as \"\(OutputEscaping.visible(p.name))\" (product \(p.id))")
        }
        switch format {
        case .json: printOut(result.json(asOf: asOfDay).serialized() + "\n")
        case .table: printOut(BasketOutput.table(result))
        }
    }

    /// A bare date, or today (UTC) when none is given.
    static func day(_ text: String?) throws -> LocalDay { try BasketReach.day(text) }

    static func readItems(_ path: String) throws -> [(line: Int, spec: String)] {
        let text = try ReceiptsCommand.readText(path)
        var items: [(line: Int, spec: String)] = []
        for (i, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            items.append((i + 1, line))
        }
        if items.isEmpty { throw ValidationError("\(path) lists no items; write one per line, e.g. Milch=2") }
        return items
    }
}

/// The options of a comparison within reach, shared by `basket` and `lists show`.
struct BasketOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "Home, LAT,LON: distances and trips start here.") var near: String?
    @Option(help: "Only stores within this geodesic distance of --near (300m, 2km).") var radius: String?
    @Option(help: "Travel cost per km in the comparison's currency (0.30).") var costPerKm: String?
    @Option(help: "The comparison's currency (default: the one most records have).") var currency: String?
    @Option(help: "Drop stores pricing fewer than this share of the items (0–1).") var minAvailability: Double = 0.85
    @Option(help: "Publish a store's price only when this many distinct users recorded it.") var minUsers: Int = 1
    @Option(help: "How many stores to list.") var top: Int = 3

    var reach: BasketReach {
        var r = BasketReach()
        (r.near, r.radius, r.costPerKm, r.currency) = (near, radius, costPerKm, currency)
        (r.minAvailability, r.minUsers, r.top) = (minAvailability, minUsers, top)
        return r
    }

    func validate() throws {
        do { try reach.validate() } catch let e as UsageError { throw ValidationError(e.message) }
    }

    /// With `userID`, only that user's price records count.
    func compare(
        _ wanted: [(name: String, want: BasketItem.Want)], asOf asOfDay: LocalDay, in store: some PriceStore & ExpenseStore, userID: String? = nil
    ) async throws -> BasketResult {
        var reach = reach
        reach.userID = userID
        return try await reach.compare(wanted, asOf: asOfDay, in: store) { name in
            printErr("geospend: no product matches \"\(name)\": it counts as missing at every store (see `geospend products search`)")
        }
    }
}

enum BasketOutput {
    static func table(_ r: BasketResult) -> String {
        guard let c = r.currency, !r.stores.isEmpty else {
            return "No store prices enough of the \(r.totalItems) items (\(r.candidates) stores have prices for some).\n"
        }
        let m = { (minor: Int64) in Money.decimalString(minor, digits: c.minorDigits) }
        var out = TextTable(
            headers: ["store", "name", "items", "total", "travel", "with travel", "estimated", "distance_m"],
            rows: r.stores.map { l in
                [OutputEscaping.visible(l.store.id), OutputEscaping.visible(l.store.name ?? ""), "\(l.availableItems)/\(r.totalItems)",
                 m(l.totalMinor), m(l.travelMinor), m(l.totalWithTravelMinor), m(l.estimatedTotalMinor),
                 l.distanceMeters.map { formatDecimal($0, digits: 0) } ?? ""]
            }, rightAligned: [2, 3, 4, 5, 6, 7]).rendered()
        out += "Prices in \(c.code). Estimated: missing items at their median price at the other stores.\n"
        for l in r.stores where !l.unavailable.isEmpty {
            out += "\(OutputEscaping.visible(l.store.id)) has no price for: \(l.unavailable.map(OutputEscaping.visible).joined(separator: ", "))\n"
        }
        if let e = r.bestByEstimate, e.store.id != r.stores[0].store.id {
            out += "Counting missing items at their median, \(OutputEscaping.visible(e.store.id)) is cheapest (\(m(e.estimatedTotalMinor))).\n"
        }
        if let s = r.split {
            out += "Two stores: \(OutputEscaping.visible(s.first.id)) then \(OutputEscaping.visible(s.second.id)), \(m(s.totalMinor)) + travel \(m(s.travelMinor)): saves \(m(s.savingMinor)).\n"
        }
        for o in r.otherCurrencies { out += "Left out: \(o.records) records in \(o.currency) (use --currency \(o.currency)).\n" }
        return out
    }
}
