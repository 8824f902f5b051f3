import PropertyBased
import Testing

@testable import GeoSpend

/// Money is exact, sums do not depend on order or grouping, and currencies never mix.
@Suite struct MoneyPropertyTests {
    /// Any amount written with the currency's digits parses to exactly its minor units and is
    /// written back the same way; extra zero decimals change nothing.
    @Test func parsingIsExactInMinorUnits() async {
        await propertyCheck(count: 2000, input: Boundary.currency, Boundary.minorUnits) { currency, minor in
            let text = Money.decimalString(minor, digits: currency.minorDigits)
            let money = try Money(parsing: text, currency: currency)
            #expect(money.minorUnits == minor && money.currency == currency)
            #expect(money.decimalString == text)
            let padded = text + (currency.minorDigits == 0 ? ".000" : "000")
            #expect(try Money(parsing: padded, currency: currency) == money)
            // The Double view is for charts only, but it must still round back to the same cents.
            #expect((money.majorUnits * Double(currency.minorUnitsPerMajor)).rounded() == Double(minor))
        }
    }

    @Test func additionIsExactCommutativeAndAssociative() async {
        await propertyCheck(count: 2000, input: Boundary.currency, Boundary.minorUnits, Boundary.minorUnits, Boundary.minorUnits) {
            currency, x, y, z throws in
            let a = Money(minorUnits: x, currency: currency), b = Money(minorUnits: y, currency: currency)
            let c = Money(minorUnits: z, currency: currency)
            #expect(try a.adding(b) == b.adding(a))
            #expect(try a.adding(b).adding(c) == a.adding(b.adding(c)))
            #expect(try a.adding(b).adding(c).minorUnits == x + y + z)
        }
    }

    @Test func addingTwoCurrenciesThrows() async {
        await propertyCheck(count: 500, input: Boundary.currency, Boundary.currency, Boundary.minorUnits, Boundary.minorUnits) {
            c1, c2, x, y throws in
            let a = Money(minorUnits: x, currency: c1), b = Money(minorUnits: y, currency: c2)
            if c1 == c2 {
                #expect(try a.adding(b).minorUnits == x + y)
            } else {
                #expect(throws: ValueError.self) { try a.adding(b) }
            }
        }
    }

    /// Overflow is an error, never a trap or a wrapped sum.
    @Test func addingBeyondInt64Throws() throws {
        let eur = try Currency(code: "EUR")
        let big = Money(minorUnits: .max - 1, currency: eur)
        #expect(throws: ValueError.self) { try big.adding(Money(minorUnits: 2, currency: eur)) }
        #expect(try big.adding(Money(minorUnits: 1, currency: eur)).minorUnits == .max)
    }

    /// Totals over a mixed list: one per currency present, each the exact sum and count of that
    /// currency's amounts alone, whatever the order of the list.
    @Test func totalsKeepCurrenciesApartInAnyOrder() async {
        let entry = zip(Boundary.currency, Boundary.minorUnits).map { Money(minorUnits: $1, currency: $0) }
        await propertyCheck(count: 500, input: entry.array(of: 0...60)) { amounts in
            var totals = MoneyTotals()
            for m in amounts { totals.add(m) }
            var reversed = MoneyTotals()
            for m in amounts.shuffled() { reversed.add(m) }
            #expect(totals.totals == reversed.totals)
            #expect(Set(totals.totals.map(\.currency)) == Set(amounts.map(\.currency)))
            for t in totals.totals {
                let mine = amounts.filter { $0.currency == t.currency }
                #expect(t.count == mine.count)
                #expect(t.totalMinor == mine.reduce(0) { $0 + $1.minorUnits })
            }
        }
    }

    @Test func statisticsStayWithinTheirAmounts() async {
        await propertyCheck(count: 500, input: Boundary.currency, Boundary.minorUnits.array(of: 1...40)) { currency, amounts in
            let s = AmountStatistics(minorUnits: amounts, currency: currency)
            #expect(s.count == amounts.count && s.total.totalMinor == amounts.reduce(0, +))
            #expect(s.min.minorUnits == amounts.min() && s.max.minorUnits == amounts.max())
            #expect(s.min.minorUnits <= s.median.minorUnits && s.median.minorUnits <= s.max.minorUnits)
            #expect(s.min.minorUnits <= s.average.minorUnits && s.average.minorUnits <= s.max.minorUnits)
        }
    }

    /// The selected median is the sorted one: odd and even counts, many repeats, runs.
    @Test func medianBySelectionEqualsMedianBySorting() {
        var rng = SplitMix64(seed: 5)
        let eur = try! Currency(code: "EUR")
        for n in Array(1...70) + [999, 1000, 4096, 37_000] {
            for spread in [2, 50, 1_000_000] as [Int64] {
                var amounts = (0..<n).map { _ in Int64.random(in: 1...spread, using: &rng) }
                if n % 3 == 0 { amounts.sort() }  // already in order
                if n % 5 == 0 { amounts.reverse() }
                let sorted = amounts.sorted()
                let mid = n / 2
                let expected = n % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid] + 1) / 2
                let s = AmountStatistics(minorUnits: amounts, currency: eur)
                #expect(s.median.minorUnits == expected, "n \(n) spread \(spread)")
                #expect(s.min.minorUnits == sorted.first! && s.max.minorUnits == sorted.last!)
                for k in [0, mid, n - 1] {
                    var work = amounts
                    #expect(AmountStatistics.select(&work, k) == sorted[k])
                    #expect(work[..<k].allSatisfy { $0 <= sorted[k] } && work[(k + 1)...].allSatisfy { $0 >= sorted[k] })
                }
            }
        }
    }
}
