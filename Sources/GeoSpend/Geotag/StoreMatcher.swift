/// A store the merchant text may name, with how well the names agree (0…1).
public struct StoreCandidate: Sendable, Hashable {
    public var store: Store
    /// How well the descriptor's name matches the store's: 1 for the same name, ~0.9 for a
    /// chain name without its branch word or a truncated name, less for misspellings.
    public var score: Double
    /// Whether the descriptor named this very branch (its branch word, street or postcode).
    public var branchNamed: Bool

    public init(store: Store, score: Double, branchNamed: Bool) {
        self.store = store
        self.score = score
        self.branchNamed = branchNamed
    }
}

/// Finds the stores of a registry that a merchant descriptor may name: by the store's name,
/// its OSM `brand`, the name without its branch word (K-Market *Kamppi*), and — to tell
/// branches apart — the branch word, street, city and postcode in the text.
///
/// A chain's branches all match alike; which one was paid at is for the history to decide
/// (`Geotagger`), never for the matcher to guess.
///
/// Indexed by the first three letters of the folded, space-free name, so a look-up compares
/// against a bucket, not the registry.
public struct StoreMatcher: Sendable {
    private struct Entry: Sendable {
        let store: Store
        /// Folded names without spaces: the full name, the brand.
        let keys: [String]
        /// Words of the name that tell this branch from others: not the first, four letters or
        /// more, in no other name of its chain and in at most three names of the registry
        /// ("kamppi", not "market").
        let branchWords: [String]
    }

    private let entries: [Entry]
    private let buckets: [String: [Int]]
    /// The least score a candidate needs.
    public var minimumScore: Double

    /// - Complexity: O(n) in the stores.
    public init(stores: [Store], minimumScore: Double = 0.8) {
        var entries: [Entry] = []
        var buckets: [String: [Int]] = [:]
        // Word counts over the registry and within each chain (names with the same first word).
        var frequency: [String: Int] = [:]
        var inChain: [String: Int] = [:]
        for store in stores {
            let words = MerchantDescriptor.fold(store.name ?? "").split(separator: " ").map(String.init)
            for w in Set(words) {
                frequency[w, default: 0] += 1
                inChain["\(words[0])|\(w)", default: 0] += 1
            }
        }
        for store in stores {
            var keys: [String] = []
            for text in [store.name, store.brand] {
                guard let text else { continue }
                let k = MerchantDescriptor.fold(text).replacingOccurrences(of: " ", with: "")
                if k.count >= 2 && !keys.contains(k) { keys.append(k) }
            }
            guard !keys.isEmpty else { continue }
            let nameWords = MerchantDescriptor.fold(store.name ?? "").split(separator: " ").map(String.init)
            let branchWords = nameWords.dropFirst().filter {
                $0.count >= 4 && frequency[$0, default: 0] <= 3 && inChain["\(nameWords[0])|\($0)", default: 0] == 1
            }
            let index = entries.count
            entries.append(Entry(store: store, keys: keys, branchWords: branchWords))
            for k in Set(keys.map { String($0.prefix(3)) }) { buckets[k, default: []].append(index) }
        }
        self.entries = entries
        self.buckets = buckets
        self.minimumScore = minimumScore
    }

    /// The stores the descriptor may name, best first (ties by store id, so the order is
    /// deterministic).
    /// - Complexity: O(b · L²) for a bucket of b names of length L.
    public func candidates(for descriptor: MerchantDescriptor) -> [StoreCandidate] {
        let folded = descriptor.matchKey
        let words = folded.split(separator: " ").map(String.init)
        let key = words.joined()
        guard key.count >= 2 else { return [] }
        var out: [StoreCandidate] = []
        for i in buckets[String(key.prefix(3)), default: []] {
            let entry = entries[i]
            var best = 0.0
            for k in entry.keys { best = max(best, Self.score(descriptor: key, store: k, truncated: descriptor.mayBeTruncated)) }
            guard best >= minimumScore else { continue }
            var branchNamed = entry.branchWords.contains { w in words.contains(w) }
            if let postcode = entry.store.postcode, descriptor.text.contains(postcode) { branchNamed = true }
            if let street = entry.store.street.map(MerchantDescriptor.fold), let first = street.split(separator: " ").first,
                first.count >= 5, words.dropFirst().contains(String(first))
            {
                branchNamed = true
            }
            var score = best
            if let city = descriptor.city, let storeCity = entry.store.city,
                MerchantDescriptor.fold(storeCity) != MerchantDescriptor.fold(city)
            {
                score *= 0.5  // printed in another city
            }
            if score >= minimumScore { out.append(StoreCandidate(store: entry.store, score: score, branchNamed: branchNamed)) }
        }
        // Only branches the text names, when it names one.
        if out.contains(where: \.branchNamed) { out.removeAll { !$0.branchNamed } }
        out.sort { ($0.score, $1.store.id) > ($1.score, $0.store.id) }
        return out
    }

    /// How well a descriptor's name (folded, no spaces) names a store's (the same form).
    static func score(descriptor d: String, store s: String, truncated: Bool) -> Double {
        if d == s { return 1 }
        // "kmarket" in "kmarketkamppi": the branch word dropped; "kmarketkamp" cut short.
        if s.hasPrefix(d) && d.count >= 4 { return d.count >= 6 || truncated ? 0.92 : 0.85 }
        // "kmarketkamppihelsin": the store's name followed by words not stripped.
        if d.hasPrefix(s) && s.count >= 4 { return 0.9 }
        let x = Array(d), y = Array(s)
        // Truncation and typos: compare with the store's name cut to the descriptor's length.
        let yCut = truncated && y.count > x.count ? Array(y.prefix(x.count)) : y
        let longest = max(x.count, yCut.count)
        guard longest >= 5 else { return 0 }
        let distance = EditDistance.levenshtein(x, yCut)
        return 0.9 * (1 - Double(distance) / Double(longest))
    }
}
