/// How alike two product names are: `1 − levenshtein(a, b) / max(len a, len b)` on their
/// normalised forms (`ProductName.normalized`), counted in characters. AllesTeurer's rule: a
/// name whose similarity to a known product exceeds 0.85 is that product. Imports, receipts and
/// shopping lists match names through this one function.
///
/// ```swift
/// NameSimilarity.similarity("vollmilch", "vollmilk")  // 1 − 1/9 ≈ 0.889: the same product
/// NameSimilarity.similarity("milch", "milk")          // 1 − 1/5 = 0.8: another product
/// ```
public enum NameSimilarity {
    /// Strictly above this is a match; exactly 0.85 is not (the seed says "exceeds").
    public static let threshold = 0.85

    /// Similarity in 0…1 of two already normalised names; two empty names are identical (1).
    public static func similarity(_ a: String, _ b: String) -> Double {
        let x = Array(a), y = Array(b)
        let longest = max(x.count, y.count)
        guard longest > 0 else { return 1 }
        return 1 - Double(EditDistance.levenshtein(x, y)) / Double(longest)
    }

    /// Whether two normalised names name the same product. Compared as integers
    /// (`distance × 100 < longest × 15`), so a similarity of exactly 0.85 — 3 edits in 20
    /// characters — is not a match however the division rounds.
    public static func matches(_ a: String, _ b: String) -> Bool {
        let x = Array(a), y = Array(b)
        let longest = max(x.count, y.count)
        guard longest > 0 else { return true }
        return EditDistance.levenshtein(x, y) * 100 < longest * 15
    }
}
