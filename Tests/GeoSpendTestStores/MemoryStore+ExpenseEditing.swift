import Foundation
import GeoSpend

/// One expense's life after import, with the file's rules, errors and orders
/// (Sources/GeoSpendSpatiaLite/ExpenseLife.swift). Every call is scoped to one user: another
/// user's expense is never found.
extension MemoryStore: ExpenseEditing {
    public func addExpense(_ expense: Expense, remindAt: Timestamp?) async throws -> StoredExpense {
        try await edit { state in
            if state.expenseIndex[MemoryState.ExpenseKey(expense.userID, expense.id)] != nil {
                throw EditError.invalid(field: "id", reason: "\(expense.id) is taken")
            }
            if let name = expense.category { try state.checkCategory(name, kind: Category.kind(for: expense.kind), user: expense.userID) }
            // The import's own writer: the user and their defaults created on first sight, the
            // same checks and row.
            let writer = MemoryWriter(state: state)
            let outcome = try writer.insert([HashedRow(expense, contentHash: expense.contentHash)], policy: InsertPolicy())[0]
            if case .rejected(let rejection) = outcome {
                throw rejection.column == "store_id"
                    ? EditError.unknownStore(expense.storeID ?? "") : EditError.invalid(field: rejection.column, reason: rejection.reason)
            }
            // Its budget events commit with it.
            try writer.state.raiseBudgetEvents(writer.touched)
            state = writer.state
            let at = state.expenseIndex[MemoryState.ExpenseKey(expense.userID, expense.id)]!
            let now = MemoryClock.now()
            state.expenses[at].createdAt = now
            state.expenses[at].updatedAt = now
            state.expenses[at].remindAt = remindAt
            // A position given here is given by hand.
            state.expenses[at].positionSource = expense.location == nil ? nil : .manual
            return state.expenses[at].stored
        }
    }

    public func updateExpense(_ expense: Expense, remindAt: Timestamp?) async throws -> StoredExpense? {
        try await edit { state in
            guard let at = state.expenseIndex[MemoryState.ExpenseKey(expense.userID, expense.id)] else { return nil }
            let old = state.expenses[at].expense
            var new = expense
            if let name = expense.category {
                let kind = Category.kind(for: expense.kind)
                if ExpenseUpdateRules.checksCategory(old: old, new: expense) { try state.checkCategory(name, kind: kind, user: expense.userID) }
                guard let found = state.category(name, kind: kind, user: expense.userID) else {
                    throw EditError.unknownCategory(name: name, kind: kind, suggestion: nil)
                }
                new.category = found.name
            }
            if let storeID = expense.storeID, state.stores[ExactText(storeID)] == nil { throw EditError.unknownStore(storeID) }
            let code = expense.amount.currency.code
            let others = state.currencyTotals[code, default: 0].subtractingReportingOverflow(old.amount.currency == expense.amount.currency ? old.amount.minorUnits : 0)
            try ExpenseUpdateRules.checkTotal(others: others.overflow ? nil : others.partialValue, expense)
            state.currencyTotals[old.amount.currency.code, default: 0] -= old.amount.minorUnits
            state.currencyTotals[code, default: 0] += expense.amount.minorUnits  // checked just above
            state.expenses[at].expense = new
            state.expenses[at].contentHash = expense.contentHash
            state.expenses[at].remindAt = remindAt
            state.expenses[at].updatedAt = MemoryClock.now()
            if ExpenseUpdateRules.movesPosition(old: old, new: expense) {
                state.expenses[at].positionSource = ExpenseUpdateRules.positionSource(expense)
                state.expenses[at].positionConfidence = nil
                state.expenses[at].storeInferred = false
                state.recomputeBox()
            }
            // The budget events of the edit: its old day and its new one.
            var touched = TouchedDays()
            touched.add(old)
            touched.add(new)
            try state.raiseBudgetEvents(touched)
            return state.expenses[at].stored
        }
    }

    /// Gone from the state: nothing of it remains to note.
    public func deleteExpense(id: String, userID: String, rewrite: DeletionRewrite) async throws -> [String]? {
        try await edit { state in
            guard state.expenseIndex[MemoryState.ExpenseKey(userID, id)] != nil else { return nil }
            state.deleteExpenseRow(id: id, userID: userID)
            // A receipt's expense goes with its receipt and price records.
            state.deleteReceiptRows(expenseID: id, userID: userID)
            return []
        }
    }

    public func rewriteAfterDeletions() async throws -> [String] { [] }

    public func rewriteOwed() async throws -> Bool { false }
}

/// The expense reads `ExpenseEditing` declares, in a read scope's snapshot.
extension MemoryReader {
    func expense(id: String, userID: String) throws -> StoredExpense? {
        state.expenseIndex[MemoryState.ExpenseKey(userID, id)].map { state.expenses[$0].stored }
    }

    /// Newest first; one instant by id, then user, descending (bytes), as the backends' ORDER BY.
    func expensePage(_ filter: ExpenseFilter, after cursor: ExpenseCursor?, limit: Int) throws -> ExpensePage {
        let rows = matchingRows(filter).map(\.stored).filter { s in
            guard let cursor else { return true }
            return Self.newestFirst(cursor, Self.position(s))
        }
        let sorted = rows.sorted { Self.newestFirst(Self.position($0), Self.position($1)) }
        let page = Array(sorted.prefix(max(limit, 0)))
        let next = sorted.count > limit ? page.last.map { Self.position($0) } : nil
        return ExpensePage(expenses: page, next: next)
    }

    /// The user's expenses whose title, merchant, notes or category contain `text`, ASCII
    /// letters folded (SQLite's LIKE), newest first.
    func searchExpenses(userID: String, text: String, limit: Int) throws -> [StoredExpense] {
        let needle = Array(Identity.asciiLowercased(text).utf8)
        let found = state.expenses.filter { row in
            let e = row.expense
            guard ExactText(e.userID) == ExactText(userID) else { return false }
            return [e.title, e.merchant, e.notes, e.category].contains { field in
                field.map { Self.contains(Array(Identity.asciiLowercased($0).utf8), needle) } ?? false
            }
        }
        return Array(found.map(\.stored).sorted { a, b in
            let (x, y) = (a.expense, b.expense)
            if x.occurredAt.epochMilliseconds != y.occurredAt.epochMilliseconds { return x.occurredAt.epochMilliseconds > y.occurredAt.epochMilliseconds }
            return byBytes(y.id, x.id)
        }.prefix(max(limit, 0)))
    }

    /// Earliest reminder first, then by id.
    func dueReminders(userID: String, asOf: Timestamp) throws -> [StoredExpense] {
        state.expenses.filter { ExactText($0.expense.userID) == ExactText(userID) && ($0.remindAt?.epochMilliseconds ?? .max) <= asOf.epochMilliseconds }
            .sorted { a, b in
                a.remindAt!.epochMilliseconds != b.remindAt!.epochMilliseconds
                    ? a.remindAt!.epochMilliseconds < b.remindAt!.epochMilliseconds : byBytes(a.expense.id, b.expense.id)
            }
            .map(\.stored)
    }

    private static func position(_ s: StoredExpense) -> ExpenseCursor {
        ExpenseCursor(occurredMilliseconds: s.expense.occurredAt.epochMilliseconds, id: s.expense.id, userID: s.expense.userID)
    }

    /// Whether `a` comes before `b` newest first: (instant, id, user) descending.
    private static func newestFirst(_ a: ExpenseCursor, _ b: ExpenseCursor) -> Bool {
        if a.occurredMilliseconds != b.occurredMilliseconds { return a.occurredMilliseconds > b.occurredMilliseconds }
        if ExactText(a.id) != ExactText(b.id) { return byBytes(b.id, a.id) }
        return byBytes(b.userID, a.userID)
    }

    /// Whether `needle` occurs in `haystack` (bytes; an empty needle occurs everywhere, as `%%`).
    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { start in haystack[start..<start + needle.count].elementsEqual(needle) }
    }
}
