import Foundation
import GeoSpend

/// A user's category, as the file's `categories` row keeps it.
struct MemoryCategory {
    let id: Int64
    let user: ExactText
    let kind: Category.Kind
    var name: String
    var icon: String?
    var color: String?
    let isDefault: Bool
    var isActive: Bool
    var createdAt: String
    var updatedAt: String

    /// A user's category of a kind and a name with its ASCII letters folded (SQLite's `NOCASE`).
    struct Key: Hashable {
        let user: ExactText
        let kind: Category.Kind
        let folded: ExactText
        init(user: String, kind: Category.Kind, name: String) {
            self.user = ExactText(user)
            self.kind = kind
            self.folded = ExactText(Identity.asciiLowercased(name))
        }
    }

    var key: Key { Key(user: user.text, kind: kind, name: name) }

    func detail(expenses: Int) -> CategoryDetail {
        CategoryDetail(
            category: Category(name: name, kind: kind), icon: icon, color: color, isDefault: isDefault, isActive: isActive,
            expenses: expenses, createdAt: createdAt, updatedAt: updatedAt)
    }
}

/// The store's clock, in the forms the file's `strftime` writes.
enum MemoryClock {
    /// `2025-03-01T09:00:00.000Z`, as `created_at`/`updated_at` of expenses and categories.
    static func now() -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: Date())
    }

    /// `2025-03-01T09:00:00Z`, as a budget's `created_at`.
    static func nowInSeconds() -> String { ISO8601DateFormatter().string(from: Date()) }
}

extension MemoryState {
    /// Creates the user with the default categories when new, as an import does.
    mutating func ensureUser(_ user: String) {
        guard users.insert(ExactText(user)).inserted else { return }
        userCreated[ExactText(user)] = MemoryClock.nowInSeconds()
        for c in Category.defaults {
            let looks = Category.defaultLooks[c]
            addCategory(c, user: user, icon: looks?.icon, color: looks?.color, isDefault: true)
        }
    }

    /// The file's foreign key to `users`: records of a user nobody imported or added are refused.
    func requireUser(_ user: String) throws {
        guard users.contains(ExactText(user)) else {
            throw UsageError("no user \"\(OutputEscaping.visible(user))\"; `geospend users list` shows the users")
        }
    }

    @discardableResult
    mutating func addCategory(_ c: Category, user: String, icon: String?, color: String?, isDefault: Bool = false) -> MemoryCategory {
        lastCategoryID += 1
        let now = MemoryClock.now()
        let row = MemoryCategory(
            id: lastCategoryID, user: ExactText(user), kind: c.kind, name: c.name, icon: icon, color: color, isDefault: isDefault,
            isActive: true, createdAt: now, updatedAt: now)
        categories[row.id] = row
        categoryIDs[row.key] = row.id
        return row
    }

    /// The user's category of that name (NOCASE) and kind, or nil.
    func category(_ name: String, kind: Category.Kind, user: String) -> MemoryCategory? {
        categoryIDs[MemoryCategory.Key(user: user, kind: kind, name: name)].flatMap { categories[$0] }
    }

    /// The user's category of that name and kind, created when new (an import's rule).
    mutating func category(named name: String, kind: Category.Kind, user: String) -> MemoryCategory {
        category(name, kind: kind, user: user) ?? addCategory(Category(name: name, kind: kind), user: user, icon: nil, color: nil)
    }

    /// The positions in `expenses` of the rows whose category is `c`.
    func expenses(in c: MemoryCategory) -> [Int] {
        expenses.indices.filter { at in
            let e = expenses[at].expense
            guard let name = e.category, ExactText(e.userID) == c.user, Category.kind(for: e.kind) == c.kind else { return false }
            return ExactText(Identity.asciiLowercased(name)) == c.key.folded
        }
    }

    /// The user's categories' names, every kind's or one kind's active ones, in byte order.
    func categoryNames(user: String, kind: Category.Kind? = nil, activeOnly: Bool = false) -> [String] {
        categories.values.filter { $0.user == ExactText(user) && (kind == nil || $0.kind == kind) && (!activeOnly || $0.isActive) }
            .map(\.name).sorted(by: byBytes)
    }

    /// A category named for a new expense: the state `EditError.checkCategory` decides on.
    func checkCategory(_ name: String, kind: Category.Kind, user: String) throws {
        try EditError.checkCategory(name, kind: kind, found: category(name, kind: kind, user: user).map { ($0.name, $0.isActive) }) {
            users.contains(ExactText(user)) ? categoryNames(user: user, kind: kind, activeOnly: true) : nil
        }
    }
}
