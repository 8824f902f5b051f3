import Foundation

/// `geospend products list|tag|untag|favourite|unfavourite|sale|edit|merge|delete` and their
/// HTTP routes (issue 38): a user's view of the shared catalogue, checked here once for the CLI
/// and the service. A product is named as `prices history` names it (an id, a barcode or a
/// name), looked up among the user's products only, so another user's products are "no such
/// product" and their names never come back as suggestions.
public enum ProductCatalogue {
    public typealias Store = PriceStore & ProductStore & ExpenseStore

    /// What `products list` narrows to; nil and false do not narrow.
    public struct Filter: Sendable, Hashable {
        public var tag: String?
        public var favourites = false
        public var onSale = false
        /// Compared without ASCII case, like categories.
        public var category: String?

        public init(tag: String? = nil, favourites: Bool = false, onSale: Bool = false, category: String? = nil) {
            self.tag = tag
            self.favourites = favourites
            self.onSale = onSale
            self.category = category
        }
    }

    /// The user's products (those they have a price record of) that pass `filter`, by name
    /// ascending: the folded name (`ProductName.normalized`, so case and accents do not split
    /// the order), then the name's bytes, then the id.
    public static func list(userID: String, _ filter: Filter = Filter(), store: some Store) async throws -> [(product: Product, marks: ProductMarks)] {
        let user = Identity.normalized(userID)
        // The products and the user's marks from one snapshot.
        let (products, marks) = try await store.read { r in (try ProductLookup.products(userID: user, in: r), try r.productMarks(userID: user)) }
        let tag = filter.tag.map(Identity.asciiLowercased)
        let category = filter.category.map(Identity.asciiLowercased)
        var listed: [(product: Product, marks: ProductMarks)] = []
        for p in products {
            let m = marks[p.id] ?? ProductMarks()
            if let tag, !m.tags.contains(where: { Identity.asciiLowercased($0) == tag }) { continue }
            if filter.favourites && !m.favourite { continue }
            if filter.onSale && !m.onSale { continue }
            if let category, Identity.asciiLowercased(p.category) != category { continue }
            listed.append((product: p, marks: m))
        }
        listed.sort { a, b in
            if a.product.normalizedName != b.product.normalizedName { return a.product.normalizedName < b.product.normalizedName }
            if a.product.name != b.product.name { return a.product.name < b.product.name }
            return a.product.id < b.product.id
        }
        return listed
    }

    /// One listed product: `ProductLookup.json`'s keys, then the user's flags and tags and the
    /// product's times.
    public static func json(_ p: Product, _ m: ProductMarks) -> JSONOutput {
        guard case .object(let members) = ProductLookup.json(p) else { return .null }
        return .object(members + [
            ("favourite", .bool(m.favourite)), ("on_sale", .bool(m.onSale)), ("tags", .array(m.tags.map { .string($0) })),
            ("created_at", .text(p.createdAt)), ("updated_at", .text(p.updatedAt)),
        ])
    }

    public static func json(_ t: ProductTag) -> JSONOutput {
        .object([("name", .string(t.name)), ("color", .text(t.color)), ("products", .integer(Int64(t.products)))])
    }

    /// The user's product `text` names. - Throws: `UsageError` naming it.
    public static func product(_ text: String, userID: String, store: some PriceStore & ExpenseStore) async throws -> Product {
        try ProductLookup.find(text, in: try await ProductLookup.products(userID: Identity.normalized(userID), in: store))
    }

    /// A tag name as given: trimmed, NFC, 1–100 characters, no control characters.
    public static func tagName(_ text: String) throws -> String {
        let name = Identity.normalized(text.trimmingCharacters(in: .whitespacesAndNewlines))
        guard !name.isEmpty, name.count <= 100, !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw UsageError("--tag: \"\(OutputEscaping.visible(text))\" is not a tag name: 1 to 100 characters, no control characters")
        }
        return name
    }

    public static func tag(_ text: String, product: String, color: String?, userID: String, store: some Store) async throws -> ProductTag {
        let user = Identity.normalized(userID)
        let name = try tagName(text)
        let colour = try CategoryFields.color(color)
        let p = try await Self.product(product, userID: user, store: store)
        guard let tag = try await store.tagProduct(userID: user, productID: p.id, tag: name, color: colour) else { throw noProduct(p.id, user: user) }
        return tag
    }

    public static func untag(_ text: String, product: String, userID: String, store: some Store) async throws {
        let user = Identity.normalized(userID)
        let name = try tagName(text)
        let p = try await Self.product(product, userID: user, store: store)
        guard try await store.untagProduct(userID: user, productID: p.id, tag: name) else {
            throw UsageError("product \(p.id) \"\(OutputEscaping.visible(p.name))\" has no tag \"\(OutputEscaping.visible(name))\" of user \"\(OutputEscaping.visible(user))\"")
        }
    }

    /// Sets the favourite and on-sale flags given. - Returns: the product.
    public static func mark(product: String, favourite: Bool?, onSale: Bool?, userID: String, store: some Store) async throws -> Product {
        let user = Identity.normalized(userID)
        let p = try await Self.product(product, userID: user, store: store)
        guard try await store.markProduct(userID: user, productID: p.id, favourite: favourite, onSale: onSale) else { throw noProduct(p.id, user: user) }
        return p
    }

    /// The keys `products edit` (and PATCH) take; "" unsets brand and barcode.
    public static let editKeys: Set<String> = ["name", "brand", "category", "barcode", "unit"]

    public static func edit(product: String, _ given: [String: String], userID: String, store: some Store) async throws -> Product {
        let user = Identity.normalized(userID)
        if let unknown = given.keys.filter({ !editKeys.contains($0) }).sorted().first {
            throw UsageError("\"\(OutputEscaping.visible(unknown))\" is not something a product edit changes; give \(editKeys.sorted().joined(separator: ", "))")
        }
        guard !given.isEmpty else { throw UsageError("nothing to change: give --name, --brand, --category, --barcode or --unit") }
        let p = try await Self.product(product, userID: user, store: store)
        var f = ProductFields(of: p)
        if let text = given["name"] {
            let name = Identity.normalized(text.trimmingCharacters(in: .whitespacesAndNewlines))
            guard !name.isEmpty, name.count <= 4096 else { throw UsageError("--name: a product's name is 1 to 4,096 characters") }
            f.name = name
        }
        if let text = given["brand"] {
            let brand = Identity.normalized(text.trimmingCharacters(in: .whitespacesAndNewlines))
            f.brand = brand.isEmpty ? nil : brand
        }
        if let text = given["category"] {
            let category = Identity.normalized(text.trimmingCharacters(in: .whitespacesAndNewlines))
            guard !category.isEmpty else { throw UsageError("--category cannot be unset: a product without one is in \"\(Product.defaultCategory)\"") }
            f.category = category
        }
        if let text = given["barcode"] {
            if text.isEmpty { f.barcode = nil } else {
                do { f.barcode = try Barcode(parsing: text) } catch { throw UsageError("--barcode: \(error)") }
            }
        }
        if let text = given["unit"] {
            do { f.defaultUnit = try PriceUnit(parsing: text) } catch { throw UsageError("--unit: \(error)") }
        }
        return try result(try await store.editProduct(userID: user, id: p.id, f), user: user) ?? p
    }

    /// Moves the user's records of `from` to `into`. - Returns: the product merged into and how many records moved.
    public static func merge(_ from: String, into: String, userID: String, store: some Store) async throws -> (Product, records: Int) {
        let user = Identity.normalized(userID)
        let source = try await Self.product(from, userID: user, store: store)
        let target = try await Self.product(into, userID: user, store: store)
        guard source.id != target.id else { throw UsageError("--into: product \(target.id) is the product merged; name another one") }
        let change = try await store.mergeProducts(userID: user, from: source.id, into: target.id)
        if case .done(_, let records) = change { return (target, records) }
        _ = try result(change, user: user)
        return (target, 0)
    }

    /// Deletes the user's records of the product. - Returns: how many went.
    public static func delete(_ product: String, userID: String, store: some Store) async throws -> (Product, records: Int) {
        let user = Identity.normalized(userID)
        let p = try await Self.product(product, userID: user, store: store)
        let change = try await store.deleteProduct(userID: user, id: p.id)
        if case .done(_, let records) = change { return (p, records) }
        _ = try result(change, user: user)
        return (p, 0)
    }

    static func result(_ change: ProductChange, user: String) throws -> Product? {
        switch change {
        case .done(let p, _): return p
        case .noSuchProduct(let id): throw noProduct(id, user: user)
        case .shared(let id, let users):
            throw UsageError(
                "product \(id) is also recorded by \(users) other user\(users == 1 ? "" : "s"): the catalogue is shared, so an edit would change "
                    + "their records too; `geospend products merge \(id) --into OTHER` moves your records to another product instead")
        case .barcodeTaken(let other):
            throw UsageError("--barcode: product \(other) has that barcode already (one code, one product); merge into it instead")
        }
    }

    public static func noProduct(_ id: Int64, user: String) -> UsageError {
        let u = OutputEscaping.visible(user)
        return UsageError("no product \(id) among the products of user \"\(u)\"; `geospend products list --user \(u)` lists them")
    }
}
