import Testing

@testable import GeoSpend

/// `SpendingColumns.reordered`: a store that read rows in another order (an index's) puts them in
/// its promised one. The result must be what reading them in that order would have given,
/// currencies, stores and categories numbered in order of first sight again.
@Suite struct SpendingColumnsTests {
    /// Columns of these expenses in their order, with their timestamps, numbered as
    /// `SpendingColumns(points)` numbers them.
    static func columns(_ expenses: [Expense]) -> SpendingColumns {
        let p = SpendingColumns(expenses.map(SpendingPoint.init))
        var bytes: [UInt8] = [], ends: [(text: Int, localDate: Int)] = []
        var idBytes: [UInt8] = [], idEnd: [Int] = []
        for e in expenses {
            bytes += e.occurredAt.text.utf8
            let textEnd = bytes.count
            bytes += e.occurredAt.localDate.utf8
            ends.append((textEnd, bytes.count))
            idBytes += e.id.utf8
            idEnd.append(idBytes.count)
        }
        return SpendingColumns(
            idBytes: idBytes, idEnd: idEnd, amountMinor: p.amountMinor, occurredMilliseconds: p.occurredMilliseconds,
            utcOffsetMinutes: p.utcOffsetMinutes, latitude: p.latitude, longitude: p.longitude, currencyNumber: p.currencyNumber,
            storeNumber: p.storeNumber, categoryNumber: p.categoryNumber, currencies: p.currencies, storeIDs: p.storeIDs,
            categories: p.categories, timestamps: (bytes, ends))
    }

    static func expenses() throws -> [Expense] {
        let eur = try Currency(code: "EUR"), jpy = try Currency(code: "JPY")
        let times = ["2025-03-10T08:00:00.123456+02:00", "2025-03-09", "2025-03-11T23:59:59-12:00", "2025-03-10T00:00:00Z"]
        let categories: [String?] = [nil, "Food", "Rent", "Fuel"]
        var expenses: [Expense] = []
        for n in 0..<12 {
            let stores: [String?] = [nil, "s\(n % 3)", "é", "e\u{301}"]
            let location = n % 5 == 0 ? nil : ExpenseLocation(coordinate: Coordinate(uncheckedLatitude: 60 + Double(n) / 100, longitude: 24.9))
            expenses.append(Expense(
                id: "e\(n)", userID: "ann", kind: .expense, amount: Money(minorUnits: Int64(10 + n), currency: n % 3 == 0 ? jpy : eur),
                occurredAt: try Timestamp(parsing: times[n % times.count]), category: categories[n % 4], location: location,
                storeID: stores[(n / 2) % 4]))
        }
        return expenses
    }

    @Test func reorderedEqualsReadingInThatOrder() throws {
        let all = try Self.expenses()
        var rng = SplitMix64(seed: 5)
        for _ in 0..<20 {
            var order = Array(all.indices)
            order.shuffle(using: &rng)
            let got = Self.columns(all).reordered(order), want = Self.columns(order.map { all[$0] })
            #expect((0..<got.count).map(got.id) == (0..<want.count).map(want.id))
            #expect(got.amountMinor == want.amountMinor && got.occurredMilliseconds == want.occurredMilliseconds)
            #expect(got.utcOffsetMinutes == want.utcOffsetMinutes)
            #expect(got.latitude.map(\.bitPattern) == want.latitude.map(\.bitPattern) && got.longitude.map(\.bitPattern) == want.longitude.map(\.bitPattern))
            #expect(got.currencies == want.currencies && got.currencyNumber == want.currencyNumber)
            #expect(got.storeIDs == want.storeIDs && got.storeNumber == want.storeNumber)
            #expect(got.categories == want.categories && got.categoryNumber == want.categoryNumber)
            #expect((0..<got.count).map(got.timestamp) == order.map { all[$0].occurredAt })
        }
    }
}
