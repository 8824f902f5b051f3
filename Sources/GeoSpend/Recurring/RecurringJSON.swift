/// A recurring rule as `recurring list|add|edit --format json`, the service and `users export`
/// write it: the rule's fields by the options' names, money as a decimal string.
public enum RecurringJSON {
    public static func rule(_ r: RecurringRule) -> JSONOutput {
        let f = r.fields
        return .object([
            ("id", .integer(r.id)), ("every", .string(f.schedule.every.description)), ("from", .string(f.schedule.anchor.description)),
            ("until", .text(f.until?.description)), ("next_due", .text(r.nextDue?.description)), ("kind", .string(f.kind.rawValue)),
            ("amount", .string(f.amount.decimalString)), ("currency", .string(f.amount.currency.code)), ("title", .text(f.title)),
            ("category", .text(f.category)), ("merchant", .text(f.merchant)), ("store_id", .text(f.storeID)), ("notes", .text(f.notes)),
            ("created_at", .string(r.createdAt)), ("updated_at", .string(r.updatedAt)),
        ])
    }

    /// What `recurring run --format json` prints: per rule, the expenses created now.
    public static func run(_ created: [RecurringRun.Created], asOf: LocalDay) -> JSONOutput {
        .object([
            ("as_of", .string(asOf.description)),
            ("created", .integer(Int64(created.reduce(0) { $0 + $1.expenseIDs.count }))),
            ("rules", .array(created.map { c in
                .object([
                    ("id", .integer(c.rule)), ("expenses", .array(c.expenseIDs.map { .string($0) })),
                    ("already_stored", .integer(Int64(c.alreadyStored))), ("next_due", .text(c.nextDue?.description)),
                    ("more_due", .bool(c.moreDue)),
                ])
            })),
        ])
    }
}
