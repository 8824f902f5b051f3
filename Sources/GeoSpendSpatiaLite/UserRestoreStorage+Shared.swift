import Foundation
import GeoSpend
import GRDB

/// `users import` of the shared-catalogue sections on the file (UserRestore+Shared.swift's
/// rules), one small function per table, inside `restore`'s transaction.
extension SpatiaLiteStore {
    /// Writes products, price records, tags and marks, lists, receipts and the community layer.
    static func restoreShared(_ db: Database, _ data: UserRestoreData, user: String) throws {
        let productIDs = try restoreProducts(db, data.products)
        var exported: [Int64: Int64] = [:]
        for (p, id) in zip(data.products, productIDs) { if let e = p.exportedID { exported[e] = id } }
        try restorePriceRecords(db, data.priceRecords, productIDs: productIDs, stores: data.storeChoices, user: user)
        try restoreProductMarks(db, data.productTags, data.productMarks, productIDs: productIDs, user: user)
        try restoreShoppingLists(db, data.shoppingLists, user: user)
        try restoreReceipts(db, data.receipts, products: exported, stores: data.storeChoices, user: user)
        try restoreCommunity(db, data.community, products: exported, user: user)
    }

    /// Each product's id in the catalogue: found (barcode; the exported id with the same fields;
    /// the same name, brand and category without a barcode) or added (the exported id when free).
    static func restoreProducts(_ db: Database, _ products: [RestoredProduct]) throws -> [Int64] {
        try products.map { p in
            if let code = p.barcode?.digits, let id = try Int64.fetchOne(db, sql: "SELECT id FROM products WHERE barcode = ?", arguments: [code]) {
                return id
            }
            if let e = p.exportedID, let id = try Int64.fetchOne(
                db, sql: "SELECT id FROM products WHERE id = ? AND name = ? AND barcode IS ? AND (? OR (brand IS ? AND category = ?))",
                arguments: [e, p.name, p.barcode?.digits, p.onlyMarked, p.brand, p.category]) {
                return id
            }
            if p.barcode == nil, let id = try Int64.fetchOne(
                db, sql: "SELECT id FROM products WHERE name = ? AND barcode IS NULL AND (? OR (brand IS ? AND category = ?)) ORDER BY id LIMIT 1",
                arguments: [p.name, p.onlyMarked, p.brand, p.category]) {
                return id
            }
            var id = p.exportedID
            if let e = id, try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM products WHERE id = ?)", arguments: [e]) == true { id = nil }
            let product = p.product
            try db.execute(
                sql: "INSERT INTO products (id, name, normalized_name, brand, category, barcode, default_unit) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: [id, product.name, product.normalizedName, product.brand, product.category, product.barcode?.digits, product.defaultUnit.rawValue])
            return db.lastInsertedRowID
        }
    }

    /// With their times, receipt and content hash; no feed entries (the community's are restored as exported).
    static func restorePriceRecords(
        _ db: Database, _ records: [RestoredPriceRecord], productIDs: [Int64], stores: StoreChoiceRecord, user: String
    ) throws {
        let s = try db.cachedStatement(sql: """
            INSERT INTO price_records (user_id, product_id, store_id, user_store_number, price_minor, currency, quantity, unit, recorded_at,
                recorded_ms, utc_offset_min, local_date, source, content_hash, receipt_id, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for r in records {
            let e = r.entry, at = r.entry.recordedAt
            let place = stores.recordStore(e.storeID)
            try s.execute(arguments: [
                user, productIDs[r.product], place.sharedID, place.addedNumber, e.price.minorUnits, e.price.currency.code, e.quantity, e.unit.rawValue, at.text,
                at.epochMilliseconds, at.utcOffsetMinutes, at.localDate, e.source.rawValue, e.contentHash(userID: user), r.receiptID,
                r.createdAt, r.updatedAt,
            ])
        }
    }

    /// Tags, their links, and the flags (a row only where a flag is set, or nothing else names the product).
    static func restoreProductMarks(
        _ db: Database, _ tags: [RestoredProductTag], _ marks: [RestoredProductMark], productIDs: [Int64], user: String
    ) throws {
        var pks: [String: Int64] = [:]
        for t in tags {
            try db.execute(
                sql: "INSERT INTO product_tags (user_id, name, name_fold, color) VALUES (?, ?, ?, ?)",
                arguments: [user, t.name, Identity.asciiLowercased(t.name), t.color])
            pks[t.name] = db.lastInsertedRowID
        }
        for m in marks {
            let product = productIDs[m.product]
            if m.favourite || m.onSale || m.tags.isEmpty {
                try db.execute(
                    sql: "INSERT INTO product_marks (user_id, product_id, favourite, on_sale) VALUES (?, ?, ?, ?)",
                    arguments: [user, product, m.favourite, m.onSale])
            }
            for tag in m.tags {
                try db.execute(
                    sql: "INSERT INTO product_tag_links (user_id, tag_pk, product_id) VALUES (?, ?, ?)", arguments: [user, pks[tag], product])
            }
        }
    }

    /// Lists keep their ids (the counter resumes after the largest) and their items' checks.
    static func restoreShoppingLists(_ db: Database, _ lists: [RestoredShoppingList], user: String) throws {
        for l in lists {
            try db.execute(
                sql: """
                    INSERT INTO shopping_lists (user_id, number, name, budget_minor, currency, completed_expense_id, checks, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, \(nowSQL))
                    """,
                arguments: [user, l.number, l.name, l.budget.minorUnits, l.budget.currency.code, l.completedExpenseID, l.checks])
            try replaceItems(db, pk: db.lastInsertedRowID, user: user, l.items)
        }
        try restoreCounter(db, "shopping_list_numbers", lists.map(\.number), user: user)
    }

    /// Receipts keep their row number (`sequence`) when free; a line's product follows it.
    static func restoreReceipts(
        _ db: Database, _ receipts: [Receipt], products: [Int64: Int64], stores: StoreChoiceRecord, user: String
    ) throws {
        for r in receipts {
            var items = r.items
            for i in items.indices {
                items[i].productID = try restoredProduct(db, items[i].productID, products)
            }
            let free = try Bool.fetchOne(db, sql: "SELECT NOT EXISTS (SELECT 1 FROM receipts WHERE pk = ?)", arguments: [r.sequence]) == true
            try db.execute(
                sql: """
                    INSERT INTO receipts (pk, id, user_id, store_id, user_store_number, receipt_date, receipt_time, total_minor, currency,
                        image_sha256, image_name, image, text, status, problems, items, expense_id, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    free ? r.sequence : nil, r.id, user, r.storeID.flatMap { stores.recordStore($0).sharedID },
                    r.storeID.flatMap { stores.recordStore($0).addedNumber }, r.date, r.time, r.totalMinor, r.currency.code, r.imageHash, r.imageName,
                    r.image.map { Data($0) }, r.text, r.status.rawValue, Receipt.encodeProblems(r.problems), Receipt.encodeItems(items),
                    r.expenseID, r.createdAt,
                ])
        }
    }

    /// An exported product id as restored: followed when restored, kept when the catalogue
    /// still has it, else none (as a deleted product leaves its references: `SET NULL`).
    static func restoredProduct(_ db: Database, _ id: Int64?, _ products: [Int64: Int64]) throws -> Int64? {
        guard let id else { return nil }
        if let moved = products[id] { return moved }
        return try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM products WHERE id = ?)", arguments: [id]) == true ? id : nil
    }

    /// Membership, entries and comments; ids kept when free (AUTOINCREMENT moves past them).
    static func restoreCommunity(_ db: Database, _ c: RestoredCommunity, products: [Int64: Int64], user: String) throws {
        guard let member = c.member else { return }
        let key = member.displayName.lowercased()
        if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM community_members WHERE display_key = ?)", arguments: [key]) == true {
            throw UserRestoreError.invalid(
                path: "community.member.display_name",
                reason: "\"\(member.displayName)\" is another member's display name now; change it in the document and import again")
        }
        try db.execute(
            sql: "INSERT INTO community_members (user_id, display_name, display_key, joined_at) VALUES (?, ?, ?, ?)",
            arguments: [user, member.displayName, key, member.joinedAt])
        var posts: [Int64: Int64] = [:]
        for p in c.posts {
            let free = try Bool.fetchOne(db, sql: "SELECT NOT EXISTS (SELECT 1 FROM community_posts WHERE id = ?)", arguments: [p.id]) == true
            try db.execute(
                sql: """
                    INSERT INTO community_posts (id, user_id, type, store_id, product_id, rating, body, price_minor, currency, automatic,
                        verified, created_at, created_ms)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    free ? p.id : nil, user, p.type.rawValue, p.storeID, try restoredProduct(db, p.productID, products), p.rating, p.text,
                    p.price?.minorUnits, p.price?.currency.code, p.type == .priceUpdate, p.verified, p.createdAt, p.createdMilliseconds,
                ])
            posts[p.id] = db.lastInsertedRowID
        }
        for comment in c.comments {
            let post = posts[comment.postID] ?? comment.postID
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM community_posts WHERE id = ?)", arguments: [post]) == true else { continue }
            let free = try Bool.fetchOne(db, sql: "SELECT NOT EXISTS (SELECT 1 FROM community_comments WHERE id = ?)", arguments: [comment.id]) == true
            try db.execute(
                sql: "INSERT INTO community_comments (id, post_id, user_id, body, created_at, created_ms) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [free ? comment.id : nil, post, user, comment.text, comment.createdAt, comment.createdMilliseconds])
        }
    }
}
