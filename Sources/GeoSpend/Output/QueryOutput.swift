/// The documented output contracts of `near` and `nearest-stores` (README, "JSON output"):
/// the same fields in JSON, CSV and tables, built here so the CLI and library users agree.
public enum QueryOutput {
    /// Metres with one decimal, always shown, so table columns line up.
    static func fixed(_ meters: Double) -> String {
        let s = formatDecimal(meters, digits: 1)
        return s.utf8.contains(UInt8(ascii: ".")) ? s : s + ".0"
    }

    // MARK: near

    public static func json(_ r: RadiusResult) -> JSONOutput {
        .object([
            ("center", center(r.center)),
            ("radius_m", .meters(r.radius.meters)),
            ("count", .integer(Int64(r.hits.count))),
            ("totals", .array(r.totals.map(total))),
            ("expenses", .array(r.hits.map(expense))),
        ])
    }

    static func center(_ c: Coordinate) -> JSONOutput {
        .object([("lat", .degrees(c.latitude)), ("lon", .degrees(c.longitude))])
    }

    static func total(_ t: MoneyTotal) -> JSONOutput {
        .object([
            ("currency", .string(t.currency.code)),
            ("count", .integer(Int64(t.count))),
            ("total", .string(t.total.decimalString)),
            ("average", .string(t.average.decimalString)),
        ])
    }

    static func expense(_ h: ExpenseHit) -> JSONOutput {
        let e = h.expense
        return .object([
            ("id", .string(e.id)),
            ("user", .string(e.userID)),
            ("kind", .string(e.kind.rawValue)),
            ("amount", .string(e.amount.decimalString)),
            ("currency", .string(e.amount.currency.code)),
            ("occurred_at", .string(e.occurredAt.text)),
            ("title", .text(e.title)),
            ("category", .text(e.category)),
            ("merchant", .text(e.merchant)),
            ("store_id", .text(e.storeID)),
            ("lat", e.location.map { .degrees($0.coordinate.latitude) } ?? .null),
            ("lon", e.location.map { .degrees($0.coordinate.longitude) } ?? .null),
            ("accuracy_m", e.location?.accuracyMeters.map { .number($0, decimals: 3) } ?? .null),
            ("distance_m", .meters(h.distanceMeters)),
        ])
    }

    static let nearColumns = [
        "id", "user", "kind", "amount", "currency", "occurred_at", "title", "category", "merchant", "store_id", "lat",
        "lon", "distance_m",
    ]

    static func nearRow(_ h: ExpenseHit) -> [String] {
        let e = h.expense
        return [
            e.id, e.userID, e.kind.rawValue, e.amount.decimalString, e.amount.currency.code, e.occurredAt.text,
            e.title ?? "", e.category ?? "", e.merchant ?? "", e.storeID ?? "",
            e.location.map { formatDecimal($0.coordinate.latitude, digits: 7) } ?? "",
            e.location.map { formatDecimal($0.coordinate.longitude, digits: 7) } ?? "",
            formatDecimal(h.distanceMeters, digits: 3),
        ]
    }

    public static func csv(_ r: RadiusResult) -> String {
        CSVTable(headers: nearColumns, rows: r.hits.map(nearRow), textColumns: [0, 1, 6, 7, 8, 9]).rendered()
    }

    public static func table(_ r: RadiusResult) -> String {
        var out = "\(r.hits.count) expense\(r.hits.count == 1 ? "" : "s") within \(r.radius) of \(formatDecimal(r.center.latitude, digits: 6)), \(formatDecimal(r.center.longitude, digits: 6))\n"
        if !r.hits.isEmpty {
            let rows = r.hits.map { h in
                [
                    fixed(h.distanceMeters), h.expense.occurredAt.text,
                    h.expense.amount.decimalString, h.expense.amount.currency.code, h.expense.category ?? "",
                    h.expense.title ?? h.expense.merchant ?? "", h.expense.id,
                ]
            }
            out += "\n" + TextTable(
                headers: ["distance m", "occurred at", "amount", "cur", "category", "title", "id"], rows: rows,
                rightAligned: [0, 2]
            ).rendered()
        }
        if !r.totals.isEmpty {
            let rows = r.totals.map { [$0.currency.code, String($0.count), $0.total.decimalString, $0.average.decimalString] }
            out += "\nTotals\n" + TextTable(headers: ["currency", "count", "total", "average"], rows: rows, rightAligned: [1, 2, 3]).rendered()
        }
        return out
    }

    // MARK: nearest-stores

    public static func json(_ r: NearestStoresResult) -> JSONOutput {
        .object([
            ("center", center(r.center)),
            ("stores", .array(r.stores.map(store))),
        ])
    }

    static func store(_ h: StoreHit) -> JSONOutput {
        let s = h.store
        return .object([
            ("id", .string(s.id)),
            ("name", .text(s.name)),
            ("kind", .text(s.kind)),
            ("brand", .text(s.brand)),
            ("street", .text(s.street)),
            ("postcode", .text(s.postcode)),
            ("city", .text(s.city)),
            ("lat", .degrees(s.coordinate.latitude)),
            ("lon", .degrees(s.coordinate.longitude)),
            ("distance_m", .meters(h.distanceMeters)),
        ])
    }

    public static func csv(_ r: NearestStoresResult) -> String {
        let rows = r.stores.map { h in
            [
                h.store.id, h.store.name ?? "", h.store.kind ?? "", h.store.brand ?? "", h.store.street ?? "",
                formatDecimal(h.store.coordinate.latitude, digits: 7), formatDecimal(h.store.coordinate.longitude, digits: 7),
                formatDecimal(h.distanceMeters, digits: 3),
            ]
        }
        return CSVTable(
            headers: ["id", "name", "kind", "brand", "street", "lat", "lon", "distance_m"], rows: rows,
            textColumns: [0, 1, 2, 3, 4]
        ).rendered()
    }

    public static func table(_ r: NearestStoresResult) -> String {
        guard !r.stores.isEmpty else { return "No stores found.\n" }
        let rows = r.stores.enumerated().map { n, h in
            [String(n + 1), fixed(h.distanceMeters), h.store.displayName, h.store.kind ?? "", h.store.street ?? "", h.store.id]
        }
        return TextTable(headers: ["#", "distance m", "name", "kind", "street", "id"], rows: rows, rightAligned: [0, 1]).rendered()
    }
}
