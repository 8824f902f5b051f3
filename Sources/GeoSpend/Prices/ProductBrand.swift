/// The brand a product name carries, when it is one GeoSpend knows (issue 38: "brand extracted
/// from the name where it is a known brand").
///
/// A new product recorded without a brand takes the first brand of `known` whose folded words
/// (`ProductName.normalized`: case, accents, punctuation) appear as whole words in its folded
/// name, longest brand first: `Valio Vollmilch 1,5 %` → Valio, `coca-cola zero` → Coca-Cola,
/// `Milkana` → none (not the word `milka`). A brand the record gives wins; a product that has a
/// brand keeps it.
///
/// The list is small on purpose: brands common on the shelves of the seeds' markets (Finland,
/// Germany) and in the examples, spelt as their makers spell them. It is not a catalogue of
/// brands; a name with an unknown brand simply has none until one is given.
public enum ProductBrand {
    public static let known: [String] = [
        "Alpro", "Arla", "Barilla", "Coca-Cola", "Danone", "Dr. Oetker", "Fazer", "Heinz", "Kellogg's", "Lindt", "Milka", "Nestlé",
        "Oatly", "Pepsi", "Red Bull", "Ritter Sport", "Stabilo", "Valio",
    ]

    /// Longest folded form first, so `Ritter Sport` is found before a shorter brand inside it.
    static let folded: [(brand: String, words: String)] = known.map { ($0, ProductName.normalized($0)) }
        .sorted { ($0.words.count, $1.brand) > ($1.words.count, $0.brand) }

    /// The known brand in `name`, or nil.
    /// - Complexity: O(b · n) for b known brands and a name of n characters.
    public static func brand(in name: String) -> String? {
        let words = " " + ProductName.normalized(name) + " "
        return folded.first { words.contains(" " + $0.words + " ") }?.brand
    }
}
