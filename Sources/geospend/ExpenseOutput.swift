import GeoSpend

/// How the expense commands print expenses.
enum ExpenseOutput {
    static func render(_ s: StoredExpense, format: ExpensesCommand.Format) -> String {
        switch format {
        case .json: return ExpenseJSON.expense(s).serialized() + "\n"
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
