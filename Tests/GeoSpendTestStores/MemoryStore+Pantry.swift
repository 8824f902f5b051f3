import GeoSpend

/// Pantry items with the file's rules (Sources/GeoSpendSpatiaLite/PantryStorage.swift):
/// numbered per user and never reused, closed once; added by hand, by a list's check or by a
/// receipt (its purchase's expense id kept, so unchecking or deleting it takes them back).
extension MemoryStore: PantryStore {
    public func addPantryItem(userID: String, _ fields: PantryFields) async throws -> PantryItem? {
        let user = Identity.normalized(userID)
        return try await edit { state in
            guard state.users.contains(ExactText(user)) else { return nil }
            return state.addPantryItem(user: user, fields, source: .hand, purchase: nil)
        }
    }

    public func closePantryItem(userID: String, id: Int64, as status: PantryItem.Status) async throws -> PantryItem? {
        let user = ExactText(Identity.normalized(userID))
        return try await edit { state in
            guard let at = state.pantry[user]?.firstIndex(where: { $0.id == id }) else { return nil }
            if state.pantry[user]![at].status == .open {
                state.pantry[user]![at].status = status
                state.pantry[user]![at].closedAt = MemoryClock.now()
            }
            return state.pantry[user]![at]
        }
    }
}

extension MemoryState {
    /// Adds an open item (the user exists).
    @discardableResult
    mutating func addPantryItem(user: String, _ fields: PantryFields, source: PantryItem.Source, purchase: String?) -> PantryItem {
        let item = PantryItem(
            id: nextNumber(.pantryItem, user: user), userID: user, name: fields.name, quantity: fields.quantity, expires: fields.expires,
            status: .open, createdAt: MemoryClock.now(), closedAt: nil, source: source, purchaseID: purchase)
        pantry[ExactText(user), default: []].append(item)
        return item
    }

    /// The items a purchase added (`lists uncheck`, a receipt deleted).
    mutating func deletePantryItems(user: String, purchase: String, source: PantryItem.Source) {
        pantry[ExactText(user)]?.removeAll { $0.purchaseID == purchase && $0.source == source }
        if pantry[ExactText(user)]?.isEmpty == true { pantry[ExactText(user)] = nil }
    }

    /// `UserDataStore.restore`'s pantry: numbers and times as exported, the counter after them.
    mutating func restorePantry(_ items: [RestoredPantryItem], user: String) throws {
        for (n, i) in items.enumerated() {
            guard let status = PantryItem.Status(rawValue: i.status), let source = PantryItem.Source(rawValue: i.source) else {
                throw UserRestoreError.invalid(path: "pantry[\(n)]", reason: "unknown status \"\(i.status)\" or source \"\(i.source)\"")
            }
            let expires = try i.expires.map { day in
                do { return try LocalDay(parsing: day) } catch { throw UserRestoreError.invalid(path: "pantry[\(n)].expires", reason: "\(error)") }
            }
            pantry[ExactText(user), default: []].append(PantryItem(
                id: i.number, userID: user, name: i.name, quantity: i.quantity, expires: expires, status: status, createdAt: i.createdAt,
                closedAt: i.closedAt, source: source, purchaseID: i.purchase))
        }
        pantry[ExactText(user)]?.sort { $0.id < $1.id }
        if let last = items.map(\.number).max() { lastNumbers[NumberKey(counter: .pantryItem, user: ExactText(user))] = last }
    }
}

extension MemoryReader {
    /// By id.
    func pantryItems(userID: String) throws -> [PantryItem] { state.pantry[ExactText(Identity.normalized(userID))] ?? [] }

    /// By user (bytes), then id.
    func openPantryItems(expiringOnOrBefore day: LocalDay) throws -> [PantryItem] {
        state.pantry.keys.sorted { byBytes($0.text, $1.text) }.flatMap { user in
            state.pantry[user]!.filter { item in item.status == .open && item.expires.map { $0 <= day } == true }
        }
    }
}
