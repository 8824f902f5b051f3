import Testing

@testable import GeoSpend

@Suite struct MoneyTests {
    let eur = try! Currency(code: "EUR")
    let jpy = try! Currency(code: "JPY")
    let kwd = try! Currency(code: "KWD")

    @Test(arguments: [
        ("12.50", "EUR", Int64(1250)), ("12.5", "EUR", 1250), ("12", "EUR", 1200), ("0.01", "EUR", 1),
        ("1200", "JPY", 1200), ("1200.00", "JPY", 1200), ("1.250", "KWD", 1250), ("0.001", "KWD", 1),
        ("3.133", "KWD", 3133), ("999999999.99", "EUR", 99_999_999_999),
    ])
    func parsesExactly(text: String, code: String, minor: Int64) throws {
        let money = try Money(parsing: text, currency: Currency(code: code))
        #expect(money.minorUnits == minor)
    }

    @Test(arguments: [
        ("", "is empty"), ("0", "is zero"), ("0.00", "is zero"), ("-5", "is negative"), ("12.345", "more decimals than EUR allows (2)"),
        ("1e3", "not a decimal number"), ("1.", "not a decimal number"), (".5", "not a decimal number"),
        ("1,50", "not a decimal number"), (" 1", "not a decimal number"), ("nan", "not a decimal number"),
        ("inf", "not a decimal number"), ("+1", "not a decimal number"), ("99999999999999999999", "too large"),
    ])
    func rejects(text: String, reason: String) {
        #expect {
            _ = try Money(parsing: text, currency: eur)
        } throws: { error in
            String(describing: error).contains(reason)
        }
    }

    @Test func yenHasNoDecimalsAndDinarThree() throws {
        #expect(throws: ValueError.self) { try Money(parsing: "10.5", currency: jpy) }
        #expect(try Money(parsing: "10.5", currency: kwd).decimalString == "10.500")
        #expect(Money(minorUnits: 1234, currency: jpy).decimalString == "1234")
        #expect(Money(minorUnits: 5, currency: eur).decimalString == "0.05")
        #expect(Money(minorUnits: 1, currency: kwd).decimalString == "0.001")
    }

    @Test func unknownAndNonMoneyCurrencies() {
        for code in ["EU", "eur", "ABC", "XAU", "XXX", "XTS"] {
            #expect(throws: ValueError.self) { try Currency(code: code) }
        }
        #expect(try! Currency(code: "CLF").minorDigits == 4)
        #expect(try! Currency(code: "ISK").minorDigits == 0)
    }

    @Test func averageRoundsHalfAwayFromZero() {
        var t = MoneyTotal(currency: eur)
        t.add(1); t.add(2)  // 1.5 cents → 2
        #expect(t.averageMinor == 2)
        t.add(2)  // 5/3 = 1.67 → 2
        #expect(t.averageMinor == 2)
        var u = MoneyTotal(currency: eur)
        u.add(1); u.add(1); u.add(2); u.add(2); u.add(2); u.add(2)  // 10/6 = 1.67
        #expect(u.averageMinor == 2)
        #expect(u.total.decimalString == "0.10")
    }

    @Test func totalsNeverMixCurrencies() throws {
        var totals = MoneyTotals()
        totals.add(try Money(parsing: "1.10", currency: eur))
        totals.add(try Money(parsing: "100", currency: jpy))
        totals.add(try Money(parsing: "2.20", currency: eur))
        let byCode = Dictionary(uniqueKeysWithValues: totals.totals.map { ($0.currency.code, $0) })
        #expect(byCode["EUR"]?.totalMinor == 330)
        #expect(byCode["EUR"]?.count == 2)
        #expect(byCode["JPY"]?.totalMinor == 100)
        #expect(totals.totals.map(\.currency.code) == ["EUR", "JPY"])
    }
}

@Suite struct TimestampTests {
    @Test func keepsOffsetAndLocalDay() throws {
        let t = try Timestamp(parsing: "2026-03-05T23:30:00-05:00")
        #expect(t.localDate == "2026-03-05")
        #expect(t.utcOffsetMinutes == -300)
        #expect(t.epochMilliseconds == 1_772_771_400_000)  // 2026-03-06T04:30:00Z
        #expect(t.text == "2026-03-05T23:30:00-05:00")
    }

    @Test func utcAndFractions() throws {
        let t = try Timestamp(parsing: "2025-12-31T23:59:59.250Z")
        #expect(t.epochMilliseconds == 1_767_225_599_250)
        #expect(t.text == "2025-12-31T23:59:59.250Z")
        #expect(try Timestamp(parsing: "2025-01-01T00:00:00+00:00").text == "2025-01-01T00:00:00Z")
    }

    @Test func bareDateIsALocalDay() throws {
        let t = try Timestamp(parsing: "2024-02-29")
        #expect(t.isDateOnly)
        #expect(t.localDate == "2024-02-29")
        #expect(t.utcOffsetMinutes == nil)
    }

    @Test(arguments: [
        ("2026-03-05T08:15:00", "no UTC offset"), ("2026-03-05 08:15", "not an RFC 3339"),
        ("2025-02-29", "does not have"), ("2026-13-01", "month 13"), ("2026-03-05T24:00:00Z", "out of range"),
        ("05/03/2026", "not an RFC 3339"), ("2026-03-05T08:15:00+2", "malformed UTC offset"), ("", "not an RFC 3339"),
        ("2026-03-05T08:15:00+02:00x", "malformed UTC offset"),
    ])
    func rejects(text: String, reason: String) {
        #expect {
            _ = try Timestamp(parsing: text)
        } throws: { String(describing: $0).contains(reason) }
    }

    @Test func generatorTimestampsRoundTrip() throws {
        let t = Timestamp(epochSeconds: 1_772_771_400, utcOffsetMinutes: 120)
        #expect(t.text == "2026-03-06T06:30:00+02:00")
        #expect(try Timestamp(parsing: t.text) == t)
    }
}

@Suite struct ParsingTests {
    @Test(arguments: [("500m", 500.0), ("1.5km", 1500.0), ("2 km", 2000.0), ("750", 750.0), ("0.25 m", 0.25)])
    func distances(text: String, meters: Double) throws {
        #expect(try Distance(parsing: text).meters == meters)
    }

    @Test(arguments: ["", "0m", "-5m", "5 miles", "nanm", "infkm", "1e999m", "km"])
    func badDistances(text: String) {
        #expect(throws: ValueError.self) { try Distance(parsing: text) }
    }

    @Test(arguments: ["nan", "NaN", "inf", "-Infinity", "1.", ".5", "0x10", " 1", "1 ", "", "+", "1e", "1e999"])
    func strictDoublesReject(text: String) {
        #expect(throws: ValueError.self) { try parseStrictDouble(text) }
    }

    @Test func strictDoublesAccept() throws {
        #expect(try parseStrictDouble("-33.9") == -33.9)
        #expect(try parseStrictDouble("1e-3") == 0.001)
        #expect(try parseStrictDouble("+180") == 180)
    }

    @Test func decimalFormatting() {
        #expect(formatDecimal(12.5, digits: 3) == "12.5")
        #expect(formatDecimal(-0.0001, digits: 3) == "0")
        #expect(formatDecimal(60.1710001, digits: 7) == "60.1710001")
        #expect(formatDecimal(3, digits: 2) == "3")
    }
}
