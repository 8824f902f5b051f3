/// Output of `geospend snap`.
public enum SnapOutput {
    public static func json(_ plan: SnapPlan, written: Int, dryRun: Bool) -> JSONOutput {
        .object([
            ("dry_run", .bool(dryRun)),
            ("written", .integer(Int64(written))),
            ("assigned", .array(plan.assigned.map { a in
                .object([
                    ("expense_id", .string(a.expenseID)), ("store_id", .string(a.store.id)), ("store_name", .text(a.store.name)),
                    ("distance_m", .meters(a.distanceMeters)), ("by_merchant_name", .bool(a.byMerchantName)),
                ])
            })),
            ("ambiguous", .array(plan.ambiguous.map { a in
                .object([
                    ("expense_id", .string(a.expenseID)),
                    ("candidates", .array(a.candidates.map { .object([("store_id", .string($0.store.id)), ("distance_m", .meters($0.distanceMeters))]) })),
                ])
            })),
            ("unmatched", .array(plan.unmatched.map { .object([("expense_id", .string($0.expenseID)), ("searched_m", .meters($0.searchedMeters))]) })),
        ])
    }

    /// Counts, then the first rows of each list (JSON has them all).
    public static func table(_ plan: SnapPlan, written: Int, dryRun: Bool, shown: Int = 15) -> String {
        var out = dryRun
            ? "dry run: would assign \(plan.assigned.count)"
            : "assigned \(written)"
        out += ", ambiguous \(plan.ambiguous.count), unmatched \(plan.unmatched.count)\n"
        if !plan.assigned.isEmpty {
            out += "\nAssigned\n" + TextTable(
                headers: ["expense", "store", "name", "distance m", "by name"],
                rows: plan.assigned.prefix(shown).map {
                    [$0.expenseID, $0.store.id, $0.store.displayName, QueryOutput.fixed($0.distanceMeters), $0.byMerchantName ? "yes" : ""]
                }, rightAligned: [3]
            ).rendered()
            if plan.assigned.count > shown { out += "… \(plan.assigned.count - shown) more (--format json lists all)\n" }
        }
        if !plan.ambiguous.isEmpty {
            out += "\nAmbiguous (left alone)\n" + TextTable(
                headers: ["expense", "candidates"],
                rows: plan.ambiguous.prefix(shown).map { a in
                    [a.expenseID, a.candidates.map { "\($0.store.displayName) \(QueryOutput.fixed($0.distanceMeters)) m" }.joined(separator: " / ")]
                }
            ).rendered()
        }
        if !plan.unmatched.isEmpty {
            out += "\nUnmatched: " + plan.unmatched.prefix(shown).map { OutputEscaping.visible($0.expenseID) }.joined(separator: ", ")
                + (plan.unmatched.count > shown ? ", …" : "") + "\n"
        }
        return out
    }
}

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
