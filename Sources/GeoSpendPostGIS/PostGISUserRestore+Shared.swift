import Foundation
import GeoSpend
import PostgresNIO

/// `users import` of the shared-catalogue sections on PostgreSQL, the file's rules
/// (Sources/GeoSpendSpatiaLite/UserRestoreStorage+Shared.swift), one small function per table,
/// inside `restore`'s transaction. Ids GeoSpend gives as the largest plus one (`products`,
/// `price_records`) are given so here too; the sequences of `receipts` and the community's
/// identity columns are moved past an id restored as exported.
extension PostGISStore {
    static func restoreShared(_ r: PostGISReader, _ data: UserRestoreData, user: String) throws {
        let productIDs = try restoreProducts(r, data.products)
        var exported: [Int64: Int64] = [:]
        for (p, id) in zip(data.products, productIDs) { if let e = p.exportedID { exported[e] = id } }
        try restorePriceRecords(r, data.priceRecords, productIDs: productIDs, stores: data.storeChoices, user: user)
        try restoreProductMarks(r, data.productTags, data.productMarks, productIDs: productIDs, user: user)
        try restoreShoppingLists(r, data.shoppingLists, user: user)
        try restoreReceipts(r, data.receipts, products: exported, stores: data.storeChoices, user: user)
        try restoreCommunity(r, data.community, products: exported, user: user)
    }

    static func exists(_ r: PostGISReader, _ query: PostgresQuery) throws -> Bool {
        try r.rows(query)[0].decode(Bool.self)
    }

    static func restoreProducts(_ r: PostGISReader, _ products: [RestoredProduct]) throws -> [Int64] {
        try products.map { p in
            let code = p.barcode?.digits
            if let code, let id = try r.rows("SELECT id FROM products WHERE barcode = \(code)").first?.decode(Int64.self) { return id }
            if let e = p.exportedID, let id = try r.rows("""
                SELECT id FROM products WHERE id = \(e) AND name = \(p.name) AND barcode IS NOT DISTINCT FROM \(code)
                    AND (\(p.onlyMarked) OR (brand IS NOT DISTINCT FROM \(p.brand) AND category = \(p.category)))
                """).first?.decode(Int64.self) {
                return id
            }
            if code == nil, let id = try r.rows("""
                SELECT id FROM products WHERE name = \(p.name) AND barcode IS NULL
                    AND (\(p.onlyMarked) OR (brand IS NOT DISTINCT FROM \(p.brand) AND category = \(p.category)))
                ORDER BY id LIMIT 1
                """).first?.decode(Int64.self) {
                return id
            }
            var id = try r.rows("SELECT coalesce(max(id), 0) + 1 FROM products")[0].decode(Int64.self)
            if let e = p.exportedID, try !exists(r, "SELECT EXISTS (SELECT 1 FROM products WHERE id = \(e))") { id = e }
            let product = p.product
            _ = try r.rows("""
                INSERT INTO products (id, name, normalized_name, brand, category, barcode, default_unit)
                VALUES (\(id), \(product.name), \(product.normalizedName), \(product.brand), \(product.category), \(code), \(product.defaultUnit.rawValue))
                """)
            return id
        }
    }

    static func restorePriceRecords(
        _ r: PostGISReader, _ records: [RestoredPriceRecord], productIDs: [Int64], stores: StoreChoiceRecord, user: String
    ) throws {
        guard !records.isEmpty else { return }
        var pk = try r.rows("SELECT coalesce(max(pk), 0) + 1 FROM price_records")[0].decode(Int64.self)
        for x in records {
            let e = x.entry, at = x.entry.recordedAt
            let offset = at.utcOffsetMinutes.map(Int64.init)
            let place = stores.recordStore(e.storeID)
            _ = try r.rows("""
                INSERT INTO price_records (pk, user_id, product_id, store_id, user_store_number, price_minor, currency, quantity, unit,
                    recorded_at, recorded_ms, utc_offset_min, local_date, source, content_hash, receipt_id, created_at, updated_at)
                VALUES (\(pk), \(user), \(productIDs[x.product]), \(place.sharedID), \(place.addedNumber), \(e.price.minorUnits), \(e.price.currency.code), \(e.quantity),
                    \(e.unit.rawValue), \(at.text), \(at.epochMilliseconds), \(offset), \(at.localDate), \(e.source.rawValue),
                    \(e.contentHash(userID: user)), \(x.receiptID), \(x.createdAt), \(x.updatedAt))
                """)
            pk += 1
        }
    }

    static func restoreProductMarks(
        _ r: PostGISReader, _ tags: [RestoredProductTag], _ marks: [RestoredProductMark], productIDs: [Int64], user: String
    ) throws {
        var pks: [String: Int64] = [:]
        for t in tags {
            pks[t.name] = try r.rows("""
                INSERT INTO product_tags (user_id, name, name_fold, color) VALUES (\(user), \(t.name), \(Identity.asciiLowercased(t.name)), \(t.color))
                RETURNING pk
                """)[0].decode(Int64.self)
        }
        for m in marks {
            let product = productIDs[m.product]
            if m.favourite || m.onSale || m.tags.isEmpty {
                _ = try r.rows("""
                    INSERT INTO product_marks (user_id, product_id, favourite, on_sale) VALUES (\(user), \(product), \(m.favourite), \(m.onSale))
                    """)
            }
            for tag in m.tags {
                _ = try r.rows("INSERT INTO product_tag_links (user_id, tag_pk, product_id) VALUES (\(user), \(pks[tag]), \(product))")
            }
        }
    }

    static func restoreShoppingLists(_ r: PostGISReader, _ lists: [RestoredShoppingList], user: String) throws {
        for l in lists {
            _ = try r.rows("""
                INSERT INTO shopping_lists (user_id, number, name, budget_minor, currency, completed_expense_id, checks)
                VALUES (\(user), \(l.number), \(l.name), \(l.budget.minorUnits), \(l.budget.currency.code), \(l.completedExpenseID), \(l.checks))
                """)
            for (i, item) in l.items.enumerated() {
                var packs: Int64?, dimension: String?, thousandths: Int64?
                switch item.want {
                case .packs(let n): packs = n
                case .amount(let a): (dimension, thousandths) = (a.dimension.rawValue, a.thousandths)
                }
                _ = try r.rows("""
                    INSERT INTO shopping_list_items (user_id, list_number, position, name, packs, dimension, thousandths, checked_expense_id,
                        checked_price_id, checked_paid_minor)
                    VALUES (\(user), \(l.number), \(Int64(i + 1)), \(item.name), \(packs), \(dimension), \(thousandths), \(item.check?.expenseID),
                        \(item.check?.priceRecordID), \(item.check?.paidMinor))
                    """)
            }
        }
        try restoreCounter(r, "shopping_list_numbers", lists.map(\.number), user: user)
    }

    static func restoreReceipts(
        _ r: PostGISReader, _ receipts: [Receipt], products: [Int64: Int64], stores: StoreChoiceRecord, user: String
    ) throws {
        guard !receipts.isEmpty else { return }
        for x in receipts {
            var items = x.items
            for i in items.indices { items[i].productID = try restoredProduct(r, items[i].productID, products) }
            let taken = try exists(r, "SELECT EXISTS (SELECT 1 FROM receipts WHERE pk = \(x.sequence))")
            let pk = taken ? try r.rows("SELECT nextval(pg_get_serial_sequence('receipts', 'pk'))")[0].decode(Int64.self) : x.sequence
            _ = try r.rows("""
                INSERT INTO receipts (pk, id, user_id, store_id, user_store_number, receipt_date, receipt_time, total_minor, currency,
                    image_sha256, image_name, image, text, status, problems, items, expense_id, created_at)
                VALUES (\(pk), \(x.id), \(user), \(x.storeID.flatMap { stores.recordStore($0).sharedID }),
                    \(x.storeID.flatMap { stores.recordStore($0).addedNumber }), \(x.date), \(x.time), \(x.totalMinor), \(x.currency.code), \(x.imageHash),
                    \(x.imageName), \(x.image.map { Data($0) }), \(x.text), \(x.status.rawValue), \(Receipt.encodeProblems(x.problems)),
                    \(Receipt.encodeItems(items)), \(x.expenseID), \(x.createdAt))
                """)
        }
        try moveSequence(r, table: "receipts", column: "pk")
    }

    /// Moves `table`'s sequence past its largest `column` (never back), so the next id drawn is new.
    static func moveSequence(_ r: PostGISReader, table: String, column: String) throws {
        let sequence = "pg_get_serial_sequence('\(table)', '\(column)')"
        _ = try r.rows(PostgresQuery(unsafeSQL: """
            SELECT setval(\(sequence), GREATEST(coalesce(pg_sequence_last_value(\(sequence)::regclass), 1), (SELECT max(\(column)) FROM \(table))))
            """))
    }

    static func restoredProduct(_ r: PostGISReader, _ id: Int64?, _ products: [Int64: Int64]) throws -> Int64? {
        guard let id else { return nil }
        if let moved = products[id] { return moved }
        return try exists(r, "SELECT EXISTS (SELECT 1 FROM products WHERE id = \(id))") ? id : nil
    }

    static func restoreCommunity(_ r: PostGISReader, _ c: RestoredCommunity, products: [Int64: Int64], user: String) throws {
        guard let member = c.member else { return }
        let key = member.displayName.lowercased()
        if try exists(r, "SELECT EXISTS (SELECT 1 FROM community_members WHERE display_key = \(key))") {
            throw UserRestoreError.invalid(
                path: "community.member.display_name",
                reason: "\"\(member.displayName)\" is another member's display name now; change it in the document and import again")
        }
        _ = try r.rows("""
            INSERT INTO community_members (user_id, display_name, display_key, joined_at) VALUES (\(user), \(member.displayName), \(key), \(member.joinedAt))
            """)
        var posts: [Int64: Int64] = [:]
        for p in c.posts {
            let automatic = p.type == .priceUpdate
            let product = try restoredProduct(r, p.productID, products)
            let taken = try exists(r, "SELECT EXISTS (SELECT 1 FROM community_posts WHERE id = \(p.id))")
            let id = taken ? try r.rows("SELECT nextval(pg_get_serial_sequence('community_posts', 'id'))")[0].decode(Int64.self) : p.id
            _ = try r.rows("""
                INSERT INTO community_posts (id, user_id, type, store_id, product_id, rating, body, price_minor, currency, automatic, verified,
                    created_at, created_ms)
                OVERRIDING SYSTEM VALUE
                VALUES (\(id), \(user), \(p.type.rawValue), \(p.storeID), \(product), \(p.rating),
                    \(p.text), \(p.price?.minorUnits), \(p.price?.currency.code), \(automatic), \(p.verified), \(p.createdAt),
                    \(p.createdMilliseconds))
                """)
            posts[p.id] = id
        }
        for comment in c.comments {
            let post = posts[comment.postID] ?? comment.postID
            guard try exists(r, "SELECT EXISTS (SELECT 1 FROM community_posts WHERE id = \(post))") else { continue }
            let taken = try exists(r, "SELECT EXISTS (SELECT 1 FROM community_comments WHERE id = \(comment.id))")
            let id = taken ? try r.rows("SELECT nextval(pg_get_serial_sequence('community_comments', 'id'))")[0].decode(Int64.self) : comment.id
            _ = try r.rows("""
                INSERT INTO community_comments (id, post_id, user_id, body, created_at, created_ms) OVERRIDING SYSTEM VALUE
                VALUES (\(id), \(post), \(user), \(comment.text), \(comment.createdAt), \(comment.createdMilliseconds))
                """)
        }
        if !c.posts.isEmpty { try moveSequence(r, table: "community_posts", column: "id") }
        if !c.comments.isEmpty { try moveSequence(r, table: "community_comments", column: "id") }
    }
}
