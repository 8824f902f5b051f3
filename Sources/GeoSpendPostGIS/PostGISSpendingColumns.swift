import GeoSpend
import PostgresNIO

/// What per-place analytics read, as columns straight from the rows (no `SpendingPoint` per
/// row), each row with its stored timestamp: first and last visits then need no second
/// statement (`LocationInsights`), a round trip and a plan fewer per insights answer.
extension PostGISReader {
    func spendingColumns(_ filter: ExpenseFilter) throws -> SpendingColumns {
        var rows = ColumnsBuilder()
        try inBatches(filter, geotaggedOnly: false, columns: """
            e.id, e.store_id, e.lat, e.lon, e.amount_minor, e.currency, e.occurred_ms, e.utc_offset_min, c.name, e.occurred_at, e.local_date
            """) { r in try rows.add(r) } body: { _ in }
        return try rows.columns()
    }
}

/// The columns of `SpendingColumns`, a row at a time: currencies, stores and categories numbered
/// in order of first sight by their UTF-8 bytes, as `SpendingColumns.init(_ points:)` numbers them.
private struct ColumnsBuilder {
    var idBytes: [UInt8] = [], idEnd: [Int] = []
    var amountMinor: [Int64] = [], occurredMilliseconds: [Int64] = [], utcOffsetMinutes: [Int32?] = []
    var latitude: [Double] = [], longitude: [Double] = []
    var currencyNumber: [Int32] = [], storeNumber: [Int32] = [], categoryNumber: [Int32] = []
    var codes: [String] = [], storeIDs: [String] = [], categories: [String] = []
    var timestampBytes: [UInt8] = [], timestampEnd: [(text: Int, localDate: Int)] = []
    /// Keyed by a list's tag and the value's bytes: two ids equal as Swift strings (é composed
    /// and decomposed) stay two, as on the file.
    var numbers: [[UInt8]: Int32] = [:]

    mutating func add(_ r: PostgresRandomAccessRow) throws {
        idBytes += try r[0].decode(String.self).utf8
        idEnd.append(idBytes.count)
        let store = try r[1].decode(String?.self)
        storeNumber.append(store.map { Self.number($0, in: &storeIDs, numbers: &numbers, tag: 1) } ?? -1)
        latitude.append(try r[2].decode(Double?.self) ?? .nan)  // lat and lon are NULL together (a CHECK)
        longitude.append(try r[3].decode(Double?.self) ?? .nan)
        amountMinor.append(try r[4].decode(Int64.self))
        let code = try r[5].decode(String.self)
        currencyNumber.append(Self.number(code, in: &codes, numbers: &numbers, tag: 0))
        occurredMilliseconds.append(try r[6].decode(Int64.self))
        utcOffsetMinutes.append(try r[7].decode(Int32?.self))
        let category = try r[8].decode(String?.self)
        categoryNumber.append(category.map { Self.number($0, in: &categories, numbers: &numbers, tag: 2) } ?? -1)
        timestampBytes += try r[9].decode(String.self).utf8
        let textEnd = timestampBytes.count
        timestampBytes += try r[10].decode(String.self).utf8
        timestampEnd.append((textEnd, timestampBytes.count))
    }

    static func number(_ key: String, in list: inout [String], numbers: inout [[UInt8]: Int32], tag: UInt8) -> Int32 {
        let bytes = [tag] + Array(key.utf8)
        if let k = numbers[bytes] { return k }
        numbers[bytes] = Int32(list.count)
        list.append(key)
        return Int32(list.count - 1)
    }

    func columns() throws -> SpendingColumns {
        SpendingColumns(
            idBytes: idBytes, idEnd: idEnd, amountMinor: amountMinor, occurredMilliseconds: occurredMilliseconds,
            utcOffsetMinutes: utcOffsetMinutes, latitude: latitude, longitude: longitude, currencyNumber: currencyNumber,
            storeNumber: storeNumber, categoryNumber: categoryNumber, currencies: try codes.map { try Currency(code: $0) },
            storeIDs: storeIDs, categories: categories, timestamps: (timestampBytes, timestampEnd))
    }
}
