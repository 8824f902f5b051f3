/// The documented output of `geospend insights` (README, "Location insights").
public enum InsightsOutput {
    public static func json(_ r: LocationInsights) -> JSONOutput {
        .object([
            ("user", .string(r.userID)),
            ("window", .object([
                ("from", .text(r.from?.text)), ("to", .text(r.to?.text)),
                ("previous_from", .text(r.previousFrom?.text)), ("previous_to", .text(r.previousTo?.text)),
            ])),
            ("totals", .array(r.totals.map(QueryOutput.total))),
            ("unplaced", .array(r.unplaced.map(QueryOutput.total))),
            ("places", .array(r.places.map(row))),
        ])
    }

    /// `insights --format json`: the insights with the zone budgets section after them.
    public static func json(_ r: LocationInsights, budgets zones: [BudgetSummary]) -> JSONOutput {
        guard case .object(var members) = json(r) else { return json(r) }
        members.append(("budgets", ZoneBudgetsSection.json(zones)))
        return .object(members)
    }

    static func row(_ p: PlaceInsight) -> JSONOutput {
        .object([
            ("place", .object([("type", .string(p.place.kind.rawValue)), ("id", .string(p.place.id)), ("name", .text(p.place.name))])),
            ("centroid", p.centroid.map(QueryOutput.center) ?? .null),
            ("currency", .string(p.currency.code)),
            ("count", .integer(Int64(p.count))),
            ("total", .string(p.total.decimalString)),
            ("average", .string(p.average.decimalString)),
            ("median", .string(p.median.decimalString)),
            ("min", .string(p.min.decimalString)),
            ("max", .string(p.max.decimalString)),
            ("first_visit", .string(p.firstVisit.text)),
            ("last_visit", .string(p.lastVisit.text)),
            ("visit_days", .integer(Int64(p.visitDays))),
            ("share", .number(p.share, decimals: 6)),
            ("top_category", .text(p.topCategory)),
            ("change", p.change.map { c in
                .object([
                    ("previous_total", .string(c.previousTotal.decimalString)),
                    ("delta", .string(c.delta.decimalString)),
                    ("ratio", c.ratio.map { .number($0, decimals: 6) } ?? .null),
                ])
            } ?? .null),
        ])
    }

    static let columns = [
        "place_type", "place_id", "name", "lat", "lon", "currency", "count", "total", "average", "median", "min", "max",
        "first_visit", "last_visit", "visit_days", "share", "top_category", "previous_total", "delta", "ratio",
    ]

    static func cells(_ p: PlaceInsight) -> [String] {
        [
            p.place.kind.rawValue, p.place.id, p.place.name ?? "",
            p.centroid.map { formatDecimal($0.latitude, digits: 7) } ?? "", p.centroid.map { formatDecimal($0.longitude, digits: 7) } ?? "",
            p.currency.code, String(p.count), p.total.decimalString, p.average.decimalString, p.median.decimalString,
            p.min.decimalString, p.max.decimalString, p.firstVisit.text, p.lastVisit.text, String(p.visitDays),
            formatDecimal(p.share, digits: 6), p.topCategory ?? "", p.change?.previousTotal.decimalString ?? "",
            p.change?.delta.decimalString ?? "", p.change?.ratio.map { formatDecimal($0, digits: 6) } ?? "",
        ]
    }

    public static func csv(_ r: LocationInsights) -> String {
        CSVTable(headers: columns, rows: r.places.map(cells), textColumns: [1, 2, 16]).rendered()
    }

    static func peopleRows(_ r: LocationInsights) -> (headers: [String], rows: [[String]]) {
        let hasChange = r.previousFrom != nil
        var headers = ["place", "cur", "count", "total", "average", "median", "share", "days", "first", "last", "top category"]
        if hasChange { headers += ["previous", "change"] }
        let rows = r.places.map { p -> [String] in
            var row = [
                p.place.name ?? "cluster \(p.place.id.dropFirst(2))", p.currency.code, String(p.count), p.total.decimalString,
                p.average.decimalString, p.median.decimalString, formatDecimal(p.share * 100, digits: 1) + " %",
                String(p.visitDays), String(p.firstVisit.localDate), String(p.lastVisit.localDate), p.topCategory ?? "",
            ]
            if hasChange, let c = p.change {
                row += [c.previousTotal.decimalString, c.ratio.map { (($0 - 1) * 100 >= 0 ? "+" : "") + formatDecimal(($0 - 1) * 100, digits: 1) + " %" } ?? "new"]
            }
            return row
        }
        return (headers, rows)
    }

    static func heading(_ r: LocationInsights) -> String {
        var s = "Location insights for \(r.userID)"
        if let from = r.from { s += " from \(from.text)" }
        if let to = r.to { s += " to \(to.text)" }
        return s
    }

    public static func table(_ r: LocationInsights) -> String {
        let (headers, rows) = peopleRows(r)
        var out = OutputEscaping.visible(heading(r)) + "\n\n"
        out += rows.isEmpty ? "No expenses at any place.\n" : TextTable(headers: headers, rows: rows, rightAligned: [2, 3, 4, 5, 6, 7]).rendered()
        if !r.unplaced.isEmpty {
            out += "\nNot at a place (no position or store): "
                + r.unplaced.map { "\($0.total.decimalString) \($0.currency.code) in \($0.count)" }.joined(separator: ", ") + "\n"
        }
        return out
    }

    public static func markdown(_ r: LocationInsights) -> String {
        let (headers, rows) = peopleRows(r)
        return "## " + OutputEscaping.markdown(heading(r)) + "\n\n" + TextTable(headers: headers, rows: rows).markdown()
    }
}
