import GeoSpend
import GRDB

/// A user's tags and marks of the shared catalogue and their product edits (`ProductStore`,
/// migration v27, `ProductStoreSchema`). "The user's product" is one they have a price record
/// of, checked inside each write transaction.
extension SpatiaLiteStore: ProductStore {
    static func productMarks(_ db: Database, userID: String) throws -> [Int64: ProductMarks] {
        do {
            var marks: [Int64: ProductMarks] = [:]
            for r in try Row.fetchAll(db, sql: "SELECT product_id, favourite, on_sale FROM product_marks WHERE user_id = ?", arguments: [userID]) {
                marks[r[0]] = ProductMarks(favourite: r[1], onSale: r[2])
            }
            for r in try Row.fetchAll(db, sql: """
                SELECT l.product_id, t.name FROM product_tag_links AS l JOIN product_tags AS t ON t.pk = l.tag_pk
                WHERE l.user_id = ? ORDER BY l.product_id, t.name
                """, arguments: [userID]) {
                marks[r[0], default: ProductMarks()].tags.append(r[1])
            }
            return marks
        }
    }

    static func productTags(_ db: Database, userID: String) throws -> [ProductTag] {
        do {
            return try Row.fetchAll(db, sql: """
                SELECT t.name, t.color, (SELECT count(*) FROM product_tag_links AS l WHERE l.tag_pk = t.pk)
                FROM product_tags AS t WHERE t.user_id = ? ORDER BY t.name
                """, arguments: [userID]).map { ProductTag(name: $0[0], color: $0[1], products: $0[2]) }
        }
    }

    static func hasRecord(_ db: Database, _ userID: String, _ productID: Int64) throws -> Bool {
        try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM price_records WHERE user_id = ? AND product_id = ?)", arguments: [userID, productID]) ?? false
    }

    public func tagProduct(userID: String, productID: Int64, tag: String, color: String?) async throws -> ProductTag? {
        try await writeTransaction { db in
            guard try Self.hasRecord(db, userID, productID) else { return nil }
            let fold = Identity.asciiLowercased(tag)
            try db.execute(sql: """
                INSERT INTO product_tags (user_id, name, name_fold, color) VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT (user_id, name_fold) DO UPDATE SET color = coalesce(?4, color)
                """, arguments: [userID, tag, fold, color])
            let pk = try Int64.fetchOne(db, sql: "SELECT pk FROM product_tags WHERE user_id = ? AND name_fold = ?", arguments: [userID, fold])!
            try db.execute(
                sql: "INSERT OR IGNORE INTO product_tag_links (user_id, tag_pk, product_id) VALUES (?, ?, ?)", arguments: [userID, pk, productID])
            let r = try Row.fetchOne(db, sql: """
                SELECT name, color, (SELECT count(*) FROM product_tag_links WHERE tag_pk = ?1) FROM product_tags WHERE pk = ?1
                """, arguments: [pk])!
            return ProductTag(name: r[0], color: r[1], products: r[2])
        }
    }

    public func untagProduct(userID: String, productID: Int64, tag: String) async throws -> Bool {
        try await writeTransaction { db in
            guard let pk = try Int64.fetchOne(
                db, sql: "SELECT pk FROM product_tags WHERE user_id = ? AND name_fold = ?", arguments: [userID, Identity.asciiLowercased(tag)])
            else { return false }
            try db.execute(sql: "DELETE FROM product_tag_links WHERE tag_pk = ? AND product_id = ?", arguments: [pk, productID])
            guard db.changesCount > 0 else { return false }
            try db.execute(sql: "DELETE FROM product_tags WHERE pk = ?1 AND NOT EXISTS (SELECT 1 FROM product_tag_links WHERE tag_pk = ?1)", arguments: [pk])
            return true
        }
    }

    public func markProduct(userID: String, productID: Int64, favourite: Bool?, onSale: Bool?) async throws -> Bool {
        try await writeTransaction { db in
            guard try Self.hasRecord(db, userID, productID) else { return false }
            try db.execute(sql: """
                INSERT INTO product_marks (user_id, product_id, favourite, on_sale) VALUES (?1, ?2, coalesce(?3, 0), coalesce(?4, 0))
                ON CONFLICT (user_id, product_id) DO UPDATE SET favourite = coalesce(?3, favourite), on_sale = coalesce(?4, on_sale)
                """, arguments: [userID, productID, favourite, onSale])
            return true
        }
    }

    public func editProduct(userID: String, id: Int64, _ f: ProductFields) async throws -> ProductChange {
        try await writeTransaction { db in
            guard try Self.hasRecord(db, userID, id) else { return .noSuchProduct(id) }
            let others = try Int.fetchOne(
                db, sql: "SELECT count(DISTINCT user_id) FROM price_records WHERE product_id = ? AND user_id <> ?", arguments: [id, userID]) ?? 0
            if others > 0 { return .shared(id, users: others) }
            if let code = f.barcode?.digits,
                let other = try Int64.fetchOne(db, sql: "SELECT id FROM products WHERE barcode = ? AND id <> ?", arguments: [code, id]) {
                return .barcodeTaken(by: other)
            }
            try db.execute(sql: """
                UPDATE products SET name = ?, normalized_name = ?, brand = ?, category = ?, barcode = ?, default_unit = ? WHERE id = ?
                """, arguments: [f.name, ProductName.normalized(f.name), f.brand, f.category, f.barcode?.digits, f.defaultUnit.rawValue, id])
            return .done(try Self.fetchProducts(db, where: "p.id = ?", [id]).first, records: 0)
        }
    }

    public func mergeProducts(userID: String, from: Int64, into: Int64) async throws -> ProductChange {
        try await writeTransaction { db in
            guard try Self.hasRecord(db, userID, from) else { return .noSuchProduct(from) }
            guard try Self.hasRecord(db, userID, into) else { return .noSuchProduct(into) }
            try db.execute(sql: "UPDATE price_records SET product_id = ? WHERE user_id = ? AND product_id = ?", arguments: [into, userID, from])
            let moved = db.changesCount
            try Self.moveMarks(db, userID, from: from, into: into)
            try Self.dropIfUnnamed(db, from)
            return .done(try Self.fetchProducts(db, where: "p.id = ?", [into]).first, records: moved)
        }
    }

    public func deleteProduct(userID: String, id: Int64) async throws -> ProductChange {
        try await writeTransaction { db in
            guard try Self.hasRecord(db, userID, id) else { return .noSuchProduct(id) }
            try db.execute(sql: "DELETE FROM price_records WHERE user_id = ? AND product_id = ?", arguments: [userID, id])
            let gone = db.changesCount
            try Self.moveMarks(db, userID, from: id, into: nil)
            try Self.dropIfUnnamed(db, id)
            return .done(try Self.fetchProducts(db, where: "p.id = ?", [id]).first, records: gone)
        }
    }

    /// The user's tags and marks of `from` go to `into` (flags or-ed), or away when `into` is nil.
    static func moveMarks(_ db: Database, _ userID: String, from: Int64, into: Int64?) throws {
        if let into {
            try db.execute(sql: """
                INSERT OR IGNORE INTO product_tag_links (user_id, tag_pk, product_id)
                SELECT user_id, tag_pk, ? FROM product_tag_links WHERE user_id = ? AND product_id = ?
                """, arguments: [into, userID, from])
            try db.execute(sql: """
                INSERT INTO product_marks (user_id, product_id, favourite, on_sale)
                SELECT user_id, ?, favourite, on_sale FROM product_marks WHERE user_id = ? AND product_id = ?
                ON CONFLICT (user_id, product_id) DO UPDATE SET favourite = max(favourite, excluded.favourite), on_sale = max(on_sale, excluded.on_sale)
                """, arguments: [into, userID, from])
        }
        try db.execute(sql: "DELETE FROM product_tag_links WHERE user_id = ? AND product_id = ?", arguments: [userID, from])
        try db.execute(sql: "DELETE FROM product_marks WHERE user_id = ? AND product_id = ?", arguments: [userID, from])
        if into == nil {
            try db.execute(sql: """
                DELETE FROM product_tags WHERE user_id = ? AND NOT EXISTS (SELECT 1 FROM product_tag_links AS l WHERE l.tag_pk = product_tags.pk)
                """, arguments: [userID])
        }
    }

    /// As `users delete`: the catalogue keeps a product while a record names it.
    static func dropIfUnnamed(_ db: Database, _ id: Int64) throws {
        try db.execute(sql: """
            DELETE FROM products WHERE id = ? AND NOT EXISTS (SELECT 1 FROM price_records AS r WHERE r.product_id = products.id)
            """, arguments: [id])
    }
}

/// The mark and tag reads of a read scope, on its connection and snapshot.
extension SpatiaLiteReader: ProductMarkReader {
    public func productMarks(userID: String) throws -> [Int64: ProductMarks] { try SpatiaLiteStore.productMarks(db, userID: userID) }
    public func productTags(userID: String) throws -> [ProductTag] { try SpatiaLiteStore.productTags(db, userID: userID) }
}
