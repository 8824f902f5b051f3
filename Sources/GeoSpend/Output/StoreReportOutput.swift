/// `geospend report store` and `report stores` as JSON, Markdown (with inline SVG) and a
/// self-contained HTML page (no external assets). Suppressed figures are `null` in JSON and
/// "suppressed" for people; labels (currencies, categories, months, stores) below the threshold
/// are not there at all (`StoreReport`). Stored text is escaped per format (`OutputEscaping`).
public enum StoreReportOutput {
    static let suppressed = "suppressed"

    // MARK: JSON

    public static func json(_ r: StoreReport) -> JSONOutput {
        .object([
            ("store", .object([
                ("id", .string(r.store.id)), ("name", .text(r.store.name)), ("kind", .text(r.store.kind)),
                ("lat", .degrees(r.store.coordinate.latitude)), ("lon", .degrees(r.store.coordinate.longitude)),
            ])),
            ("window", .object([("from", .text(r.from?.text)), ("to", .text(r.to?.text))])),
            ("min_users", .integer(Int64(r.minUsers))),
            ("currencies", .array(r.sections.map { s in
                .object([
                    ("currency", .string(s.currency.code)),
                    ("visitors", .integer(Int64(s.figures.visitors))),
                    ("count", .integer(Int64(s.figures.count))),
                    ("total", .string(s.figures.total.decimalString)),
                    ("average_ticket", .string(s.figures.average.decimalString)),
                    ("median", .string(s.figures.median.decimalString)),
                    ("first_month", .text(s.monthly.first?.key)),
                    ("last_month", .text(s.monthly.last?.key)),
                    ("by_category", .array(s.byCategory.map(cell))),
                    ("monthly", .array(s.monthly.map(cell))),
                    ("weekday_hour", .array(s.weekdayHour.map { row in .array(row.map { $0.count.map { .integer(Int64($0)) } ?? .null }) })),
                    ("comparison", .object([
                        ("peers", .integer(Int64(s.comparison.peers))), ("rank", .integer(Int64(s.comparison.rank))),
                        ("ratio", s.comparison.ratio.map { .number($0, decimals: 6) } ?? .null),
                        ("peers_average_ticket", s.comparison.peersAverage.map { .string($0.decimalString) } ?? .null),
                    ])),
                ])
            })),
        ])
    }

    static func cell(_ c: ReportCell) -> JSONOutput {
        .object([
            ("key", .string(c.key)), ("count", c.count.map { .integer(Int64($0)) } ?? .null),
            ("total", c.total.map { .string($0.decimalString) } ?? .null),
        ])
    }

    public static func json(_ r: StoreListReport) -> JSONOutput {
        .object([
            ("min_users", .integer(Int64(r.minUsers))),
            ("stores", .array(r.rows.map { row in
                .object([
                    ("id", .string(row.store.id)), ("name", .text(row.store.name)), ("kind", .text(row.store.kind)),
                    ("distance_m", row.distanceMeters.map { .meters($0) } ?? .null),
                    ("currency", .string(row.currency.code)),
                    ("visitors", .integer(Int64(row.figures.visitors))),
                    ("count", .integer(Int64(row.figures.count))),
                    ("total", .string(row.figures.total.decimalString)),
                    ("average_ticket", .string(row.figures.average.decimalString)),
                    ("median", .string(row.figures.median.decimalString)),
                ])
            })),
        ])
    }

    // MARK: People

    static func headline(_ s: StoreReport.Section) -> [(String, String)] {
        let f = s.figures, c = s.comparison
        return [
            ("visitors", String(f.visitors)), ("expenses", String(f.count)), ("total", f.total.decimalString),
            ("average ticket", f.average.decimalString), ("median", f.median.decimalString),
            ("first month", s.monthly.first?.key ?? "–"), ("last month", s.monthly.last?.key ?? "–"),
            (
                "vs same kind within 1 km",
                c.peers == 0
                    ? "no comparable store"
                    : "rank \(c.rank) of \(c.peers + 1); \(c.ratio.map { formatDecimal($0, digits: 2) } ?? "–")× the peers' mean average ticket (\(c.peersAverage?.decimalString ?? "–"))"
            ),
        ]
    }

    static func title(_ r: StoreReport) -> String {
        var t = "\(r.store.displayName) (\(r.store.kind ?? "store"), id \(r.store.id))"
        if let f = r.from { t += " from \(f.text)" }
        if let to = r.to { t += " to \(to.text)" }
        return t
    }

    public static func markdown(_ r: StoreReport) -> String {
        func cells(_ list: [ReportCell]) -> [[String]] {
            list.map { [$0.key, $0.count.map(String.init) ?? suppressed, $0.total?.decimalString ?? suppressed] }
        }
        var out = "# Store report: \(OutputEscaping.markdown(title(r)))\n\n\(notice(r))\n"
        if r.sections.isEmpty { out += "\n\(nothing(r))\n" }
        for s in r.sections {
            out += "\n## \(s.currency.code)\n\n"
                + TextTable(headers: ["figure", "value"], rows: headline(s).map { [$0.0, $0.1] }).markdown()
            out += "\n### By category\n\n"
                + TextTable(headers: ["category", "expenses", "total"], rows: cells(s.byCategory), rightAligned: [1, 2]).markdown()
            out += "\n### Monthly\n\n" + monthlySVG(s) + "\n\n"
                + TextTable(headers: ["month", "expenses", "total"], rows: cells(s.monthly), rightAligned: [1, 2]).markdown()
            out += "\n### Weekday × hour (local time, expenses)\n\n" + heatSVG(s) + "\n\n" + heatCaption(r) + "\n"
        }
        return out
    }

    public static func html(_ r: StoreReport) -> String {
        var body = "<h1>Store report</h1><p class=\"sub\">\(escape(title(r)))</p>"
        body += "<p>\(escape(notice(r)))</p>"
        if r.sections.isEmpty { body += "<p>\(escape(nothing(r)))</p>" }
        for s in r.sections {
            body += "<h2>\(s.currency.code)</h2><table>" + headline(s).map { "<tr><th>\(escape($0.0))</th><td>\(escape($0.1))</td></tr>" }.joined() + "</table>"
            body += "<h3>By category</h3><table><tr><th>category</th><th>expenses</th><th>total</th></tr>"
            body += s.byCategory.map { "<tr><td>\(escape($0.key))</td><td class=\"n\">\($0.count.map(String.init) ?? suppressed)</td><td class=\"n\">\($0.total?.decimalString ?? suppressed)</td></tr>" }.joined()
            body += "</table><h3>Monthly</h3>" + monthlySVG(s)
            body += "<h3>Weekday × hour (local time, expenses)</h3>" + heatSVG(s) + "<p class=\"sub\">\(escape(heatCaption(r)))</p>"
        }
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>\(escape(title(r)))</title>
            <style>body{font:15px/1.4 system-ui,sans-serif;max-width:860px;margin:2em auto;color:#222}
            table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left}
            td.n{text-align:right}.sub{color:#555}</style></head>
            <body>\(body)</body></html>

            """
    }

    /// What suppression means here, said once at the top of every store report.
    static func notice(_ r: StoreReport) -> String {
        "Figures from fewer than \(r.minUsers) distinct users are suppressed; currencies and categories with fewer users are not listed."
    }

    /// The same words for a store nobody visited and one too few users visited.
    static func nothing(_ r: StoreReport) -> String { "No figures from at least \(r.minUsers) users at this store." }

    static func heatCaption(_ r: StoreReport) -> String {
        "Darker blue: more expenses in that hour. Grey: fewer than \(r.minUsers) users (or none), not shown."
    }

    /// Bars of the monthly totals (the tallest labelled); suppressed months drawn as a grey outline.
    static func monthlySVG(_ s: StoreReport.Section) -> String {
        let w = 560.0, h = 160.0, left = 40.0, bottom = 24.0
        let maxTotal = Double(s.monthly.compactMap { $0.total?.minorUnits }.max() ?? 1)
        let slot = (w - left) / Double(max(1, s.monthly.count))
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(w))\" height=\"\(Int(h))\" role=\"img\" aria-label=\"monthly totals in \(s.currency.code)\">"
        let tallest = s.monthly.compactMap(\.total).max { $0.minorUnits < $1.minorUnits }
        out += "<text x=\"0\" y=\"12\" font-size=\"11\">\(s.currency.code)\(tallest.map { " (tallest bar: \($0.decimalString))" } ?? "")</text>"
        for (i, m) in s.monthly.enumerated() {
            let x = left + Double(i) * slot + 2
            let bw = max(1, slot - 4)
            if let t = m.total {
                let bh = (h - bottom - 16) * Double(t.minorUnits) / max(1, maxTotal)
                out += "<rect x=\"\(formatDecimal(x, digits: 1))\" y=\"\(formatDecimal(h - bottom - bh, digits: 1))\" width=\"\(formatDecimal(bw, digits: 1))\" height=\"\(formatDecimal(bh, digits: 1))\" fill=\"#3b7dd8\"><title>\(m.key): \(t.decimalString)</title></rect>"
            } else {
                out += "<rect x=\"\(formatDecimal(x, digits: 1))\" y=\"\(formatDecimal(h - bottom - 20, digits: 1))\" width=\"\(formatDecimal(bw, digits: 1))\" height=\"20\" fill=\"none\" stroke=\"#aaa\" stroke-dasharray=\"2\"><title>\(m.key): suppressed</title></rect>"
            }
            out += "<text x=\"\(formatDecimal(x + bw / 2, digits: 1))\" y=\"\(Int(h - 8))\" font-size=\"9\" text-anchor=\"middle\">\(m.key.suffix(2))</text>"
        }
        return out + "</svg>"
    }

    /// A 7 × 24 grid coloured by expense count; suppressed cells light grey.
    static func heatSVG(_ s: StoreReport.Section) -> String {
        let cell = 20.0, left = 34.0, top = 14.0
        let maxCount = Double(s.weekdayHour.flatMap { $0 }.compactMap(\.count).max() ?? 1)
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(left + 24 * cell))\" height=\"\(Int(top + 7 * cell))\" role=\"img\" aria-label=\"expenses by weekday and hour\">"
        for h in stride(from: 0, to: 24, by: 3) {
            out += "<text x=\"\(formatDecimal(left + Double(h) * cell + cell / 2, digits: 1))\" y=\"10\" font-size=\"9\" text-anchor=\"middle\">\(h)</text>"
        }
        for (d, row) in s.weekdayHour.enumerated() {
            out += "<text x=\"0\" y=\"\(formatDecimal(top + Double(d) * cell + 14, digits: 1))\" font-size=\"10\">\(StoreReport.weekdays[d])</text>"
            for (h, c) in row.enumerated() {
                let fill: String
                if let n = c.count {
                    let level = Int((Double(n) / max(1, maxCount) * 200).rounded())
                    fill = "rgb(\(235 - level),\(240 - level / 2),255)"
                } else {
                    fill = "#eeeeee"
                }
                out += "<rect x=\"\(formatDecimal(left + Double(h) * cell, digits: 1))\" y=\"\(formatDecimal(top + Double(d) * cell, digits: 1))\" width=\"\(Int(cell - 1))\" height=\"\(Int(cell - 1))\" fill=\"\(fill)\"><title>\(c.key):00 \(c.count.map { "\($0) expenses" } ?? "suppressed")</title></rect>"
            }
        }
        return out + "</svg>"
    }

    static func escape(_ s: String) -> String { OutputEscaping.html(s) }

    // MARK: Store lists

    static func listRows(_ r: StoreListReport) -> [[String]] {
        r.rows.map { row in
            let f = row.figures
            return [
                row.store.displayName, row.store.kind ?? "", row.distanceMeters.map(QueryOutput.fixed) ?? "", row.currency.code,
                String(f.visitors), String(f.count), f.total.decimalString, f.average.decimalString, f.median.decimalString, row.store.id,
            ]
        }
    }

    static func listNotice(_ r: StoreListReport) -> String {
        "Only stores with at least \(r.minUsers) distinct users (per currency) are listed."
    }

    static let listHeaders = ["store", "kind", "distance m", "cur", "visitors", "expenses", "total", "avg ticket", "median", "id"]

    public static func markdown(_ r: StoreListReport) -> String {
        listNotice(r) + "\n\n"
            + TextTable(headers: listHeaders, rows: listRows(r)).markdown()
    }

    public static func table(_ r: StoreListReport) -> String {
        listNotice(r) + "\n\n"
            + TextTable(headers: listHeaders, rows: listRows(r), rightAligned: [2, 4, 5, 6, 7, 8]).rendered()
    }

    public static func csv(_ r: StoreListReport) -> String {
        CSVTable(headers: listHeaders, rows: listRows(r), textColumns: [0, 1, 9]).rendered()
    }

    public static func html(_ r: StoreListReport) -> String {
        let head = "<tr>" + listHeaders.map { "<th>\(escape($0))</th>" }.joined() + "</tr>"
        let rows = listRows(r).map { "<tr>" + $0.map { "<td>\(escape($0))</td>" }.joined() + "</tr>" }.joined()
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>Stores</title>
            <style>body{font:15px/1.4 system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse}
            td,th{border:1px solid #ccc;padding:.2em .6em}</style></head>
            <body><h1>Stores</h1><p>\(escape(listNotice(r)))</p><table>\(head)\(rows)</table></body></html>

            """
    }
}
