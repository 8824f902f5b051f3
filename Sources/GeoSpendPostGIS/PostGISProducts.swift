import GeoSpend
import PostgresNIO

/// A user's tags and marks of the shared catalogue and their product edits on PostgreSQL
/// (migration v18), with the file's rules and answers (Sources/GeoSpendSpatiaLite/ProductStorage.swift).
extension PostGISStore: ProductStore {
    static func productMarks(_ r: PostGISReader, userID: String) throws -> [Int64: ProductMarks] {
        do {
            var marks: [Int64: ProductMarks] = [:]
            for row in try r.rows("SELECT product_id, favourite, on_sale FROM product_marks WHERE user_id = \(userID)") {
                let (id, favourite, onSale) = try row.decode((Int64, Bool, Bool).self)
                marks[id] = ProductMarks(favourite: favourite, onSale: onSale)
            }
            for row in try r.rows("""
                SELECT l.product_id, t.name FROM product_tag_links AS l JOIN product_tags AS t ON t.pk = l.tag_pk
                WHERE l.user_id = \(userID) ORDER BY l.product_id, t.name
                """) {
                let (id, name) = try row.decode((Int64, String).self)
                marks[id, default: ProductMarks()].tags.append(name)
            }
            return marks
        }
    }

    static func productTags(_ r: PostGISReader, userID: String) throws -> [ProductTag] {
        do {
            return try r.rows("""
                SELECT t.name, t.color, (SELECT count(*) FROM product_tag_links AS l WHERE l.tag_pk = t.pk)
                FROM product_tags AS t WHERE t.user_id = \(userID) ORDER BY t.name
                """).map { row in
                let (name, color, n) = try row.decode((String, String?, Int64).self)
                return ProductTag(name: name, color: color, products: Int(n))
            }
        }
    }

    static func hasRecord(_ r: PostGISReader, _ userID: String, _ productID: Int64) throws -> Bool {
        try r.rows("SELECT EXISTS (SELECT 1 FROM price_records WHERE user_id = \(userID) AND product_id = \(productID))")[0].decode(Bool.self)
    }

    public func tagProduct(userID: String, productID: Int64, tag: String, color: String?) async throws -> ProductTag? {
        try await editing { r in
            guard try Self.hasRecord(r, userID, productID) else { return nil }
            let fold = Identity.asciiLowercased(tag)
            let pk = try r.rows("""
                INSERT INTO product_tags (user_id, name, name_fold, color) VALUES (\(userID), \(tag), \(fold), \(color))
                ON CONFLICT (user_id, name_fold) DO UPDATE SET color = coalesce(\(color)::text, product_tags.color) RETURNING pk
                """)[0].decode(Int64.self)
            _ = try r.rows("""
                INSERT INTO product_tag_links (user_id, tag_pk, product_id) VALUES (\(userID), \(pk), \(productID)) ON CONFLICT DO NOTHING
                """)
            let (name, c, n) = try r.rows("""
                SELECT name, color, (SELECT count(*) FROM product_tag_links WHERE tag_pk = \(pk)) FROM product_tags WHERE pk = \(pk)
                """)[0].decode((String, String?, Int64).self)
            return ProductTag(name: name, color: c, products: Int(n))
        }
    }

    public func untagProduct(userID: String, productID: Int64, tag: String) async throws -> Bool {
        try await editing { r in
            guard let pk = try r.rows("""
                SELECT pk FROM product_tags WHERE user_id = \(userID) AND name_fold = \(Identity.asciiLowercased(tag))
                """).first?.decode(Int64.self) else { return false }
            guard !(try r.rows("DELETE FROM product_tag_links WHERE tag_pk = \(pk) AND product_id = \(productID) RETURNING 1")).isEmpty else { return false }
            _ = try r.rows("DELETE FROM product_tags WHERE pk = \(pk) AND NOT EXISTS (SELECT 1 FROM product_tag_links WHERE tag_pk = \(pk))")
            return true
        }
    }

    public func markProduct(userID: String, productID: Int64, favourite: Bool?, onSale: Bool?) async throws -> Bool {
        try await editing { r in
            guard try Self.hasRecord(r, userID, productID) else { return false }
            _ = try r.rows("""
                INSERT INTO product_marks (user_id, product_id, favourite, on_sale)
                VALUES (\(userID), \(productID), coalesce(\(favourite)::boolean, false), coalesce(\(onSale)::boolean, false))
                ON CONFLICT (user_id, product_id) DO UPDATE SET favourite = coalesce(\(favourite)::boolean, product_marks.favourite),
                    on_sale = coalesce(\(onSale)::boolean, product_marks.on_sale)
                """)
            return true
        }
    }

    static func product(_ r: PostGISReader, _ id: Int64) throws -> Product? {
        try r.rows("SELECT \(unescaped: productColumns) FROM products AS p WHERE p.id = \(id)").first.map { try product($0.makeRandomAccess(), from: 0) }
    }

    public func editProduct(userID: String, id: Int64, _ f: ProductFields) async throws -> ProductChange {
        try await editing { r in
            guard try Self.hasRecord(r, userID, id) else { return .noSuchProduct(id) }
            let others = try r.rows("""
                SELECT count(DISTINCT user_id) FROM price_records WHERE product_id = \(id) AND user_id <> \(userID)
                """)[0].decode(Int64.self)
            if others > 0 { return .shared(id, users: Int(others)) }
            if let code = f.barcode?.digits, let other = try r.rows("SELECT id FROM products WHERE barcode = \(code) AND id <> \(id)").first {
                return .barcodeTaken(by: try other.decode(Int64.self))
            }
            _ = try r.rows("""
                UPDATE products SET name = \(f.name), normalized_name = \(ProductName.normalized(f.name)), brand = \(f.brand),
                    category = \(f.category), barcode = \(f.barcode?.digits), default_unit = \(f.defaultUnit.rawValue) WHERE id = \(id)
                """)
            return .done(try Self.product(r, id), records: 0)
        }
    }

    public func mergeProducts(userID: String, from: Int64, into: Int64) async throws -> ProductChange {
        try await editing { r in
            guard try Self.hasRecord(r, userID, from) else { return .noSuchProduct(from) }
            guard try Self.hasRecord(r, userID, into) else { return .noSuchProduct(into) }
            let moved = try r.rows("""
                UPDATE price_records SET product_id = \(into) WHERE user_id = \(userID) AND product_id = \(from) RETURNING 1
                """).count
            try Self.moveMarks(r, userID, from: from, into: into)
            try Self.dropIfUnnamed(r, from)
            return .done(try Self.product(r, into), records: moved)
        }
    }

    public func deleteProduct(userID: String, id: Int64) async throws -> ProductChange {
        try await editing { r in
            guard try Self.hasRecord(r, userID, id) else { return .noSuchProduct(id) }
            let gone = try r.rows("DELETE FROM price_records WHERE user_id = \(userID) AND product_id = \(id) RETURNING pk")
            let pks = try gone.map { try $0.decode(Int64.self) }
            // No foreign key on the partitioned side: feed entries lose their link as on the file.
            _ = try r.rows("UPDATE community_posts SET price_record_pk = NULL WHERE price_record_pk = ANY(\(pks))")
            try Self.moveMarks(r, userID, from: id, into: nil)
            try Self.dropIfUnnamed(r, id)
            return .done(try Self.product(r, id), records: pks.count)
        }
    }

    static func moveMarks(_ r: PostGISReader, _ userID: String, from: Int64, into: Int64?) throws {
        if let into {
            _ = try r.rows("""
                INSERT INTO product_tag_links (user_id, tag_pk, product_id)
                SELECT user_id, tag_pk, \(into) FROM product_tag_links WHERE user_id = \(userID) AND product_id = \(from)
                ON CONFLICT DO NOTHING
                """)
            _ = try r.rows("""
                INSERT INTO product_marks (user_id, product_id, favourite, on_sale)
                SELECT user_id, \(into), favourite, on_sale FROM product_marks WHERE user_id = \(userID) AND product_id = \(from)
                ON CONFLICT (user_id, product_id) DO UPDATE SET favourite = product_marks.favourite OR excluded.favourite,
                    on_sale = product_marks.on_sale OR excluded.on_sale
                """)
        }
        _ = try r.rows("DELETE FROM product_tag_links WHERE user_id = \(userID) AND product_id = \(from)")
        _ = try r.rows("DELETE FROM product_marks WHERE user_id = \(userID) AND product_id = \(from)")
        if into == nil {
            _ = try r.rows("""
                DELETE FROM product_tags WHERE user_id = \(userID) AND NOT EXISTS (SELECT 1 FROM product_tag_links AS l WHERE l.tag_pk = product_tags.pk)
                """)
        }
    }

    static func dropIfUnnamed(_ r: PostGISReader, _ id: Int64) throws {
        _ = try r.rows("""
            DELETE FROM products WHERE id = \(id) AND NOT EXISTS (SELECT 1 FROM price_records AS r WHERE r.product_id = products.id)
            """)
    }
}

/// The mark and tag reads of a read scope, on its connection and snapshot.
extension PostGISReader: ProductMarkReader {
    func productMarks(userID: String) throws -> [Int64: ProductMarks] { try PostGISStore.productMarks(self, userID: userID) }
    func productTags(userID: String) throws -> [ProductTag] { try PostGISStore.productTags(self, userID: userID) }
}
