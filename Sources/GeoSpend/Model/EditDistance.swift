/// Levenshtein distance: the fewest insertions, deletions and substitutions that turn one
/// sequence into the other. "Did you mean …?" suggestions for columns, users, categories and
/// store kinds all measure closeness with it.
public enum EditDistance {
    /// One row of the table at a time: O(a × b) time, O(b) memory.
    public static func levenshtein<A: Collection, B: Collection>(_ a: A, _ b: B) -> Int
    where A.Element == B.Element, A.Element: Equatable {
        let b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for (i, x) in a.enumerated() {
            current[0] = i + 1
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
