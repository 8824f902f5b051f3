import Foundation

/// Answer comparisons between GeoSpend and another engine. Each returns nil when the answers
/// agree, else a one-line description of the first difference.
enum CrossCheck {
    /// Radius answers: the same expense ids (one within 1 mm of the circle may be on either
    /// side), and the same distance for each within 1 mm.
    static func radius(_ ours: [Found], _ theirs: [Found], radius: Double) -> String? {
        let mine = Dictionary(ours.map { ($0.id, $0.meters) }, uniquingKeysWith: { a, _ in a })
        let other = Dictionary(theirs.map { ($0.id, $0.meters) }, uniquingKeysWith: { a, _ in a })
        guard mine.count == ours.count, other.count == theirs.count else { return "an expense id appears twice" }
        for (id, d) in mine {
            if let e = other[id] {
                if abs(e - d) > 0.001 { return "\(id): \(d) m here, \(e) m there" }
            } else if abs(d - radius) > 0.001 {
                return "\(id) at \(d) m only here (\(ours.count) vs \(theirs.count) rows)"
            }
        }
        for (id, e) in other where mine[id] == nil && abs(e - radius) > 0.001 {
            return "\(id) at \(e) m only there (\(ours.count) vs \(theirs.count) rows)"
        }
        return nil
    }

    /// Nearest stores: the same number, the same distance rank by rank within 1 cm, and the same
    /// store at each rank unless two stores tie within 1 cm (GeoSpend breaks ties by id).
    static func nearest(_ ours: [Found], _ theirs: [Found]) -> String? {
        guard ours.count == theirs.count else { return "\(ours.count) stores here, \(theirs.count) there" }
        for (rank, (a, b)) in zip(ours, theirs).enumerated() {
            if abs(a.meters - b.meters) > 0.01 {
                return "rank \(rank + 1): \(a.id) at \(a.meters) m here, \(b.id) at \(b.meters) m there"
            }
        }
        // Equal distances rank by rank; the ids may differ only within a tie.
        let mine = Set(ours.map(\.id)), other = Set(theirs.map(\.id))
        guard let last = ours.last, mine != other else { return nil }
        for id in mine.symmetricDifference(other) {
            let d = (ours + theirs).first { $0.id == id }!.meters
            if abs(d - last.meters) > 0.01 { return "\(id) at \(d) m is in only one answer" }
        }
        return nil
    }

    /// Per-store insights and grid cells: exactly the same rows (counts and exact totals).
    static func sameRows<T: Hashable>(_ ours: [T], _ theirs: [T]) -> String? {
        let mine = Set(ours), other = Set(theirs)
        if mine == other && mine.count == ours.count && other.count == theirs.count { return nil }
        let onlyMine = mine.subtracting(other), onlyTheirs = other.subtracting(mine)
        return "\(ours.count) rows here, \(theirs.count) there; only here: \(onlyMine.prefix(2).map { "\($0)" }), only there: \(onlyTheirs.prefix(2).map { "\($0)" })"
    }
}
