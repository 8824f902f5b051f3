/// Writes expenses and stores in the importer's CSV formats (`Data/README.md`), streaming.
public enum ImportCSV {
    public static let expenseHeader = ExpenseRecord.columns.joined(separator: ",")
    public static let storeHeader = StoreRecord.columns.joined(separator: ",")

    /// One CSV line (with `\n`) for an expense, columns in `expenseHeader` order.
    public static func line(_ e: Expense) -> String {
        let c = e.location?.coordinate
        return [
            e.id, e.userID, e.kind.rawValue, e.amount.decimalString, e.amount.currency.code, e.occurredAt.text,
            e.title ?? "", e.category ?? "", e.merchant ?? "",
            c.map { formatDecimal($0.latitude, digits: 7) } ?? "", c.map { formatDecimal($0.longitude, digits: 7) } ?? "",
            e.location?.accuracyMeters.map { formatDecimal($0, digits: 1) } ?? "", e.storeID ?? "", e.notes ?? "",
        ].map(CSVTable.escape).joined(separator: ",") + "\n"
    }

    /// One CSV line (with `\n`) for a store, columns in `storeHeader` order. An unnamed place is
    /// written with its display name, since the CSV format requires a name.
    public static func line(_ s: Store) -> String {
        [
            s.id, s.name ?? s.displayName, s.kind ?? "", s.brand ?? "", s.street ?? "", s.postcode ?? "", s.city ?? "",
            s.country ?? "", formatDecimal(s.coordinate.latitude, digits: 7), formatDecimal(s.coordinate.longitude, digits: 7),
        ].map(CSVTable.escape).joined(separator: ",") + "\n"
    }
}
