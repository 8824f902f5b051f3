/// A user's category and how many of their expenses carry it (`geospend categories`).
public struct CategoryCount: Sendable, Hashable {
    public let name: String
    public let kind: Category.Kind
    public let expenses: Int

    public init(name: String, kind: Category.Kind, expenses: Int) {
        (self.name, self.kind, self.expenses) = (name, kind, expenses)
    }
}

/// A store kind (`amenity:cafe`, nil for stores without one) and how many stores have it
/// (`geospend kinds`).
public struct StoreKindCount: Sendable, Hashable {
    public let kind: String?
    public let stores: Int

    public init(kind: String?, stores: Int) {
        (self.kind, self.stores) = (kind, stores)
    }
}
