import GeoSpend

/// How the expense commands print expenses.
enum ExpenseOutput {
    static func json(_ s: StoredExpense) -> JSONOutput {
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
        ])
    }

    static func render(_ s: StoredExpense, format: ExpensesCommand.Format) -> String {
        switch format {
        case .json: return json(s).serialized() + "\n"
        case .text:
            let e = s.expense
            let lines: [(String, String?)] = [
                ("id", e.id), ("user", e.userID), ("kind", e.kind.rawValue), ("amount", "\(e.amount.decimalString) \(e.amount.currency.code)"),
                ("at", e.occurredAt.text), ("title", e.title), ("category", e.category), ("merchant", e.merchant),
                ("place", e.location.map { "\($0.coordinate.latitude), \($0.coordinate.longitude)" }), ("store", e.storeID),
                ("notes", e.notes), ("remind at", s.remindAt?.text), ("created", s.createdAt), ("updated", s.updatedAt),
            ]
            return lines.compactMap { k, v in v.map { "\(k): \(OutputEscaping.visible($0))\n" } }.joined()
        }
    }

    static func table(_ list: [StoredExpense]) -> String {
        TextTable(
            headers: ["id", "at", "amount", "currency", "kind", "category", "title"],
            rows: list.map { s in
                let e = s.expense
                return [e.id, e.occurredAt.text, e.amount.decimalString, e.amount.currency.code, e.kind.rawValue, e.category ?? "", e.title ?? ""]
            }, rightAligned: [2]
        ).rendered()
    }
}
