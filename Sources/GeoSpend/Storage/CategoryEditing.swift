/// What a store offers for a user's categories (`geospend categories add|edit|deactivate|delete`).
/// The default set (`Category.defaults`) is created once per user, when the user is; those
/// can be deactivated, not deleted. A deactivated category is hidden from lists and refused
/// for new expenses, but stays on the expenses that have it.
public protocol CategoryEditing: Sendable {
    /// The user's categories, by kind then name, with their expense counts; inactive ones only
    /// with `includeInactive`.
    func categoryDetails(userID: String, includeInactive: Bool) async throws -> [CategoryDetail]

    /// - Throws: `EditError.categoryExists`.
    func addCategory(_ category: Category, userID: String, icon: String?, color: String?) async throws -> CategoryDetail

    /// Changes what `change` gives of the user's category `name` of `kind` (nil kind: the only
    /// category of that name). A rename keeps the category on its expenses.
    /// - Throws: `EditError` (unknown, ambiguous, or the new name taken).
    func editCategory(name: String, kind: Category.Kind?, userID: String, change: CategoryChange) async throws -> CategoryDetail

    /// Deletes the category; its expenses keep existing with no category.
    /// - Returns: how many expenses lost it.
    /// - Throws: `EditError` (unknown, ambiguous, or a default category).
    func deleteCategory(name: String, kind: Category.Kind?, userID: String) async throws -> Int
}

/// The category reads of a read scope (`ExpenseStore.read`).
public protocol CategoryReader {
    /// `CategoryEditing.categoryDetails(userID:includeInactive:)`, in the scope's snapshot.
    func categoryDetails(userID: String, includeInactive: Bool) throws -> [CategoryDetail]
}

/// A backend's category list is its read scope's (written once, in its reader).
extension CategoryEditing where Self: ExpenseStore {
    public func categoryDetails(userID: String, includeInactive: Bool) async throws -> [CategoryDetail] {
        try await read { try $0.categoryDetails(userID: userID, includeInactive: includeInactive) }
    }
}

/// A category as stored: `icon` and `color` are free to the app that shows them (MONO: an icon
/// name and a `#RRGGBB` colour).
public struct CategoryDetail: Sendable, Hashable {
    public let category: Category
    public let icon: String?
    public let color: String?
    public let isDefault: Bool
    public let isActive: Bool
    public let expenses: Int
    /// When the store added and last changed it (UTC, the store's clock); nil for a category
    /// made before migration v27 (SpatiaLite) / v18 (PostgreSQL).
    public var createdAt: String?
    public var updatedAt: String?

    public init(
        category: Category, icon: String?, color: String?, isDefault: Bool, isActive: Bool, expenses: Int, createdAt: String? = nil,
        updatedAt: String? = nil
    ) {
        self.category = category
        self.icon = icon
        self.color = color
        self.isDefault = isDefault
        self.isActive = isActive
        self.expenses = expenses
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// What `editCategory` changes; nil fields stay, an empty `icon`/`color` unsets it.
public struct CategoryChange: Sendable, Hashable {
    public var name: String?
    public var icon: String?
    public var color: String?
    public var isActive: Bool?

    public init(name: String? = nil, icon: String? = nil, color: String? = nil, isActive: Bool? = nil) {
        self.name = name
        self.icon = icon
        self.color = color
        self.isActive = isActive
    }
}
