extension SpendingColumns {
    /// `SpendingColumns` a row at a time, for a store that reads rows one by one (and for
    /// `SpendingColumns.init(_ points:)`). Currencies, stores and categories are numbered in order
    /// of first sight by their UTF-8 bytes, as the file's readers number them: two ids equal as
    /// Swift strings (é composed and decomposed) stay two.
    ///
    /// ```swift
    /// var rows = SpendingColumns.Builder()
    /// try rows.append(
    ///     id: "e1", storeID: "s1", latitude: 60.17, longitude: 24.94, amountMinor: 450, currencyCode: "EUR",
    ///     occurredMilliseconds: 1_740_000_000_000, utcOffsetMinutes: 120, category: "Food") { try Currency(code: "EUR") }
    /// let columns = rows.columns()
    /// ```
    public struct Builder {
        private var idBytes: [UInt8] = [], idEnd: [Int] = []
        private var amountMinor: [Int64] = [], occurredMilliseconds: [Int64] = [], utcOffsetMinutes: [Int32?] = []
        private var latitude: [Double] = [], longitude: [Double] = []
        private var currencyNumber: [Int32] = [], storeNumber: [Int32] = [], categoryNumber: [Int32] = []
        private var currencies: [Currency] = [], storeIDs: [String] = [], categories: [String] = []
        private var timestampBytes: [UInt8] = [], timestampEnd: [(text: Int, localDate: Int)] = []
        /// By store number, when `labelStore` was called after each row.
        private var storeLabels: [(name: String, coordinate: Coordinate)?] = [], labelledRows = 0
        /// By a list's tag (0 currencies, 1 stores, 2 categories) and the value's bytes.
        private var numbers: [[UInt8]: Int32] = [:]

        public init() {}

        /// Adds a row. `currency` makes the row's currency the first time its code is seen.
        /// `timestamp` (the stored text and local date) is given for every row or for none.
        public mutating func append(
            id: String, storeID: String?, latitude: Double?, longitude: Double?, amountMinor: Int64, currencyCode: String,
            occurredMilliseconds: Int64, utcOffsetMinutes: Int32?, category: String?,
            timestamp: (text: String, localDate: String)? = nil, currency: () throws -> Currency
        ) rethrows {
            let (currencyKey, isNew) = Self.key(currencyCode, tag: 0, count: currencies.count, in: &numbers)
            if isNew { currencies.append(try currency()) }
            currencyNumber.append(currencyKey)
            idBytes += id.utf8
            idEnd.append(idBytes.count)
            storeNumber.append(storeID.map { Self.number($0, tag: 1, in: &storeIDs, numbers: &numbers) } ?? -1)
            categoryNumber.append(category.map { Self.number($0, tag: 2, in: &categories, numbers: &numbers) } ?? -1)
            self.latitude.append(latitude ?? .nan)
            self.longitude.append(longitude ?? .nan)
            self.amountMinor.append(amountMinor)
            self.occurredMilliseconds.append(occurredMilliseconds)
            self.utcOffsetMinutes.append(utcOffsetMinutes)
            if let timestamp {
                timestampBytes += timestamp.text.utf8
                let textEnd = timestampBytes.count
                timestampBytes += timestamp.localDate.utf8
                timestampEnd.append((textEnd, timestampBytes.count))
            }
        }

        /// Gives the label of the store of the row just added (nil: no such store), read with the
        /// row: `label` runs once per store, at its first row. Called after every row or none;
        /// then insights need no lookup of the labels (`ExpenseReader.storeLabels`).
        public mutating func labelStore(_ label: () throws -> (name: String, coordinate: Coordinate)?) rethrows {
            labelledRows += 1
            precondition(labelledRows == idEnd.count, "labelStore after every row")
            if storeLabels.count < storeIDs.count { storeLabels.append(try label()) }
        }

        public func columns() -> SpendingColumns {
            precondition(timestampEnd.isEmpty || timestampEnd.count == idEnd.count, "a timestamp for every row or for none")
            precondition(labelledRows == 0 || labelledRows == idEnd.count, "labelStore after every row or none")
            return SpendingColumns(
                idBytes: idBytes, idEnd: idEnd, amountMinor: amountMinor, occurredMilliseconds: occurredMilliseconds,
                utcOffsetMinutes: utcOffsetMinutes, latitude: latitude, longitude: longitude, currencyNumber: currencyNumber,
                storeNumber: storeNumber, categoryNumber: categoryNumber, currencies: currencies, storeIDs: storeIDs,
                categories: categories, timestamps: timestampEnd.isEmpty ? nil : (timestampBytes, timestampEnd),
                storeLabels: labelledRows == 0 ? nil : storeLabels)
        }

        private static func number(_ value: String, tag: UInt8, in list: inout [String], numbers: inout [[UInt8]: Int32]) -> Int32 {
            let (number, isNew) = key(value, tag: tag, count: list.count, in: &numbers)
            if isNew { list.append(value) }
            return number
        }

        /// `value`'s number, or the next (`count`) when it is new.
        private static func key(_ value: String, tag: UInt8, count: Int, in numbers: inout [[UInt8]: Int32]) -> (Int32, isNew: Bool) {
            let bytes = [tag] + Array(value.utf8)
            if let known = numbers[bytes] { return (known, false) }
            numbers[bytes] = Int32(count)
            return (Int32(count), true)
        }
    }
}
