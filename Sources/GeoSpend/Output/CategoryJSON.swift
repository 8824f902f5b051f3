/// A category as `geospend categories … --format json` prints it and the service answers it.
public enum CategoryJSON {
    public static func json(_ c: CategoryDetail) -> JSONOutput { .object(members(c)) }

    public static func members(_ c: CategoryDetail) -> [(String, JSONOutput)] {
        [
            ("name", .string(c.category.name)), ("kind", .string(c.category.kind.rawValue)), ("expenses", .integer(Int64(c.expenses))),
            ("icon", c.icon.map { .string($0) } ?? .null), ("color", c.color.map { .string($0) } ?? .null),
            ("is_default", .bool(c.isDefault)), ("is_active", .bool(c.isActive)), ("created_at", .text(c.createdAt)),
            ("updated_at", .text(c.updatedAt)),
        ]
    }
}
