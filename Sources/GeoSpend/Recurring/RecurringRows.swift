/// A rule read back from its stored columns, the same for every backend. A stored value that
/// does not read (a file edited by hand) is an error naming the rule, never a guess.
public enum RecurringRows {
    public static func rule(
        number: Int64, user: String, kind: String, amountMinor: Int64, currency: String, title: String?, category: String?,
        merchant: String?, storeID: String?, notes: String?, every: String, anchor: String, until: String?, nextDue: String?,
        createdAt: String, updatedAt: String
    ) throws -> RecurringRule {
        do {
            guard let kind = ExpenseKind(rawValue: kind) else { throw ValueError.invalidValue(kind, reason: "is not an expense kind") }
            let fields = try RecurringFields(
                kind: kind, amount: Money(minorUnits: amountMinor, currency: try Currency(code: currency)), title: title,
                category: category, merchant: merchant, storeID: storeID, notes: notes,
                schedule: RecurringSchedule(every: try .init(parsing: every), anchor: try LocalDay(parsing: anchor)),
                until: try until.map { try LocalDay(parsing: $0) })
            return RecurringRule(
                id: number, userID: user, fields: fields, nextDue: try nextDue.map { try LocalDay(parsing: $0) }, createdAt: createdAt,
                updatedAt: updatedAt)
        } catch {
            throw UsageError("recurring rule \(number) of user \"\(OutputEscaping.visible(user))\" is stored unreadably: \(error)")
        }
    }
}
