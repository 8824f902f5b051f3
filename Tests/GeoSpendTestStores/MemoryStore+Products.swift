import GeoSpend

/// One user's marks of the shared catalogue (the file's `product_tags`, `product_tag_links`
/// and `product_marks`): tags in the order made, each with the products carrying it, and the
/// flags by product.
struct MemoryProductMarks {
    struct Tag {
        var name: String
        var color: String?
        var products: Set<Int64> = []
        /// Unique per user without ASCII case.
        var fold: String { Identity.asciiLowercased(name) }
    }
    var tags: [Tag] = []
    var flags: [Int64: (favourite: Bool, onSale: Bool)] = [:]

    var isEmpty: Bool { tags.isEmpty && flags.isEmpty }
    var rows: Int { tags.count + tags.map(\.products.count).reduce(0, +) + flags.count }

    /// A product leaving the catalogue takes its links and flags along (the file's cascade).
    mutating func forget(_ product: Int64) {
        for i in tags.indices { tags[i].products.remove(product) }
        flags[product] = nil
    }
}

/// Tags, flags and product edits with the file's rules (Sources/GeoSpendSpatiaLite/ProductStorage.swift):
/// "the user's product" is one they have a price record of; an edit of a product another user's
/// records name is refused; merge and delete move or remove only the user's records.
extension MemoryStore: ProductStore {
    public func tagProduct(userID: String, productID: Int64, tag: String, color: String?) async throws -> ProductTag? {
        try await edit { state in
            guard state.hasRecord(userID, productID) else { return nil }
            var marks = state.productMarks[ExactText(userID)] ?? MemoryProductMarks()
            let fold = Identity.asciiLowercased(tag)
            let at = marks.tags.firstIndex { $0.fold == fold } ?? {
                marks.tags.append(MemoryProductMarks.Tag(name: tag))
                return marks.tags.count - 1
            }()
            if let color { marks.tags[at].color = color }
            marks.tags[at].products.insert(productID)
            state.productMarks[ExactText(userID)] = marks
            let t = marks.tags[at]
            return ProductTag(name: t.name, color: t.color, products: t.products.count)
        }
    }

    public func untagProduct(userID: String, productID: Int64, tag: String) async throws -> Bool {
        try await edit { state in
            let user = ExactText(userID)
            let fold = Identity.asciiLowercased(tag)
            guard let at = state.productMarks[user]?.tags.firstIndex(where: { $0.fold == fold }),
                state.productMarks[user]!.tags[at].products.remove(productID) != nil
            else { return false }
            if state.productMarks[user]!.tags[at].products.isEmpty { state.productMarks[user]!.tags.remove(at: at) }
            if state.productMarks[user]!.isEmpty { state.productMarks[user] = nil }
            return true
        }
    }

    public func markProduct(userID: String, productID: Int64, favourite: Bool?, onSale: Bool?) async throws -> Bool {
        try await edit { state in
            guard state.hasRecord(userID, productID) else { return false }
            let old = state.productMarks[ExactText(userID)]?.flags[productID] ?? (false, false)
            state.productMarks[ExactText(userID), default: MemoryProductMarks()].flags[productID] = (favourite ?? old.favourite, onSale ?? old.onSale)
            return true
        }
    }

    public func editProduct(userID: String, id: Int64, _ f: ProductFields) async throws -> ProductChange {
        try await edit { state in
            guard state.hasRecord(userID, id) else { return .noSuchProduct(id) }
            let others = Set(state.priceRecords.filter { $0.productID == id && $0.user != ExactText(userID) }.map(\.user)).count
            if others > 0 { return .shared(id, users: others) }
            if let code = f.barcode, let other = state.products.values.filter({ $0.barcode == code && $0.id != id }).map(\.id).min() {
                return .barcodeTaken(by: other)
            }
            var p = state.products[id]!
            (p.name, p.normalizedName, p.brand, p.category, p.barcode, p.defaultUnit) =
                (f.name, ProductName.normalized(f.name), f.brand, f.category, f.barcode, f.defaultUnit)
            p.updatedAt = MemoryClock.now()
            state.products[id] = p
            return .done(p, records: 0)
        }
    }

    public func mergeProducts(userID: String, from: Int64, into: Int64) async throws -> ProductChange {
        try await edit { state in
            guard state.hasRecord(userID, from) else { return .noSuchProduct(from) }
            guard state.hasRecord(userID, into) else { return .noSuchProduct(into) }
            var moved = 0
            for i in state.priceRecords.indices where state.priceRecords[i].user == ExactText(userID) && state.priceRecords[i].productID == from {
                state.priceRecords[i].productID = into
                moved += 1
            }
            state.moveMarks(userID, from: from, into: into)
            state.dropUnnamedProducts([from])
            return .done(state.products[into], records: moved)
        }
    }

    public func deleteProduct(userID: String, id: Int64) async throws -> ProductChange {
        try await edit { state in
            guard state.hasRecord(userID, id) else { return .noSuchProduct(id) }
            let before = state.priceRecords.count
            state.priceRecords.removeAll { $0.user == ExactText(userID) && $0.productID == id }
            let gone = before - state.priceRecords.count
            state.moveMarks(userID, from: id, into: nil)
            state.dropUnnamedProducts([id])
            return .done(state.products[id], records: gone)
        }
    }
}

extension MemoryState {
    func hasRecord(_ userID: String, _ productID: Int64) -> Bool {
        priceRecords.contains { $0.user == ExactText(userID) && $0.productID == productID }
    }

    /// The user's tags and flags of `from` go to `into` (flags or-ed), or away when `into` is
    /// nil (then tags left on no product go too).
    mutating func moveMarks(_ userID: String, from: Int64, into: Int64?) {
        let user = ExactText(userID)
        guard var marks = productMarks[user] else { return }
        for i in marks.tags.indices where marks.tags[i].products.remove(from) != nil {
            if let into { marks.tags[i].products.insert(into) }
        }
        if let flags = marks.flags.removeValue(forKey: from), let into {
            let old = marks.flags[into] ?? (false, false)
            marks.flags[into] = (old.favourite || flags.favourite, old.onSale || flags.onSale)
        }
        if into == nil { marks.tags.removeAll { $0.products.isEmpty } }
        productMarks[user] = marks.isEmpty ? nil : marks
    }

    /// `UserDataStore.restore`'s tags and marks (a flag row only where a flag is set, or
    /// nothing else names the product), products followed to where they were restored.
    mutating func restoreProductMarks(_ data: UserRestoreData, productIDs: [Int64], user: String) {
        var marks = MemoryProductMarks()
        marks.tags = data.productTags.map { MemoryProductMarks.Tag(name: $0.name, color: $0.color) }
        for m in data.productMarks {
            let product = productIDs[m.product]
            if m.favourite || m.onSale || m.tags.isEmpty { marks.flags[product] = (m.favourite, m.onSale) }
            for tag in m.tags {
                if let at = marks.tags.firstIndex(where: { $0.name == tag }) { marks.tags[at].products.insert(product) }
            }
        }
        productMarks[ExactText(user)] = marks.isEmpty ? nil : marks
    }
}

extension MemoryReader {
    /// Only products the user marked or tagged; tags by name (bytes).
    func productMarks(userID: String) throws -> [Int64: ProductMarks] {
        guard let marks = state.productMarks[ExactText(userID)] else { return [:] }
        var found: [Int64: ProductMarks] = [:]
        for (product, flags) in marks.flags { found[product] = ProductMarks(favourite: flags.favourite, onSale: flags.onSale) }
        for tag in marks.tags.sorted(by: { byBytes($0.name, $1.name) }) {
            for product in tag.products { found[product, default: ProductMarks()].tags.append(tag.name) }
        }
        return found
    }

    /// By name (bytes).
    func productTags(userID: String) throws -> [ProductTag] {
        (state.productMarks[ExactText(userID)]?.tags ?? []).sorted { byBytes($0.name, $1.name) }
            .map { ProductTag(name: $0.name, color: $0.color, products: $0.products.count) }
    }
}
