/// Expenses as `geospend expenses show|list --format json` print them and the service returns
/// them (`/api/v1/expenses`): one shape for both.
public enum ExpenseJSON {
    public static func expense(_ s: StoredExpense) -> JSONOutput {
        let e = s.expense
        func text(_ v: String?) -> JSONOutput { v.map { .string($0) } ?? .null }
        func exact(_ v: Double?) -> JSONOutput { v.map { .number($0, decimals: 7) } ?? .null }
        return .object([
            ("id", .string(e.id)), ("user", .string(e.userID)), ("kind", .string(e.kind.rawValue)),
            ("amount", .string(e.amount.decimalString)), ("currency", .string(e.amount.currency.code)),
            ("occurred_at", .string(e.occurredAt.text)), ("title", text(e.title)), ("category", text(e.category)),
            ("merchant", text(e.merchant)), ("lat", exact(e.location?.coordinate.latitude)),
            ("lon", exact(e.location?.coordinate.longitude)), ("accuracy_m", e.location?.accuracyMeters.map { .number($0, decimals: 1) } ?? .null),
            ("store_id", text(e.storeID)), ("notes", text(e.notes)), ("remind_at", text(s.remindAt?.text)),
            ("created_at", text(s.createdAt)), ("updated_at", text(s.updatedAt)),
            ("position_source", text(s.positionSource?.rawValue)),
            ("position_confidence", s.positionConfidence.map { .number($0, decimals: 3) } ?? .null),
        ])
    }

    /// A page of `expenses list`, with the cursor of the next page (null on the last).
    public static func page(_ page: ExpensePage) -> JSONOutput {
        .object([
            ("expenses", .array(page.expenses.map(expense))),
            ("next", page.next.map { .string($0.text) } ?? .null),
        ])
    }
}
