/// A user's own view of the shared product catalogue (issue 38): tags with a colour, favourites
/// and an on-sale flag, and the edits a user may make — `products tag|untag|favourite|
/// unfavourite|sale|edit|merge|delete`. Products are shared (one row per product, no user
/// column), so everything here is keyed by user: another user's tags and marks are never read,
/// and an edit never changes what another user's records say (docs/DOMAIN.md § Products and
/// corrections). A user's products are those they have a price record of; any other id is
/// "no such product". Every call is one transaction.
public protocol ProductStore: Sendable {
    /// The user's marks, by product id: only products the user marked or tagged.
    func productMarks(userID: String) async throws -> [Int64: ProductMarks]

    /// The user's tags, by name (byte order).
    func productTags(userID: String) async throws -> [ProductTag]

    /// Tags the user's product `productID` with `tag` (compared without ASCII case), creating
    /// the tag when new; a given `color` (already checked, `#RRGGBB`) becomes the tag's.
    /// - Returns: the tag, or nil when the user has no price record of the product.
    func tagProduct(userID: String, productID: Int64, tag: String, color: String?) async throws -> ProductTag?

    /// Takes `tag` off the product; a tag left on no product is deleted.
    /// - Returns: false when the product did not carry it (or is not the user's).
    func untagProduct(userID: String, productID: Int64, tag: String) async throws -> Bool

    /// Sets what is given of the favourite and on-sale flags.
    /// - Returns: false when the user has no price record of the product.
    func markProduct(userID: String, productID: Int64, favourite: Bool?, onSale: Bool?) async throws -> Bool

    /// Replaces a product's name (and folded name), brand, category, barcode and unit, when
    /// only `userID`'s records name it.
    func editProduct(userID: String, id: Int64, _ fields: ProductFields) async throws -> ProductChange

    /// Moves the user's records, tags and marks of `from` to `into` (both the user's); `from`
    /// leaves the catalogue when no record names it any more, else it stays, other users'.
    func mergeProducts(userID: String, from: Int64, into: Int64) async throws -> ProductChange

    /// Deletes the user's records, tags and marks of the product; it leaves the catalogue when
    /// no record names it any more.
    func deleteProduct(userID: String, id: Int64) async throws -> ProductChange
}

/// One user's flags and tags of one product.
public struct ProductMarks: Sendable, Hashable {
    public var favourite: Bool
    public var onSale: Bool
    /// Tag names, byte order.
    public var tags: [String]

    public init(favourite: Bool = false, onSale: Bool = false, tags: [String] = []) {
        self.favourite = favourite
        self.onSale = onSale
        self.tags = tags
    }
}

/// A user's tag: a name (1–100 characters, unique per user without ASCII case) and a colour.
public struct ProductTag: Sendable, Hashable {
    public var name: String
    /// `#RRGGBB`, or nil.
    public var color: String?
    /// How many of the user's products carry it.
    public var products: Int

    public init(name: String, color: String?, products: Int) {
        self.name = name
        self.color = color
        self.products = products
    }
}

/// What `products edit` sets: every field, the old product merged with what was given.
public struct ProductFields: Sendable, Hashable {
    public var name: String
    public var brand: String?
    public var category: String
    public var barcode: Barcode?
    public var defaultUnit: PriceUnit

    public init(name: String, brand: String?, category: String, barcode: Barcode?, defaultUnit: PriceUnit) {
        self.name = name
        self.brand = brand
        self.category = category
        self.barcode = barcode
        self.defaultUnit = defaultUnit
    }

    public init(of p: Product) {
        self.init(name: p.name, brand: p.brand, category: p.category, barcode: p.barcode, defaultUnit: p.defaultUnit)
    }
}

/// What an edit, merge or delete of a product did.
public enum ProductChange: Sendable, Hashable {
    /// Done: the product as it now is (nil when it left the catalogue), and how many of the
    /// user's records moved or went.
    case done(Product?, records: Int)
    /// The user has no price record of this product id.
    case noSuchProduct(Int64)
    /// Other users' records name it too (how many users): an edit would change their data.
    case shared(Int64, users: Int)
    /// Another product has this barcode.
    case barcodeTaken(by: Int64)
}

/// A user's marks and tags as a read scope hands them out (every `ExpenseReader` is one): the
/// product list reads them in the snapshot of its products. A store that keeps none finds none.
public protocol ProductMarkReader {
    /// `ProductStore.productMarks(userID:)`, in the scope's snapshot.
    func productMarks(userID: String) throws -> [Int64: ProductMarks]
    /// `ProductStore.productTags(userID:)`, in the scope's snapshot.
    func productTags(userID: String) throws -> [ProductTag]
}

/// A backend's mark and tag reads are its read scope's (written once, in its reader).
extension ProductStore where Self: ExpenseStore {
    public func productMarks(userID: String) async throws -> [Int64: ProductMarks] { try await read { try $0.productMarks(userID: userID) } }
    public func productTags(userID: String) async throws -> [ProductTag] { try await read { try $0.productTags(userID: userID) } }
}
