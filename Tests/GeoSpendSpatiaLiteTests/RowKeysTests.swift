import GeoSpend
import Testing
@testable import GeoSpendSpatiaLite

/// The keys grids count users and currencies by: the core computes them from a `String` and a
/// `Currency`, the SpatiaLite reader from the bytes SQLite hands over; both must agree, or an
/// all-users layer would count one user twice.
@Suite struct RowKeysTests {
    @Test(arguments: ["user1", "", "Jos\u{E9}", "Jose\u{301}", "ann ✓ 🏳️‍🌈", String(repeating: "x", count: 300)])
    func userKeysAgree(_ id: String) {
        var bytes = Array(id.utf8)
        let fromBytes = bytes.withUnsafeMutableBufferPointer { LocatedAmount.userKey(UnsafeBufferPointer($0)) }
        #expect(fromBytes == LocatedAmount.userKey(id))
    }

    @Test func userKeyIsFNV1a() {
        // draft-eastlake-fnv: FNV-1a 64 of "a" is af63dc4c8601ec8c.
        #expect(LocatedAmount.userKey("a") == 0xaf63_dc4c_8601_ec8c)
    }

    @Test(arguments: ["EUR", "JPY", "KWD", "SEK"])
    func currencyKeysAgree(_ code: String) throws {
        let currency = try Currency(code: code)
        var bytes = Array(code.utf8)
        let fromBytes = bytes.withUnsafeMutableBufferPointer { LocatedAmount.currencyKey(UnsafeBufferPointer($0)) }
        #expect(fromBytes == LocatedAmount.currencyKey(currency))
        #expect(try LocatedAmount.currency(key: fromBytes) == currency)
    }
}
