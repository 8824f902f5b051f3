/// `geospend products search TEXT`: the catalogue ranked by how well a name answers the text.
///
/// Phase 3's scoring, on folded names (`ProductName.normalized`, so case, accents and pack sizes
/// do not matter), the parts added up: the name equals the text +100, starts with it +50,
/// contains it +25; the brand equals or contains the text +10. A name that matches none of the
/// first three but is within the typo rule (`NameSimilarity`: > 0.85, for the whole name or one
/// of its words) scores +20. Results have a score above 0, best first, then by name and id;
/// an empty text returns every product (score 0) by name.
public enum ProductSearch {
    public struct Hit: Sendable, Hashable {
        public let product: Product
        public let score: Int
    }

    public static func search(_ text: String, in products: [Product]) -> [Hit] {
        let query = ProductName.normalized(text)
        let hits: [Hit]
        if query.isEmpty {
            hits = products.map { Hit(product: $0, score: 0) }
        } else {
            hits = products.map { Hit(product: $0, score: score(query, $0)) }.filter { $0.score > 0 }
        }
        return hits.sorted { ($1.score, $0.product.name, $0.product.id) < ($0.score, $1.product.name, $1.product.id) }
    }

    /// The score of one product for an already normalised query.
    public static func score(_ query: String, _ product: Product) -> Int {
        let name = product.normalizedName
        var score = 0
        if name == query { score += 100 }
        if name.hasPrefix(query) { score += 50 }
        if name.contains(query) { score += 25 }
        if score == 0,
            NameSimilarity.matches(query, name) || name.split(separator: " ").contains(where: { NameSimilarity.matches(query, String($0)) })
        {
            score += 20
        }
        if let brand = product.brand.map(ProductName.folded), !brand.isEmpty, brand == query || brand.contains(query) {
            score += 10
        }
        return score
    }
}
