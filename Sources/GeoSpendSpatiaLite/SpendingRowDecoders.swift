import GeoSpend
import GRDB

/// Decoding the spending rows: into `SpendingPoint`s (exports) or `SpendingColumns` (insights),
/// each repeated text decoded once.
extension SpatiaLiteReader {
    /// A stored kind by its first letter (the schema allows only these three).
    static func kind(_ text: UnsafeBufferPointer<UInt8>) -> ExpenseKind {
        switch text.first {
        case UInt8(ascii: "i"): .income
        case UInt8(ascii: "t"): .transfer
        default: .expense
        }
    }

    /// Decodes rows of `spendingPointQuery`. Currencies, kinds and categories repeat on every
    /// row: decoded once each, so a row makes no string for them (a third of a points export's
    /// decoding time before); category names are looked up once per category, not joined.
    struct SpendingPointDecoder {
        /// What the filter fixes for every row (`spendingPointQuery` then reads NULL instead).
        private let user: String?
        private let kind: ExpenseKind?
        private var currencies = PerCurrency<Currency?> { nil }
        private var categories: [Int64: String] = [:]

        init(filter: ExpenseFilter) {
            user = filter.userID
            kind = filter.kinds.count == 1 ? filter.kinds.first : nil
        }

        mutating func point(_ s: RawStatement, _ lookup: CategoryNameLookup) throws -> SpendingPoint {
            let k = currencies.slot(s.withText(6, LocatedAmount.currencyKey))
            if currencies.values[k] == nil { currencies.values[k] = try Currency(code: s.text(6) ?? "") }
            var category: String?
            if !s.isNull(9) {
                let id = s.int64(9)
                if let known = categories[id] {
                    category = known
                } else {
                    category = try lookup.name(id)
                    categories[id] = category
                }
            }
            return SpendingPoint(
                id: s.text(0) ?? "", userID: user ?? s.text(10) ?? "", storeID: s.text(1),
                coordinate: s.isNull(2) ? nil : Coordinate(uncheckedLatitude: s.double(2), longitude: s.double(3)),
                kind: kind ?? s.withText(4, SpatiaLiteReader.kind), amountMinor: s.int64(5), currency: currencies.values[k]!,
                occurredMilliseconds: s.int64(7), utcOffsetMinutes: s.optionalInt64(11).map { Int($0) },
                category: category, merchant: s.text(8))
        }
    }

    /// A category's name by id, on the connection reading the rows (decoders look each id up
    /// once instead of joining categories on every row).
    struct CategoryNameLookup {
        let db: Database
        let statement: RawStatement

        init(_ db: Database) throws {
            self.db = db
            statement = RawStatement(try db.cachedStatement(sql: "SELECT name FROM categories WHERE id = ?1"))
        }

        func name(_ id: Int64) throws -> String? {
            statement.reset()
            statement.bind(1, id)
            return try statement.step(db) ? statement.text(0) : nil
        }
    }

    /// Decodes rows of `spendingPointQuery` into `SpendingColumns`: store ids numbered from
    /// their bytes in place, currencies by their packed code, categories by id then name; each
    /// column read once as a value.
    struct SpendingColumnsDecoder: Sendable {
        private var idBytes: [UInt8] = [], idEnd: [Int] = []
        private var amountMinor: [Int64] = [], occurredMilliseconds: [Int64] = [], utcOffsetMinutes: [Int32?] = []
        private var latitude: [Double] = [], longitude: [Double] = []
        private var currencyNumber: [Int32] = [], storeNumber: [Int32] = [], categoryNumber: [Int32] = []
        private var currencies: [Currency] = [], storeIDs: [String] = [], categories: [String] = []
        private var timestampBytes: [UInt8] = [], timestampEnd: [(text: Int, localDate: Int)] = []
        private var currencySlots = PerCurrency<Void> {}
        private var stores = ByteInterner()
        /// Category ids seen, and their numbers by name (a user has a handful: a short list).
        private var categoryIDs: [Int64] = [], categoryNumbers: [Int32] = []

        /// Room for a typical user's rows from the start: growing thirteen columns one doubling
        /// at a time was 4 % of "insights per store, one user" (~100 rows a user).
        init(reservingRows rows: Int = 128) {
            idEnd.reserveCapacity(rows)
            amountMinor.reserveCapacity(rows)
            occurredMilliseconds.reserveCapacity(rows)
            utcOffsetMinutes.reserveCapacity(rows)
            latitude.reserveCapacity(rows)
            longitude.reserveCapacity(rows)
            currencyNumber.reserveCapacity(rows)
            storeNumber.reserveCapacity(rows)
            categoryNumber.reserveCapacity(rows)
            timestampEnd.reserveCapacity(rows)
            idBytes.reserveCapacity(rows * 24)
            timestampBytes.reserveCapacity(rows * 40)
        }

        /// The rows read, in the order read.
        var columns: SpendingColumns {
            SpendingColumns(
                idBytes: idBytes, idEnd: idEnd, amountMinor: amountMinor, occurredMilliseconds: occurredMilliseconds,
                utcOffsetMinutes: utcOffsetMinutes, latitude: latitude, longitude: longitude, currencyNumber: currencyNumber,
                storeNumber: storeNumber, categoryNumber: categoryNumber, currencies: currencies, storeIDs: storeIDs,
                categories: categories, timestamps: (timestampBytes, timestampEnd))
        }

        mutating func add(_ s: RawStatement, _ lookup: CategoryNameLookup) throws {
            currencyNumber.append(try number(currencyKey: s.value(6).withText { $0.map(LocatedAmount.currencyKey) ?? 0 }) {
                try Currency(code: s.text(6) ?? "")
            })
            storeNumber.append(s.value(1).withText { id in id.map { number(storeID: $0) } ?? -1 })
            let category = s.value(9)
            categoryNumber.append(category.isNull ? -1 : try categoryNumber(id: category.int64, lookup))
            let lat = s.value(2)
            latitude.append(lat.isNull ? .nan : lat.double)
            longitude.append(lat.isNull ? .nan : s.value(3).double)
            s.value(0).withText { id in idBytes.append(contentsOf: id ?? .init(start: nil, count: 0)) }
            idEnd.append(idBytes.count)
            amountMinor.append(s.value(5).int64)
            occurredMilliseconds.append(s.value(7).int64)
            let offset = s.value(11)
            utcOffsetMinutes.append(offset.isNull ? nil : Int32(truncatingIfNeeded: offset.int64))
            s.value(12).withText { text in timestampBytes.append(contentsOf: text ?? .init(start: nil, count: 0)) }
            let textEnd = timestampBytes.count
            s.value(13).withText { date in timestampBytes.append(contentsOf: date ?? .init(start: nil, count: 0)) }
            timestampEnd.append((textEnd, timestampBytes.count))
        }

        private mutating func categoryNumber(id: Int64, _ lookup: CategoryNameLookup) throws -> Int32 {
            if let k = categoryIDs.firstIndex(of: id) { return categoryNumbers[k] }
            let n = try lookup.name(id).map { number(categoryName: $0) } ?? -1
            categoryIDs.append(id)
            categoryNumbers.append(n)
            return n
        }

        // Numbers in order of first sight; store ids and category names compare as UTF-8 bytes.

        private mutating func number(currencyKey key: UInt32, _ make: () throws -> Currency) rethrows -> Int32 {
            let k = currencySlots.slot(key)
            if k == currencies.count { currencies.append(try make()) }
            return Int32(k)
        }

        private mutating func number(storeID bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
            let (n, isNew) = stores.number(bytes)
            if isNew { storeIDs.append(String(decoding: bytes, as: UTF8.self)) }
            return n
        }

        private mutating func number(categoryName name: String) -> Int32 {
            if let k = categories.firstIndex(where: { $0.utf8.elementsEqual(name.utf8) }) { return Int32(k) }
            categories.append(name)
            return Int32(categories.count - 1)
        }
    }
}
