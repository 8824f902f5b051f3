import Foundation

/// A receipt's header matched into the store registry (`receipts scan --stores`, issue 42): the
/// printed name, street, postcode and phone against each store's name, street and postcode,
/// compared without case and diacritics, so OCR's `Cafe` finds `Café`.
///
/// A store matches when its name is alike (NameSimilarity above 0.85), or the name is at least
/// 0.6 alike and the postcode or the street agrees too. The best score wins; a tie between two
/// different stores is no match (the receipt names neither for sure).
///
/// ```swift
/// let hit = StoreMatch.best(for: scan.header, among: stores)
/// hit?.store.id   // "k1"
/// ```
public enum StoreMatch {
    public struct Hit: Sendable {
        public let store: Store
        /// 0…3: name similarity, plus one each for an equal postcode and a like street.
        public let score: Double
    }

    /// - Complexity: O(n · m²) for n stores and names of m characters.
    public static func best(for header: ReceiptScan.Header, among stores: [Store]) -> Hit? {
        guard let name = header.name.map(key), !name.isEmpty else { return nil }
        var best: Hit?
        var tie = false
        for store in stores {
            guard let storeName = store.name.map(key) else { continue }
            let similarity = NameSimilarity.similarity(name, storeName)
            let postcode = header.postcode != nil && header.postcode.map(key) == store.postcode.map(key)
            let street = header.street.map(key).map { s in store.street.map { NameSimilarity.similarity(s, key($0)) > 0.8 } ?? false } ?? false
            guard similarity > NameSimilarity.threshold || (similarity >= 0.6 && (postcode || street)) else { continue }
            let score = similarity + (postcode ? 1 : 0) + (street ? 1 : 0)
            if let b = best, abs(b.score - score) < 1e-9, b.store.id != store.id { tie = true; continue }
            if best == nil || score > best!.score {
                best = Hit(store: store, score: score)
                tie = false
            }
        }
        return tie ? nil : best
    }

    /// Lower case, no diacritics, one space between words.
    static func key(_ s: String) -> String {
        s.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil).lowercased()
            .split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}
