import GeoSpend

/// Receipts with the file's rules (Sources/GeoSpendSpatiaLite/ReceiptStorage.swift): the
/// receipt, its expense (through the import's writer, budget events included) and its price
/// records in one edit, all or nothing; a receipt's store as its user sees it; deleting the
/// receipt or its expense takes its records (and the pantry items its purchase added) along.
extension MemoryStore: ReceiptStore {
    public func saveReceipt(_ expense: Expense, prices: [PriceEntry]) async throws -> [PriceSaveOutcome] {
        try await edit { state in try state.insertPurchase(expense, prices: prices) }
    }

    public func addReceipt(_ receipt: Receipt, records: ReceiptRecords?) async throws -> (Receipt, [PriceSaveOutcome]) {
        try await edit { state in try state.writeReceipt(receipt, records: records, replacing: false) }
    }

    public func replaceReceipt(_ receipt: Receipt, records: ReceiptRecords?) async throws -> (Receipt, [PriceSaveOutcome]) {
        try await edit { state in try state.writeReceipt(receipt, records: records, replacing: true) }
    }

    /// Gone from the state, photo and text with it: nothing remains to note.
    public func deleteReceipt(id: String, userID: String, rewrite: DeletionRewrite) async throws -> [String]? {
        try await edit { state in
            guard let at = state.receipts.firstIndex(where: { $0.id == id && ExactText($0.userID) == ExactText(userID) }) else { return nil }
            let receipt = state.receipts.remove(at: at)
            let products = Set(state.priceRecords.filter { $0.user == ExactText(userID) && $0.receiptID == id }.map(\.productID))
            state.deleteReceiptRecords(id: id, userID: userID, expenseID: receipt.expenseID)
            if let purchase = receipt.expenseID { state.deletePantryItems(user: userID, purchase: purchase, source: .receipt) }
            // A product the receipt's lines made goes once no record names it.
            state.dropUnnamedProducts(products)
            return []
        }
    }
}

extension MemoryState {
    /// A purchase's expense (through the import's writer: its checks and budget events), then
    /// its price records, in the edit's copy (the file's `insertReceipt`; also a list's).
    mutating func insertPurchase(_ expense: Expense, prices: [PriceEntry]) throws -> [PriceSaveOutcome] {
        ensureUser(expense.userID)
        if expenseIndex[ExpenseKey(expense.userID, expense.id)] != nil {
            throw EditError.invalid(field: "id", reason: "\(expense.id) is taken: this receipt or list was stored before")
        }
        let writer = MemoryWriter(state: self)
        if case .rejected(let rejection) = try writer.insert([HashedRow(expense, contentHash: expense.contentHash)], policy: InsertPolicy())[0] {
            throw rejection.column == "store_id"
                ? EditError.unknownStore(expense.storeID ?? "") : EditError.invalid(field: rejection.column, reason: rejection.reason)
        }
        try writer.state.raiseBudgetEvents(writer.touched)
        self = writer.state
        do { return try insertPrices(prices, userID: expense.userID) } catch let refused as MemoryUnknownStores {
            // The expense's store is known, so a line names another: refused whole.
            switch zip(prices, refused.outcomes).first(where: { $0.1 == .unknownStore })?.0.store {
            case .openStreetMap(let type, let number)?: throw EditError.unknownStore("osm:\(type.lowercased())/\(number)")
            case .id(let id)?: throw EditError.unknownStore(id)
            case nil: throw EditError.unknownStore("")
            }
        }
    }

    /// The old expense and price records out (`replacing`), the new ones in, then the receipt.
    mutating func writeReceipt(_ receipt: Receipt, records: ReceiptRecords?, replacing: Bool) throws -> (Receipt, [PriceSaveOutcome]) {
        let user = receipt.userID
        ensureUser(user)
        let old = receipts.firstIndex { $0.id == receipt.id && ExactText($0.userID) == ExactText(user) }
        if replacing {
            guard let old else { throw ReceiptRecording.notFound(receipt.id) }
            deleteReceiptRecords(id: receipt.id, userID: user, expenseID: receipts[old].expenseID)
        } else if old != nil {
            throw EditError.invalid(field: "id", reason: "\(receipt.id) is taken: this receipt was stored before (`geospend receipts show \(receipt.id)`)")
        }
        var stored = receipt
        var outcomes: [PriceSaveOutcome] = []
        if let records {
            outcomes = try insertPurchase(records.expense, prices: records.prices.map(\.entry))
            for (price, outcome) in zip(records.prices, outcomes) {
                guard case .inserted(let record, _) = outcome else { continue }
                priceRecords[priceRecords.firstIndex { $0.id == record.id }!].receiptID = receipt.id
                stored.items[price.item].productID = record.product.id
            }
            for item in records.pantry { addPantryItem(user: user, item, source: .receipt, purchase: records.expense.id) }
        }
        // The store as the user sees it; none such is refused, as the file's foreign key.
        if let id = stored.storeID, recordStore(.id(id), user: user) == nil { throw EditError.unknownStore(id) }
        if let old {
            (stored.sequence, stored.createdAt) = (receipts[old].sequence, receipts[old].createdAt)
            receipts[old] = stored
        } else {
            stored.sequence = (receipts.map(\.sequence).max() ?? 0) + 1
            receipts.append(stored)
        }
        return (stored, outcomes)
    }

    /// A receipt's price records and expense.
    mutating func deleteReceiptRecords(id: String, userID: String, expenseID: String?) {
        priceRecords.removeAll { $0.user == ExactText(userID) && $0.receiptID == id }
        if let expenseID { deleteExpenseRow(id: expenseID, userID: userID) }
    }

    /// `expenses delete` of a receipt's expense: the receipt, its price records and the pantry
    /// items its purchase added go too.
    mutating func deleteReceiptRows(expenseID: String, userID: String) {
        let gone = Set(receipts.filter { ExactText($0.userID) == ExactText(userID) && $0.expenseID == expenseID }.map(\.id))
        priceRecords.removeAll { $0.user == ExactText(userID) && $0.receiptID.map(gone.contains) == true }
        receipts.removeAll { ExactText($0.userID) == ExactText(userID) && $0.expenseID == expenseID }
        deletePantryItems(user: userID, purchase: expenseID, source: .receipt)
    }

    /// One expense's row gone, the totals and the centre hint kept true.
    mutating func deleteExpenseRow(id: String, userID: String) {
        guard let at = expenseIndex[ExpenseKey(userID, id)] else { return }
        let amount = expenses[at].expense.amount
        currencyTotals[amount.currency.code, default: 0] -= amount.minorUnits
        expenses.remove(at: at)
        reindex()
        recomputeBox()
    }

    /// `UserDataStore.restore`'s receipts: their sequence when free, a line's product followed
    /// to where it was restored (kept when the catalogue still has it, else none).
    mutating func restoreReceipts(_ restored: [Receipt], products exported: [Int64: Int64], user: String) {
        for var r in restored {
            r.userID = user
            for i in r.items.indices {
                r.items[i].productID = r.items[i].productID.flatMap { id in exported[id] ?? (products[id] == nil ? nil : id) }
            }
            if receipts.contains(where: { $0.sequence == r.sequence }) { r.sequence = (receipts.map(\.sequence).max() ?? 0) + 1 }
            receipts.append(r)
        }
        receipts.sort { $0.sequence < $1.sequence }
    }
}

extension MemoryReader {
    func receipt(id: String, userID: String) throws -> Receipt? {
        state.receipts.first { $0.id == id && ExactText($0.userID) == ExactText(userID) }
    }

    /// Oldest first, without their kept photo.
    func receipts(userID: String, after sequence: Int64?, limit: Int) throws -> [Receipt] {
        Array(state.receipts  // kept in sequence order
            .filter { ExactText($0.userID) == ExactText(userID) && $0.sequence > (sequence ?? 0) }
            .prefix(max(limit, 0))
            .map { var r = $0; r.image = nil; return r })
    }
}
