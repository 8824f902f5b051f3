/// One transaction read from a statement: the canonical record keys and the line it starts on.
struct StatementTransaction: Equatable {
    let line: Int
    var fields: [String: String]

    /// Sets `kind`, `amount` and the counterparty: `title` always, `merchant` only for money out
    /// (the payer of an income is not a merchant).
    init(line: Int, kind: ExpenseKind, amount: String, counterparty: String?) {
        self.line = line
        fields = ["kind": kind.rawValue, "amount": amount]
        if let counterparty, !counterparty.isEmpty {
            fields["title"] = counterparty
            if kind == .expense { fields["merchant"] = counterparty }
        }
    }

    subscript(key: String) -> String? {
        get { fields[key] }
        set { fields[key] = newValue?.isEmpty == true ? nil : newValue }
    }
}
