import Foundation
import GeoSpend
import GeoSpendSpatiaLite
import Testing

/// Every total GeoSpend computes is a sum of some of a currency's positive amounts, so keeping the
/// sum of all of them within `Int64` at import keeps every later total exact. Found while writing
/// the money property tests: 9,224 amounts of the largest size (10¹⁵ minor units, valid one by
/// one) imported fine and then `geospend summary` crashed on an arithmetic overflow.
@Suite struct TotalsLimitTests {
    static let largest = "10000000000000.00"  // Money.maximumMinorUnits in EUR

    func rows(_ n: Int, prefix: String, amount: String = largest, currency: String = "EUR") -> String {
        (0..<n).map { "\(prefix)\($0),u1,expense,\(amount),\(currency),2026-03-05T08:15:00+02:00,,,,60.17,24.94,,,\n" }.joined()
    }

    @Test func importsThatWouldOverflowATotalAreRejected() async throws {
        let scratch = Scratch()
        let store = try scratch.store()
        let fits = Int(Int64.max / Money.maximumMinorUnits)  // 9,223
        let file = scratch.file("big.csv", ImportTests.header + rows(fits + 2, prefix: "e"))

        // All or nothing: the two rows beyond the limit reject the file, naming the column.
        await #expect {
            _ = try await Importer.importExpenses(from: file, into: store)
        } throws: { error in
            guard case ImportError.rejected(let errors, let bad) = error else { return false }
            return bad == 2 && errors.allSatisfy { $0.column == "amount" && $0.reason.contains("beyond 9223372036854775807 minor units") }
        }
        #expect(try store.readHere { try $0.counts() }.expenses == 0)

        // Skipping them, the rest fits and every total is exact.
        let report = try await Importer.importExpenses(from: file, into: store, options: ImportOptions(skipInvalid: true))
        #expect(report.inserted == fits && report.rejected == 2)
        let summary = try await SpendingSummary.compute(userID: "u1", from: nil, to: nil, store: store)
        #expect(summary.lines.first?.expenses.totalMinor == Int64(fits) * Money.maximumMinorUnits)

        // Re-importing what is there adds nothing. 3,720,368,547,758.07 EUR of room is left:
        // 5,000,000,000,000 EUR more does not fit; the same in yen does.
        #expect(try await Importer.importExpenses(from: file, into: store, options: ImportOptions(skipInvalid: true)).unchanged == fits)
        let more = scratch.file("more.csv", ImportTests.header + rows(1, prefix: "x", amount: "5000000000000") + rows(1, prefix: "y", amount: "5000000000000", currency: "JPY"))
        let last = try await Importer.importExpenses(from: more, into: store, options: ImportOptions(skipInvalid: true))
        #expect(last.inserted == 1 && last.rejected == 1 && last.errors.first?.location == "2")
    }
}
