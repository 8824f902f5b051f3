import GeoSpend
import PostgresNIO

/// A user's categories on PostgreSQL (`geospend categories …`), with the file's rules
/// (Sources/GeoSpendSpatiaLite/CategoryEdits.swift): names compared with ASCII letters folded
/// (`name_fold`, SQLite's NOCASE), listed by kind then name in byte order.
extension PostGISStore: CategoryEditing {
    fileprivate static let detailSelect = #"""
        SELECT c.name, c.kind, c.icon, c.color, c.is_default, c.is_active,
            (SELECT count(*) FROM expenses AS e WHERE e.user_id = c.user_id AND e.category_id = c.id), c.created_at, c.updated_at
        FROM categories AS c
        """#

    fileprivate static func detail(_ row: PostgresRow) throws -> CategoryDetail {
        let (name, kind, icon, color, isDefault, isActive, n, created, updated) = try row.decode(
            (String, String, String?, String?, Bool, Bool, Int64, String?, String?).self)
        return CategoryDetail(
            category: Category(name: name, kind: Category.Kind(rawValue: kind) ?? .expense), icon: icon, color: color,
            isDefault: isDefault, isActive: isActive, expenses: Int(n), createdAt: created, updatedAt: updated)
    }

    private static func detail(_ r: PostGISReader, id: Int64) throws -> CategoryDetail {
        try detail(try r.rows("\(unescaped: detailSelect) WHERE c.id = \(id)")[0])
    }

    public func addCategory(_ category: Category, userID: String, icon: String?, color: String?) async throws -> CategoryDetail {
        try await editing { r in
            try Self.ensureUser(r, userID)
            if try Self.categoryID(r, name: category.name, kind: category.kind, userID: userID) != nil {
                throw EditError.categoryExists(name: category.name, kind: category.kind)
            }
            let id = try r.rows("""
                INSERT INTO categories (user_id, kind, name, icon, color)
                VALUES (\(userID), \(category.kind.rawValue), \(category.name), \(icon), \(color)) RETURNING id
                """)[0].decode(Int64.self)
            return try Self.detail(r, id: id)
        }
    }

    public func editCategory(name: String, kind: Category.Kind?, userID: String, change: CategoryChange) async throws -> CategoryDetail {
        try await editing { r in
            let (id, kind) = try Self.findCategory(r, name: name, kind: kind, userID: userID)
            if let new = change.name {
                if let other = try Self.categoryID(r, name: new, kind: kind, userID: userID), other != id {
                    throw EditError.categoryExists(name: new, kind: kind)
                }
                let old = try r.rows("SELECT name FROM categories WHERE id = \(id)")[0].decode(String.self)
                _ = try r.rows("UPDATE categories SET name = \(new) WHERE id = \(id)")
                let ids = try r.rows("SELECT id FROM expenses WHERE user_id = \(userID) AND category_id = \(id)").map { try $0.decode(String.self) }
                try Self.rehash(r, userID: userID, ids: ids)
                if kind == .expense { try Self.renameBudgetCategory(r, userID: userID, from: old, to: new) }
            }
            if let icon = change.icon { _ = try r.rows("UPDATE categories SET icon = \(icon.isEmpty ? nil : icon) WHERE id = \(id)") }
            if let color = change.color { _ = try r.rows("UPDATE categories SET color = \(color.isEmpty ? nil : color) WHERE id = \(id)") }
            if let active = change.isActive { _ = try r.rows("UPDATE categories SET is_active = \(active) WHERE id = \(id)") }
            return try Self.detail(r, id: id)
        }
    }

    public func deleteCategory(name: String, kind: Category.Kind?, userID: String) async throws -> Int {
        try await editing { r in
            let (id, kind) = try Self.findCategory(r, name: name, kind: kind, userID: userID)
            let (stored, isDefault) = try r.rows("SELECT name, is_default FROM categories WHERE id = \(id)")[0].decode((String, Bool).self)
            if isDefault { throw EditError.defaultCategory(name: stored, kind: kind) }
            let ids = try r.rows("""
                UPDATE expenses SET category_id = NULL, updated_at = \(unescaped: Self.nowSQL)
                WHERE user_id = \(userID) AND category_id = \(id) RETURNING id
                """).map { try $0.decode(String.self) }
            _ = try r.rows("DELETE FROM categories WHERE id = \(id)")
            try Self.rehash(r, userID: userID, ids: ids)
            if kind == .expense {
                // Its budgets count nothing now: deactivated, and kept for `budgets list --all`.
                _ = try r.rows("""
                    UPDATE budgets SET is_active = false
                    WHERE user_id = \(userID) AND \(unescaped: PostGISSchema.asciiFold("category")) = \(PostGISRows.asciiFolded(stored))
                    """)
            }
            return ids.count
        }
    }

    /// The category named, of `kind` or, without one, of the only kind that has the name.
    private static func findCategory(_ r: PostGISReader, name: String, kind: Category.Kind?, userID: String) throws -> (Int64, Category.Kind) {
        let kinds: [Category.Kind] = kind.map { [$0] } ?? Category.Kind.allCases
        let found = try kinds.compactMap { k in try categoryID(r, name: name, kind: k, userID: userID).map { ($0, k) } }
        if found.count > 1 { throw EditError.ambiguousCategory(name: name) }
        guard let one = found.first else {
            let known = try r.rows(#"SELECT name FROM categories WHERE user_id = \#(userID) ORDER BY name COLLATE "C""#)
                .map { try $0.decode(String.self) }
            throw EditError.unknownCategory(name: name, kind: kind ?? .expense, among: known)
        }
        return one
    }

    /// The content hash covers the category's name: recomputed for the user's expenses `ids`,
    /// so a re-import tells "the same row" from "changed" by what is stored now.
    private static func rehash(_ r: PostGISReader, userID: String, ids: [String]) throws {
        guard !ids.isEmpty else { return }
        let rows = try r.rows("""
            SELECT \(unescaped: Self.storedColumns) FROM \(unescaped: Self.storedSource) WHERE e.user_id = \(userID) AND e.id = ANY(\(ids))
            """).map(stored)
        _ = try r.rows("""
            UPDATE expenses AS e SET content_hash = h.hash
            FROM unnest(\(rows.map(\.expense.id))::text[], \(rows.map(\.expense.contentHash))::bigint[]) AS h(id, hash)
            WHERE e.user_id = \(userID) AND e.id = h.id
            """)
    }

    /// A category rename (kind expense) carried to the user's budgets and category limits that
    /// name the old name (letters compared without case), in the rename's transaction.
    private static func renameBudgetCategory(_ r: PostGISReader, userID: String, from old: String, to new: String) throws {
        let fold = PostGISSchema.asciiFold
        _ = try r.rows("UPDATE budgets SET category = \(new) WHERE user_id = \(userID) AND \(unescaped: fold("category")) = \(PostGISRows.asciiFolded(old))")
        _ = try r.rows("""
            UPDATE budget_category_limits SET category = \(new) WHERE user_id = \(userID) AND \(unescaped: fold("category")) = \(PostGISRows.asciiFolded(old))
            """)
    }
}

extension PostGISReader: CategoryReader {
    public func categoryDetails(userID: String, includeInactive: Bool) throws -> [CategoryDetail] {
        try rows(#"""
            \#(unescaped: PostGISStore.detailSelect) WHERE c.user_id = \#(userID) \#(unescaped: includeInactive ? "" : "AND c.is_active")
            ORDER BY c.kind COLLATE "C", c.name COLLATE "C"
            """#).map(PostGISStore.detail)
    }
}
