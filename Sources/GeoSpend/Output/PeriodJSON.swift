/// Periods as `geospend periods … --format json` prints them and the service answers them.
public enum PeriodJSON {
    public static func json(_ p: Period) -> JSONOutput {
        .object([
            ("id", .integer(p.id)), ("user", .string(p.userID)), ("name", .string(p.name)), ("from", .string(p.start)),
            ("to", p.end.map { .string($0) } ?? .null), ("expenses", .integer(Int64(p.expenses))), ("created_at", .text(p.createdAt)),
            ("updated_at", .text(p.updatedAt)),
        ])
    }

    /// `periods list`: the user and their periods.
    public static func list(_ periods: [Period], user: String) -> JSONOutput {
        .object([("user", .string(Identity.normalized(user))), ("periods", .array(periods.map(json)))])
    }
}
