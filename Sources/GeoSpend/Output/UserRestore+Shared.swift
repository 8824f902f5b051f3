import Foundation

/// `users import` of what a user keeps in or beside the shared catalogue (issue 38): price
/// records with their products, product tags and marks, shopping lists, receipts (their lines
/// and kept photos) and the community layer (membership, entries, comments). One small reader
/// per section; the stores write each in the restore's one transaction.
///
/// Shared rows and ids (docs/DOMAIN.md § Restore):
/// - Products are the catalogue's, keyed by `id` (the barcode is unique too). A restored product
///   is the catalogue's product with its barcode, else the exported id when that product still
///   has the same name, brand and category, else a product with exactly that name, brand and
///   category and no barcode; else it is added, under its exported id when that id is free (so
///   an export after a delete and a restore reads the same) and under the next free id when not.
///   Marks, tag links, receipt lines and feed entries follow the product wherever it lands.
/// - Receipts keep their row number (`sequence`) and feed entries and comments their ids when
///   free; a taken one is renumbered (the next after the largest), and a comment follows its
///   entry. A comment on another member's entry that is gone since is left out, as the
///   entry's deletion would have taken it (the comments' `ON DELETE CASCADE`).
extension UserRestore {
    /// Reads the shared-catalogue sections into `data` (after the expenses and stores).
    static func readShared(_ doc: Node, into data: inout UserRestoreData) throws(UserRestoreError) {
        try readPriceRecords(doc, into: &data)
        try readProductMarks(doc, into: &data)
        data.shoppingLists = try doc.array("shopping_lists").map(shoppingList)
        try unique(data.shoppingLists.map(\.number), "shopping_lists")
        data.receipts = try doc.array("receipts").map { r throws(UserRestoreError) in try receipt(r, user: data.userID) }
        var receiptIDs = Set<String>()
        for (n, r) in data.receipts.enumerated() where !receiptIDs.insert(r.id).inserted {
            throw .invalid(path: "receipts[\(n)].id", reason: "\"\(r.id)\" appears twice")
        }
        for (n, r) in data.priceRecords.enumerated() {
            if let id = r.receiptID, !receiptIDs.contains(id) {
                throw .invalid(path: "price_records[\(n)].receipt_id", reason: "\"\(id)\" is not among the receipts")
            }
        }
        try readCommunity(doc, into: &data)
        let named = data.priceRecords.map(\.entry.storeID) + data.receipts.compactMap(\.storeID) + data.community.posts.compactMap(\.storeID)
        for id in named where !data.storeIDs.contains(id) { data.storeIDs.append(id) }
    }

    /// `price_records` (the keys of `prices import`) with `price_record_times` (times, and the
    /// product's id since this version) one for one.
    static func readPriceRecords(_ doc: Node, into data: inout UserRestoreData) throws(UserRestoreError) {
        let records = try doc.array("price_records")
        let times = try doc.optionalArray("price_record_times") ?? []
        guard times.isEmpty || times.count == records.count else {
            throw .invalid(path: "price_record_times", reason: "has \(times.count) entries for \(records.count) price records; one each")
        }
        var byID: [Int64: Int] = [:]
        var byKey: [RestoredProduct.Key: Int] = [:]
        for (n, r) in records.enumerated() {
            guard case .object(let members) = r.value else { throw .invalid(path: r.path, reason: "is \(r.value.typeName); expected an object") }
            var fields: [String: RawRecord.RawValue] = [:]
            for (key, v) in members {
                guard PriceImport.columns.contains(key) else { throw .invalid(path: "\(r.path).\(key)", reason: "unknown key") }
                switch v {
                case .null: break
                case .string(let s): fields[key] = .text(s)
                case .number(let x): fields[key] = .number(x)
                default: fields[key] = .invalid(v.typeName)
                }
            }
            let entry: PriceEntry
            do throws(FieldError) {
                entry = try PriceImport.geoSpendRow(RawRecord(location: r.path) { fields[$0] }, line: n + 1).entry
            } catch {
                throw .invalid(path: "\(r.path).\(error.column)", reason: error.reason)
            }
            guard case .id(let storeID) = entry.store else { throw .invalid(path: r.path + ".store_id", reason: "is missing") }
            let time = times.isEmpty ? nil : times[n]
            let productID = try time?.optionalInteger("product_id")
            if let productID, productID <= 0 { throw .invalid(path: times[n].path + ".product_id", reason: "\(productID) is not a positive id") }
            let product = RestoredProduct(
                exportedID: productID, name: entry.productName, brand: entry.brand, barcode: entry.barcode,
                category: entry.category ?? Product.defaultCategory, defaultUnit: entry.unit)
            let index: Int
            if let productID, let known = byID[productID] {
                guard data.products[known].key == product.key else {
                    throw .invalid(path: r.path + ".product", reason: "names product \(productID) with other fields than an earlier record")
                }
                index = known
            } else if productID == nil, let known = byKey[product.key] {
                index = known
            } else {
                index = data.products.count
                data.products.append(product)
                if let productID { byID[productID] = index } else { byKey[product.key] = index }
            }
            let receiptID = try r.optionalString("receipt_id")
            data.priceRecords.append(RestoredPriceRecord(
                product: index, entry: RestoredPriceRecord.Entry(
                    storeID: storeID, price: entry.price, quantity: entry.quantity, unit: entry.unit, recordedAt: entry.recordedAt, source: entry.source,
                    hashOf: entry),
                receiptID: receiptID, createdAt: try time?.optionalString("created_at"), updatedAt: try time?.optionalString("updated_at")))
        }
    }

    /// `product_tags` (name, colour) and `product_marks` (flags and tag names per product id).
    static func readProductMarks(_ doc: Node, into data: inout UserRestoreData) throws(UserRestoreError) {
        var folded = Set<String>()
        data.productTags = try (doc.optionalArray("product_tags") ?? []).map { t throws(UserRestoreError) in
            let name = try t.string("name")
            guard (try? ProductCatalogue.tagName(name)) == name else { throw .invalid(path: t.path + ".name", reason: "\"\(name)\" is not a tag name: 1 to 100 characters") }
            guard folded.insert(Identity.asciiLowercased(name)).inserted else { throw .invalid(path: t.path + ".name", reason: "\"\(name)\" appears twice") }
            let color = try t.optionalString("color")
            if let color, color.utf8.count != 7 || !color.hasPrefix("#") { throw .invalid(path: t.path + ".color", reason: "\"\(color)\" is not #RRGGBB") }
            return RestoredProductTag(name: name, color: color)
        }
        let tagNames = Set(data.productTags.map(\.name))
        var marked = Set<Int64>()
        data.productMarks = try (doc.optionalArray("product_marks") ?? []).map { m throws(UserRestoreError) in
            let id = try m.integer("product_id")
            guard id > 0, marked.insert(id).inserted else { throw .invalid(path: m.path + ".product_id", reason: "\(id) is not a positive id of its own") }
            let name = try m.string("product")
            var barcode: Barcode?
            if let code = try m.optionalString("barcode") {
                do { barcode = try Barcode(parsing: code) } catch { throw .invalid(path: m.path + ".barcode", reason: "\(error)") }
            }
            let tags = try m.array("tags").map { t throws(UserRestoreError) in
                let tag = try t.stringValue()
                guard tagNames.contains(tag) else { throw .invalid(path: t.path, reason: "\"\(tag)\" is not among product_tags") }
                return tag
            }
            let index: Int
            if let known = data.products.firstIndex(where: { $0.exportedID == id }) {
                guard data.products[known].name == name, data.products[known].barcode == barcode else {
                    throw .invalid(path: m.path + ".product", reason: "names product \(id) otherwise than its price records do")
                }
                index = known
            } else {
                // A product marked but no longer recorded: the catalogue's, found by id or barcode.
                index = data.products.count
                data.products.append(RestoredProduct(
                    exportedID: id, name: name, brand: nil, barcode: barcode, category: Product.defaultCategory, defaultUnit: .pcs, onlyMarked: true))
            }
            return RestoredProductMark(product: index, favourite: try m.bool("favourite"), onSale: try m.bool("on_sale"), tags: tags)
        }
    }

    /// A list in `users export`'s shape: items with their quantity text and, when checked, the
    /// purchase and what it cost.
    static func shoppingList(_ l: Node) throws(UserRestoreError) -> RestoredShoppingList {
        let c = try currency(l)
        let name = try l.string("name")
        guard (1...400).contains(name.count) else { throw .invalid(path: l.path + ".name", reason: "is not 1 to 400 characters") }
        var checks: Int64 = 0
        let items = try l.array("items").map { i throws(UserRestoreError) in
            let itemName = try i.string("name")
            guard !itemName.isEmpty else { throw .invalid(path: i.path + ".name", reason: "is empty") }
            let quantity = try i.string("quantity")
            let want: BasketItem.Want
            if let n = Int64(quantity), n > 0 {
                want = .packs(n)
            } else {
                do { want = .amount(try PackSize(parsing: quantity)) } catch { throw .invalid(path: i.path + ".quantity", reason: "\(error)") }
            }
            var item = ShoppingListItem(name: itemName, want: want)
            guard item.quantityText == quantity else { throw .invalid(path: i.path + ".quantity", reason: "\"\(quantity)\" is not as GeoSpend writes it (\(item.quantityText))") }
            if let expense = try i.optionalString("expense_id") {
                let paid = try money(i, "paid", currency: c)
                item.check = ShoppingListCheck(expenseID: expense, priceRecordID: nil, paidMinor: paid.minorUnits)
                // A check's purchase is `<id>-N`: the list's counter resumes after the largest N.
                if let n = expense.split(separator: "-").last.flatMap({ Int64($0) }) { checks = max(checks, n) }
            } else if i.member("paid").value != .null {
                throw .invalid(path: i.path + ".paid", reason: "is given for an item not checked (no expense_id)")
            }
            return item
        }
        return RestoredShoppingList(
            number: try l.integer("id"), name: name, budget: try money(l, "budget", currency: c), items: items,
            completedExpenseID: try l.optionalString("completed_expense_id"), checks: checks)
    }

    /// A receipt in `receipts show --format json`'s shape with `image_base64`.
    static func receipt(_ r: Node, user: String) throws(UserRestoreError) -> Receipt {
        let id = try r.string("id")
        guard !id.isEmpty else { throw .invalid(path: r.path + ".id", reason: "is empty") }
        let owner = try r.string("user")
        guard owner == user else { throw .invalid(path: r.path + ".user", reason: "\"\(owner)\" is not the exported user \"\(user)\"") }
        let c = try currency(r)
        func minor(_ node: Node, _ key: String) throws(UserRestoreError) -> Int64? {
            guard let text = try node.optionalString(key) else { return nil }
            do { return try Money(parsing: text, currency: c).minorUnits } catch { throw .invalid(path: node.member(key).path, reason: "\(error)") }
        }
        let statusText = try r.string("status")
        guard let status = Receipt.Status(rawValue: statusText) else { throw .invalid(path: r.path + ".status", reason: "\"\(statusText)\" is not ok or needs_review") }
        let sequence = try r.integer("sequence")
        guard sequence > 0 else { throw .invalid(path: r.path + ".sequence", reason: "\(sequence) is not a positive number") }
        let items = try r.array("items").map { i throws(UserRestoreError) in
            let unit = try i.string("unit")
            let quantityText = try i.string("quantity")
            guard let quantity = unit == "kg" ? thousandths(quantityText) : Int64(quantityText), quantity > 0 else {
                throw .invalid(path: i.path + ".quantity", reason: "\"\(quantityText)\" is not a positive quantity\(unit == "kg" ? " in kg (3 decimals)" : "")")
            }
            let line = try i.integer("line")
            guard let price = try minor(i, "price") else { throw .invalid(path: i.path + ".price", reason: "is missing") }
            return Receipt.Item(
                line: Int(clamping: line), text: try i.string("text"), name: try i.string("name"), quantity: quantity, unit: unit,
                unitPriceMinor: try minor(i, "unit_price"), priceMinor: price, productID: try i.optionalInteger("product_id"))
        }
        var image: [UInt8]?
        let photo = r.member("image_base64")
        if photo.value != .null {
            guard let bytes = Data(base64Encoded: try photo.stringValue()) else {
                throw .invalid(path: photo.path, reason: "is not base64 (RFC 4648, with padding); the photo's bytes cannot be read")
            }
            image = [UInt8](bytes)
        }
        guard try r.bool("image_kept") == (image != nil) else {
            throw .invalid(path: r.path + ".image_kept", reason: "does not agree with image_base64")
        }
        let problems = try r.array("problems").map { p throws(UserRestoreError) in try p.stringValue() }
        return Receipt(
            id: id, userID: user, storeID: try r.optionalString("store"), date: try r.optionalString("date"), time: try r.optionalString("time"),
            totalMinor: try minor(r, "total"), currency: c, imageHash: try r.optionalString("image_sha256"), imageName: try r.optionalString("image_name"),
            image: image, text: try r.string("text"), status: status, problems: problems, items: items, expenseID: try r.optionalString("expense_id"),
            createdAt: try r.string("created_at"), sequence: sequence)
    }

    /// `12.345` → 12345 (a receipt line's kilograms, as `Money.decimalString(_, digits: 3)` writes them).
    static func thousandths(_ text: String) -> Int64? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].count == 3, let whole = Int64(parts[0]), whole >= 0, let fraction = Int64(parts[1]), fraction >= 0 else { return nil }
        let (scaled, overflow) = whole.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return nil }
        let (sum, overflow2) = scaled.addingReportingOverflow(fraction)
        return overflow2 ? nil : sum
    }

    /// `community`: the membership, the user's entries and comments (`CommunityJSON`'s shapes).
    static func readCommunity(_ doc: Node, into data: inout UserRestoreData) throws(UserRestoreError) {
        let community = try doc.child("community")
        let member = community.member("member")
        if member.value != .null {
            let name = try member.string("display_name")
            guard !name.isEmpty else { throw .invalid(path: member.path + ".display_name", reason: "is empty") }
            let joined = try member.string("joined_at")
            data.community.member = RestoredCommunity.Member(displayName: name, joinedAt: joined)
        }
        data.community.posts = try community.array("posts").map { p throws(UserRestoreError) in
            let typeText = try p.string("type")
            guard let type = CommunityPostType(rawValue: typeText) else {
                throw .invalid(path: p.path + ".type", reason: "\"\(typeText)\" is not one of \(CommunityPostType.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            var price: Money?
            if let code = try p.optionalString("currency") {
                let c: Currency
                do { c = try Currency(code: code) } catch { throw .invalid(path: p.path + ".currency", reason: "\(error)") }
                price = try money(p, "price", currency: c)
            }
            let rating = try p.optionalInteger("rating")
            if let rating, !(1...5).contains(rating) { throw .invalid(path: p.path + ".rating", reason: "\(rating) is not 1 to 5") }
            let createdAt = try p.string("created_at")
            let at: Timestamp
            do { at = try Timestamp(parsing: createdAt) } catch { throw .invalid(path: p.path + ".created_at", reason: "\(error)") }
            return RestoredCommunity.Post(
                id: try p.integer("id"), type: type, storeID: try p.optionalString("store_id"), productID: try p.optionalInteger("product_id"),
                rating: rating, text: try p.optionalString("text"), price: price, verified: try p.bool("verified"), createdAt: createdAt,
                createdMilliseconds: at.epochMilliseconds)
        }
        try unique(data.community.posts.map(\.id), "community.posts")
        data.community.comments = try community.array("comments").map { c throws(UserRestoreError) in
            let createdAt = try c.string("created_at")
            let at: Timestamp
            do { at = try Timestamp(parsing: createdAt) } catch { throw .invalid(path: c.path + ".created_at", reason: "\(error)") }
            let text = try c.string("text")
            guard !text.isEmpty else { throw .invalid(path: c.path + ".text", reason: "is empty") }
            return RestoredCommunity.Comment(
                id: try c.integer("id"), postID: try c.integer("post_id"), text: text, createdAt: createdAt, createdMilliseconds: at.epochMilliseconds)
        }
        try unique(data.community.comments.map(\.id), "community.comments")
        if data.community.member == nil, !data.community.posts.isEmpty || !data.community.comments.isEmpty {
            throw .invalid(path: member.path, reason: "is null, yet the user has entries or comments; a member posts")
        }
    }
}

/// A product as the export names it; `exportedID` from `price_record_times` or `product_marks`.
public struct RestoredProduct: Sendable, Hashable {
    public let exportedID: Int64?
    public let name: String
    public let brand: String?
    public let barcode: Barcode?
    public let category: String
    /// The first record's unit (a new product's default, as `prices import` gives it).
    public let defaultUnit: PriceUnit
    /// Named by a mark only (no record of it): looked up in the catalogue, fields unknown.
    public var onlyMarked = false

    struct Key: Hashable {
        let name: String, brand: String?, barcode: String?, category: String
    }
    var key: Key { Key(name: name, brand: brand, barcode: barcode?.digits, category: category) }

    /// The product to add when the catalogue has none of it.
    public var product: Product { Product(name: name, brand: brand, category: category, barcode: barcode, defaultUnit: defaultUnit) }
}

/// A price record as exported: its product (an index into `UserRestoreData.products`), the
/// record, the receipt it came from and its times.
public struct RestoredPriceRecord: Sendable, Hashable {
    public struct Entry: Sendable, Hashable {
        public let storeID: String
        public let price: Money
        public let quantity: Double
        public let unit: PriceUnit
        public let recordedAt: Timestamp
        public let source: PriceSource
        /// What the record's content hash is computed from (`prices import`'s entry).
        let hashOf: PriceEntry

        /// `PriceEntry.contentHash` for `user`: the key that makes a re-import a no-op.
        public func contentHash(userID: String) -> Int64 { hashOf.contentHash(userID: userID) }
    }
    public let product: Int
    public let entry: Entry
    public let receiptID: String?
    public let createdAt, updatedAt: String?
}

public struct RestoredProductTag: Sendable, Hashable {
    public let name: String
    public let color: String?
}

/// A user's flags and tags of a product (an index into `UserRestoreData.products`).
public struct RestoredProductMark: Sendable, Hashable {
    public let product: Int
    public let favourite, onSale: Bool
    public let tags: [String]
}

/// A shopping list as exported. `checks` is the largest purchase number its checked items name.
public struct RestoredShoppingList: Sendable, Hashable {
    public let number: Int64
    public let name: String
    public let budget: Money
    public let items: [ShoppingListItem]
    public let completedExpenseID: String?
    public let checks: Int64
}

/// The community layer as exported.
public struct RestoredCommunity: Sendable, Hashable {
    public struct Member: Sendable, Hashable {
        public let displayName, joinedAt: String
    }
    public struct Post: Sendable, Hashable {
        public let id: Int64
        public let type: CommunityPostType
        public let storeID: String?
        public let productID: Int64?
        public let rating: Int64?
        public let text: String?
        public let price: Money?
        public let verified: Bool
        public let createdAt: String
        public let createdMilliseconds: Int64
    }
    public struct Comment: Sendable, Hashable {
        public let id, postID: Int64
        public let text, createdAt: String
        public let createdMilliseconds: Int64
    }
    public var member: Member?
    public var posts: [Post] = []
    public var comments: [Comment] = []
}
