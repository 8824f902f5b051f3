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
