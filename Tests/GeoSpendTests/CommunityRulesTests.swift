import Foundation
import GeoSpend
import Testing

/// The community layer's rules in the core: the seed's levels at every boundary, its post types
/// and ratings, and the text checks.
@Suite struct CommunityRulesTests {
    /// The seed's table, written out here: New Shopper 0, Regular 10, Smart 25, Expert 50,
    /// Master 100, Legendary 200+.
    @Test(arguments: [
        (0, "New Shopper"), (9, "New Shopper"), (10, "Regular Shopper"), (24, "Regular Shopper"), (25, "Smart Shopper"),
        (49, "Smart Shopper"), (50, "Expert Shopper"), (99, "Expert Shopper"), (100, "Master Shopper"), (199, "Master Shopper"),
        (200, "Legendary Shopper"), (10_000, "Legendary Shopper"),
    ])
    func levelsAtEveryBoundary(updates: Int, level: String) {
        #expect(CommunityLevel(updates: updates).rawValue == level)
    }

    @Test func typesAreTheSeeds() {
        #expect(CommunityPostType.allCases.map(\.rawValue) == ["price_update", "store_review", "product_review", "new_product", "general"])
    }

    @Test func ratingsAreRequiredForReviewsAndRefusedOtherwise() throws {
        for r in 1...5 {
            #expect(try CommunityRules.fields(type: "store_review", storeID: "s1", productID: nil, rating: r, text: nil).rating == r)
            #expect(try CommunityRules.fields(type: "product_review", storeID: nil, productID: 1, rating: r, text: "ok").rating == r)
        }
        for bad in [0, 6, -1] {
            #expect(throws: UsageError.self) { try CommunityRules.fields(type: "store_review", storeID: "s1", productID: nil, rating: bad, text: nil) }
        }
        #expect(throws: UsageError.self) { try CommunityRules.fields(type: "store_review", storeID: "s1", productID: nil, rating: nil, text: "x") }
        #expect(throws: UsageError.self) { try CommunityRules.fields(type: "product_review", storeID: nil, productID: 1, rating: nil, text: "x") }
        for type in ["price_update", "new_product", "general"] {
            #expect(throws: UsageError.self) { try CommunityRules.fields(type: type, storeID: "s1", productID: nil, rating: 3, text: "x") }
            #expect(try CommunityRules.fields(type: type, storeID: "s1", productID: nil, rating: nil, text: "x").rating == nil)
        }
        #expect(throws: UsageError.self) { try CommunityRules.fields(type: "rant", storeID: nil, productID: nil, rating: nil, text: "x") }
        #expect(throws: UsageError.self) { try CommunityRules.fields(type: "store_review", storeID: nil, productID: nil, rating: 3, text: nil) }
    }

    @Test func textIsNFCBoundedAndFreeOfControlCharacters() throws {
        // "é" as e + combining acute becomes the one precomposed scalar.
        #expect(try CommunityRules.text("Cafe\u{301} ok", option: "--text").unicodeScalars.map(\.value) == Array("Café ok".unicodeScalars.map(\.value)))
        #expect(try CommunityRules.text("  two\nlines ", option: "--text") == "two\nlines")
        #expect(throws: UsageError.self) { try CommunityRules.text("bell\u{7}", option: "--text") }
        #expect(throws: UsageError.self) { try CommunityRules.text("rtl\u{202E}", option: "--text") }
        #expect(throws: UsageError.self) { try CommunityRules.text("   ", option: "--text") }
        #expect(try CommunityRules.text(String(repeating: "a", count: 2000), option: "--text").count == 2000)
        #expect(throws: UsageError.self) { try CommunityRules.text(String(repeating: "a", count: 2001), option: "--text") }
        #expect(throws: UsageError.self) { try CommunityRules.displayName("Ann\nB") }
        #expect(throws: UsageError.self) { try CommunityRules.displayName(String(repeating: "n", count: 41)) }
    }

    /// The local day's window against Foundation's calendar at the same offset.
    @Test(arguments: ["2026-03-05T00:30:00+02:00", "2026-03-05T23:59:59-05:00", "2026-03-05", "1969-12-31T23:00:00Z"])
    func dayWindowIsTheLocalDay(text: String) throws {
        let t = try Timestamp(parsing: text)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: (t.utcOffsetMinutes ?? 0) * 60)!
        let start = calendar.startOfDay(for: Date(timeIntervalSince1970: Double(t.epochMilliseconds) / 1000))
        let w = CommunityVerification.dayWindow(t)
        #expect(w.start == Int64(start.timeIntervalSince1970 * 1000))
        #expect(w.end - w.start == 86_400_000)
    }

    @Test func timestampInAZoneKeepsItsLocalDay() {
        let date = Date(timeIntervalSince1970: 1_772_661_600)  // 2026-03-04T22:00:00Z
        let t = CommunityRules.timestamp(date, in: TimeZone(identifier: "Europe/Helsinki")!)
        #expect(t.text == "2026-03-05T00:00:00.000+02:00" && t.localDate == "2026-03-05" && t.utcOffsetMinutes == 120)
        #expect(t.epochMilliseconds == 1_772_661_600_000)
    }
}
