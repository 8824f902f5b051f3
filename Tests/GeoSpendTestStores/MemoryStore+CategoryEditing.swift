import GeoSpend

/// A user's categories, with the file's rules (Sources/GeoSpendSpatiaLite/CategoryEdits.swift).
extension MemoryStore: CategoryEditing {
    public func addCategory(_ category: Category, userID: String, icon: String?, color: String?) async throws -> CategoryDetail {
        try await edit { state in
            state.ensureUser(userID)
            if state.category(category.name, kind: category.kind, user: userID) != nil {
                throw EditError.categoryExists(name: category.name, kind: category.kind)
            }
            return state.addCategory(category, user: userID, icon: icon, color: color).detail(expenses: 0)
        }
    }

    public func editCategory(name: String, kind: Category.Kind?, userID: String, change: CategoryChange) async throws -> CategoryDetail {
        try await edit { state in
            var c = try state.findCategory(name, kind: kind, user: userID)
            let members = state.expenses(in: c)
            if let new = change.name {
                if let other = state.category(new, kind: c.kind, user: userID), other.id != c.id {
                    throw EditError.categoryExists(name: new, kind: c.kind)
                }
                let old = c.name
                state.categoryIDs[c.key] = nil
                c.name = new
                state.categoryIDs[c.key] = c.id
                // The content hash covers the category's name: a re-import after the rename is a no-op.
                for at in members {
                    state.expenses[at].expense.category = new
                    state.expenses[at].contentHash = state.expenses[at].expense.contentHash
                }
                if c.kind == .expense { state.renameBudgetCategory(user: userID, from: old, to: new) }
            }
            if let icon = change.icon { c.icon = icon.isEmpty ? nil : icon }
            if let color = change.color { c.color = color.isEmpty ? nil : color }
            if let active = change.isActive { c.isActive = active }
            c.updatedAt = MemoryClock.now()
            state.categories[c.id] = c
            return c.detail(expenses: members.count)
        }
    }

    public func deleteCategory(name: String, kind: Category.Kind?, userID: String) async throws -> Int {
        try await edit { state in
            let c = try state.findCategory(name, kind: kind, user: userID)
            if c.isDefault { throw EditError.defaultCategory(name: c.name, kind: c.kind) }
            let members = state.expenses(in: c)
            let now = MemoryClock.now()
            for at in members {
                state.expenses[at].expense.category = nil
                state.expenses[at].contentHash = state.expenses[at].expense.contentHash
                state.expenses[at].updatedAt = now
            }
            state.categories[c.id] = nil
            state.categoryIDs[c.key] = nil
            if c.kind == .expense { state.deactivateBudgets(user: userID, category: c.name) }
            return members.count
        }
    }
}

extension MemoryState {
    /// The category named, of `kind` or, without one, of the only kind that has the name.
    func findCategory(_ name: String, kind: Category.Kind?, user: String) throws -> MemoryCategory {
        let found = (kind.map { [$0] } ?? Category.Kind.allCases).compactMap { category(name, kind: $0, user: user) }
        if found.count > 1 { throw EditError.ambiguousCategory(name: name) }
        guard let one = found.first else {
            throw EditError.unknownCategory(name: name, kind: kind ?? .expense, among: categoryNames(user: user))
        }
        return one
    }
}

extension MemoryReader {
    /// By kind, then name (bytes), as the file lists them.
    func categoryDetails(userID: String, includeInactive: Bool) throws -> [CategoryDetail] {
        state.categories.values.filter { $0.user == ExactText(userID) && (includeInactive || $0.isActive) }
            .sorted { a, b in a.kind != b.kind ? byBytes(a.kind.rawValue, b.kind.rawValue) : byBytes(a.name, b.name) }
            .map { $0.detail(expenses: state.expenses(in: $0).count) }
    }
}
