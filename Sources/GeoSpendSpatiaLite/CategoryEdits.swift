import GeoSpend
import GRDB

/// A user's categories (`geospend categories …`); the rules are `CategoryEditing`'s.
extension SpatiaLiteStore: CategoryEditing {
    private static let detailSelect = """
        SELECT c.name, c.kind, c.icon, c.color, c.is_default, c.is_active,
            (SELECT count(*) FROM expenses AS e WHERE e.category_id = c.id), c.created_at, c.updated_at
        FROM categories AS c
        """

    private static func detail(_ r: Row) -> CategoryDetail {
        CategoryDetail(
            category: GeoSpend.Category(name: r[0], kind: GeoSpend.Category.Kind(rawValue: r[1]) ?? .expense),
            icon: r[2], color: r[3], isDefault: r[4], isActive: r[5], expenses: r[6], createdAt: r[7], updatedAt: r[8])
    }

    static func categoryDetails(_ db: Database, userID: String, includeInactive: Bool) throws -> [CategoryDetail] {
        try Row.fetchAll(
            db, sql: "\(Self.detailSelect) WHERE c.user_id = ? \(includeInactive ? "" : "AND c.is_active") ORDER BY c.kind, c.name",
            arguments: [userID]
        ).map(Self.detail)
    }

    public func addCategory(_ category: GeoSpend.Category, userID: String, icon: String?, color: String?) async throws -> CategoryDetail {
        try await scrubbingWrite { db in
            try Self.ensureUser(db, userID)
            if try Self.categoryRow(db, name: category.name, kind: category.kind, userID: userID) != nil {
                throw EditError.categoryExists(name: category.name, kind: category.kind)
            }
            try db.execute(
                sql: "INSERT INTO categories (user_id, kind, name, icon, color) VALUES (?, ?, ?, ?, ?)",
                arguments: [userID, category.kind.rawValue, category.name, icon, color])
            return try Row.fetchOne(db, sql: "\(Self.detailSelect) WHERE c.id = ?", arguments: [db.lastInsertedRowID]).map(Self.detail)!
        }
    }

    public func editCategory(name: String, kind: GeoSpend.Category.Kind?, userID: String, change: CategoryChange) async throws -> CategoryDetail {
        try await scrubbingWrite { db in
            let (id, kind) = try Self.findCategory(db, name: name, kind: kind, userID: userID)
            if let new = change.name {
                if let other = try Self.categoryRow(db, name: new, kind: kind, userID: userID), other != id {
                    throw EditError.categoryExists(name: new, kind: kind)
                }
                let old = try String.fetchOne(db, sql: "SELECT name FROM categories WHERE id = ?", arguments: [id]) ?? name
                try db.execute(sql: "UPDATE categories SET name = ? WHERE id = ?", arguments: [new, id])
                try Self.rehashExpenses(db, categoryID: id)
                if kind == .expense { try Self.renameBudgetCategory(db, userID: userID, from: old, to: new) }
            }
            if let icon = change.icon { try db.execute(sql: "UPDATE categories SET icon = ? WHERE id = ?", arguments: [icon.isEmpty ? nil : icon, id]) }
            if let color = change.color { try db.execute(sql: "UPDATE categories SET color = ? WHERE id = ?", arguments: [color.isEmpty ? nil : color, id]) }
            if let active = change.isActive { try db.execute(sql: "UPDATE categories SET is_active = ? WHERE id = ?", arguments: [active, id]) }
            return try Row.fetchOne(db, sql: "\(Self.detailSelect) WHERE c.id = ?", arguments: [id]).map(Self.detail)!
        }
    }

    public func deleteCategory(name: String, kind: GeoSpend.Category.Kind?, userID: String) async throws -> Int {
        try await scrubbingWrite { db in
            let (id, kind) = try Self.findCategory(db, name: name, kind: kind, userID: userID)
            if try Bool.fetchOne(db, sql: "SELECT is_default FROM categories WHERE id = ?", arguments: [id]) == true {
                let stored = try String.fetchOne(db, sql: "SELECT name FROM categories WHERE id = ?", arguments: [id]) ?? name
                throw EditError.defaultCategory(name: stored, kind: kind)
            }
            let pks = try Int64.fetchAll(db, sql: "SELECT pk FROM expenses WHERE category_id = ?", arguments: [id])
            try db.execute(sql: "UPDATE expenses SET category_id = NULL, updated_at = \(Self.nowSQL) WHERE category_id = ?", arguments: [id])
            let stored = try String.fetchOne(db, sql: "SELECT name FROM categories WHERE id = ?", arguments: [id]) ?? name
            try db.execute(sql: "DELETE FROM categories WHERE id = ?", arguments: [id])
            try Self.rehash(db, pks: pks)
            if kind == .expense { try Self.deactivateBudgets(db, userID: userID, category: stored) }
            return pks.count
        }
    }

    /// The row id of the user's category of that name and kind (names compared as NOCASE).
    private static func categoryRow(_ db: Database, name: String, kind: GeoSpend.Category.Kind, userID: String) throws -> Int64? {
        try Int64.fetchOne(
            db, sql: "SELECT id FROM categories WHERE user_id = ? AND kind = ? AND name = ? COLLATE NOCASE",
            arguments: [userID, kind.rawValue, name])
    }

    /// The category named, of `kind` or, without one, of the only kind that has the name.
    private static func findCategory(
        _ db: Database, name: String, kind: GeoSpend.Category.Kind?, userID: String
    ) throws -> (Int64, GeoSpend.Category.Kind) {
        let kinds: [GeoSpend.Category.Kind] = kind.map { [$0] } ?? GeoSpend.Category.Kind.allCases
        let found = try kinds.compactMap { k in try categoryRow(db, name: name, kind: k, userID: userID).map { ($0, k) } }
        if found.count > 1 { throw EditError.ambiguousCategory(name: name) }
        guard let one = found.first else {
            let known = try String.fetchAll(db, sql: "SELECT name FROM categories WHERE user_id = ? ORDER BY name", arguments: [userID])
            throw EditError.unknownCategory(name: name, kind: kind ?? .expense, among: known)
        }
        return one
    }

    /// Creates the user with the default categories when new, as an import does.
    static func ensureUser(_ db: Database, _ userID: String) throws {
        try db.execute(sql: "INSERT INTO users (id) VALUES (?) ON CONFLICT (id) DO NOTHING", arguments: [userID])
        guard db.changesCount == 1 else { return }
        for c in GeoSpend.Category.defaults {
            try db.execute(
                sql: "INSERT INTO categories (user_id, kind, name, is_default, icon, color) VALUES (?, ?, ?, 1, ?, ?)",
                arguments: [userID, c.kind.rawValue, c.name, GeoSpend.Category.defaultLooks[c]?.icon, GeoSpend.Category.defaultLooks[c]?.color])
        }
    }

    /// The content hash covers the category's name: recomputed for the expenses whose name changed,
    /// so a re-import tells "the same row" from "changed" by what is stored now.
    private static func rehashExpenses(_ db: Database, categoryID: Int64) throws {
        try rehash(db, pks: try Int64.fetchAll(db, sql: "SELECT pk FROM expenses WHERE category_id = ?", arguments: [categoryID]))
    }

    static func rehash(_ db: Database, pks: [Int64]) throws {
        for pk in pks {
            guard let e = try fetchStored(db, "SELECT \(storedColumns) FROM \(storedSource) WHERE e.pk = ?1", { $0.bind(1, pk) }).first
            else { continue }
            try db.execute(sql: "UPDATE expenses SET content_hash = ? WHERE pk = ?", arguments: [e.0.expense.contentHash, pk])
        }
    }
}

extension SpatiaLiteReader: CategoryReader {
    public func categoryDetails(userID: String, includeInactive: Bool) throws -> [CategoryDetail] {
        try SpatiaLiteStore.categoryDetails(db, userID: userID, includeInactive: includeInactive)
    }
}
