import GeoSpend
import Testing

/// `ProductBrand`: the known brand in a product name, as whole folded words (issue 38). The
/// expected brands are written by hand from the list and the names.
@Suite struct ProductBrandTests {
    @Test(arguments: [
        ("Valio Vollmilch 1,5 % 1 l", "Valio"),
        ("vollmilch VALIO", "Valio"),
        ("Coca-Cola Zero 0,5 l", "Coca-Cola"),
        ("coca cola", "Coca-Cola"),
        ("Ritter Sport Vollnuss 100 g", "Ritter Sport"),
        ("Dr. Oetker Ristorante Pizza", "Dr. Oetker"),
        ("Kellogg's Corn Flakes", "Kellogg's"),
        ("Nestle Nesquik", "Nestlé"),
        ("Fazerin Sininen", nil),  // Fazer's product, but "fazerin" is not the word "fazer"
        ("Milkana Schmelzkäse", nil),
        ("Vollmilch 1,5%", nil),
        ("", nil),
    ] as [(String, String?)])
    func knownBrandsAreWholeWords(name: String, brand: String?) {
        #expect(ProductBrand.brand(in: name) == brand, "\(name)")
    }

    @Test func theListIsSmallSortedAndFoldsToDistinctWords() {
        #expect(ProductBrand.known.count == 18)
        #expect(ProductBrand.known == ProductBrand.known.sorted { $0.lowercased() < $1.lowercased() })
        let folded = ProductBrand.known.map(ProductName.normalized)
        #expect(Set(folded).count == folded.count)
        #expect(!folded.contains(""))
    }
}
