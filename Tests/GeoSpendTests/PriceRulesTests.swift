import GeoSpend
import Testing

/// The product rules of issue 18: barcodes, name folding, the 0.85 similarity rule, matching.
@Suite struct PriceRulesTests {
    /// Known-good codes, each written down with its source and checked by hand against GS1's
    /// mod-10 rule (weights 3, 1 from the right, GS1 General Specifications § 7.9.1):
    /// 4006381333931 and 5010017088439 — the EAN-13 worked examples of Wikipedia's
    /// "International Article Number" page and heelpbook's "How to manually calculate an
    /// EAN-13 check digit"; 036000241457 — Wikipedia's "Universal Product Code" worked example
    /// (a box of tissues); 036000291452 — the UPC-A on Wikipedia's UPC barcode picture;
    /// 96385074 — Wikipedia's EAN-8 example.
    @Test(arguments: [
        ("4006381333931", Barcode.Kind.ean13), ("5010017088439", .ean13), ("036000241457", .upcA), ("036000291452", .upcA),
        ("96385074", .ean8),
    ])
    func knownGoodBarcodesPass(_ code: String, _ kind: Barcode.Kind) throws {
        #expect(try Barcode(parsing: code).kind == kind)
    }

    /// Every other last digit of the same codes is refused, naming the digit expected.
    @Test(arguments: ["4006381333931", "5010017088439", "036000241457", "96385074"])
    func everyWrongCheckDigitFails(_ code: String) {
        let right = code.last!
        for d in "0123456789" where d != right {
            let wrong = String(code.dropLast()) + String(d)
            #expect(throws: ValueError.invalidValue(wrong, reason: "has check digit \(d) but its other digits call for \(right): a digit is mistyped")) {
                try Barcode(parsing: wrong)
            }
        }
    }

    @Test func barcodesOfOtherLengthsOrWithOtherCharactersFail() {
        #expect(throws: ValueError.self) { try Barcode(parsing: "4006381333") }  // 10 digits
        #expect(throws: ValueError.self) { try Barcode(parsing: "40063813339311") }  // 14 (a GTIN-14 is no retail barcode)
        #expect(throws: ValueError.self) { try Barcode(parsing: "4006381 333931") }
        #expect(throws: ValueError.self) { try Barcode(parsing: "") }
    }

    @Test(arguments: [
        ("Vollmilch 1,5%  1 L", "vollmilch 1.5%"),
        ("VOLLMILCH 1.5 %", "vollmilch 1.5%"),
        ("Äpfel 1kg", "apfel"),
        ("Crème Fraîche 200 g", "creme fraiche"),
        ("Weißbrot, 500g", "weissbrot"),
        ("Smørbrød 6x", "smorbrod"),
        ("Coca-Cola 0,5 l", "coca cola"),
        ("Eier 10 Stück", "eier"),  // a pack of 10 and a pack of 6 are one product; unit prices per piece compare them
        ("1 kg", "1 kg"),  // nothing but a quantity: kept
    ])
    func namesFoldCaseAccentsSpaceAndUnits(_ name: String, _ folded: String) {
        #expect(ProductName.normalized(name) == folded)
    }

    /// The rule's boundary: 3 edits in 20 characters is a similarity of exactly 0.85, not a
    /// match (the seed: "exceeds"); 2 edits in 20 (0.9) and 1 in 7 (0.857) are.
    @Test func similarityMustExceedPoint85() {
        let base = "abcdefghijklmnopqrst"
        let three = "xyzdefghijklmnopqrst", two = "xycdefghijklmnopqrst"
        let threeOfTwenty: Double = 1 - 3.0 / 20
        #expect(NameSimilarity.similarity(base, three) == threeOfTwenty)
        #expect(!NameSimilarity.matches(base, three))
        #expect(NameSimilarity.matches(base, two))
        #expect(NameSimilarity.matches("joghurt", "jogurt"))  // 1 − 1/7 ≈ 0.857
        #expect(!NameSimilarity.matches("milch", "milk"))  // 0.8
        #expect(NameSimilarity.similarity("", "") == 1)
    }

    @Test func matchingPrefersBarcodeThenTheMostSimilarName() throws {
        let ean = try Barcode(parsing: "4006381333931"), other = try Barcode(parsing: "5010017088439")
        let products = [
            Product(id: 1, name: "Vollmilch 1,5%"), Product(id: 2, name: "Vollmilch 3,5%"),
            Product(id: 3, name: "Textmarker", barcode: ean),
        ]
        #expect(ProductMatch.find(name: "vollmilch 1.5 % 1l", barcode: nil, among: products)?.id == 1)
        #expect(ProductMatch.find(name: "Vollmilch 3.5", barcode: nil, among: products)?.id == 2)
        #expect(ProductMatch.find(name: "anything", barcode: ean, among: products)?.id == 3)
        #expect(ProductMatch.find(name: "Textmarker", barcode: other, among: products) == nil, "another barcode is another product")
        #expect(ProductMatch.find(name: "Butter", barcode: nil, among: products) == nil)
        #expect(Product(name: "Butter").category == "Other")
    }

    @Test func unitPricesArePerKilogramLitreOrPiece() throws {
        let eur = try Currency(code: "EUR")
        let at = try Timestamp(parsing: "2026-03-05")
        func record(_ price: String, _ q: Double, _ u: PriceUnit) throws -> PriceRecord {
            PriceRecord(
                product: Product(name: "x"), storeID: "s", price: try Money(parsing: price, currency: eur), quantity: q, unit: u,
                recordedAt: at, userID: "u", source: .manual)
        }
        #expect(try record("1.29", 500, .g).unitPrice == 2.58)
        #expect(try record("0.99", 330, .ml).unitPrice == 3)
        #expect(try record("3.00", 6, .pcs).unitPrice == 0.5)
        #expect(try record("3.98", 2, .kg).unitPrice == 1.99)
    }
}
