/// Output of `geospend summary`.
public enum SummaryOutput {
    public static func json(_ s: SpendingSummary) -> JSONOutput {
        .object([
            ("user", .string(s.userID)),
            ("window", .object([("from", .text(s.from?.text)), ("to", .text(s.to?.text))])),
            ("period", s.period.map { p in
                .object([("id", .integer(p.id)), ("name", .string(p.name)), ("from", .string(p.start)), ("to", .text(p.end))])
            } ?? .null),
            ("currencies", .array(s.lines.map { l in
                .object([
                    ("currency", .string(l.currency.code)),
                    ("income", .string(l.income.total.decimalString)), ("income_count", .integer(Int64(l.income.count))),
                    ("expenses", .string(l.expenses.total.decimalString)), ("expenses_count", .integer(Int64(l.expenses.count))),
                    ("balance", .string(l.balance.decimalString)),
                    ("transfers", .string(l.transfers.total.decimalString)), ("transfers_count", .integer(Int64(l.transfers.count))),
                    ("first_day", .string(l.firstDay)), ("last_day", .string(l.lastDay)),
                ])
            })),
        ])
    }

    /// The expense count and the first and last local day come after the money columns.
    static let headers = ["currency", "income", "expenses", "balance", "transfers", "expenses_count", "first_day", "last_day"]

    static func rows(_ s: SpendingSummary) -> [[String]] {
        s.lines.map {
            [$0.currency.code, $0.income.total.decimalString, $0.expenses.total.decimalString, $0.balance.decimalString,
             $0.transfers.total.decimalString, "\($0.expenses.count)", $0.firstDay, $0.lastDay]
        }
    }

    public static func csv(_ s: SpendingSummary) -> String { CSVTable(headers: headers, rows: rows(s)).rendered() }

    public static func table(_ s: SpendingSummary) -> String {
        var title = "Summary for \(s.userID)"
        if let f = s.from { title += " from \(f.text)" }
        if let t = s.to { title += " to \(t.text)" }
        if let p = s.period { title += ", period \(p.id) \"\(p.name)\"" }
        return OutputEscaping.visible(title) + "\n\n" + (s.lines.isEmpty ? "No expenses.\n" : TextTable(headers: headers, rows: rows(s), rightAligned: [1, 2, 3, 4, 5]).rendered())
    }

    public static func markdown(_ s: SpendingSummary) -> String {
        TextTable(headers: headers, rows: rows(s), rightAligned: Set(headers.indices)).markdown()
    }
}
