/// The bookkeeping behind `LocationInsights.compute`: rows grouped by (place, currency) as
/// small integers, and distinct days counted with bits.
extension LocationInsights {
    /// A row's figures, before the store and timestamp lookups are joined in.
    struct PlaceFigures {
        let stats: AmountStatistics
        let visitDays: Int
        let topCategory: String?
        let change: WindowChange?
        let centroid: Coordinate?
    }

    /// A place in one currency, while it is being summed.
    struct Group {
        let place: Int
        let currency: Int
        var count = 0
        var totalMinor: Int64 = 0
        /// Rows of the first and last visits (`SpendingColumns.isEarlier`).
        var first: Int, last: Int
    }

    /// The (place, currency) groups of the rows, numbered as they are first met: the stores'
    /// first, then, once clustering has numbered them, the clusters'.
    struct PlaceGroups {
        let rows: SpendingColumns
        private(set) var all: [Group] = []
        /// Each row's group; -1 for rows with no place.
        private var groupOf: [Int32]
        /// The group of place p in currency c at `p * currencies + c`; -1 for none yet.
        private var groupOfKey: [Int32]
        private let currencies: Int

        init(rows: SpendingColumns, placeCount: Int) {
            self.rows = rows
            currencies = rows.currencies.count
            groupOf = [Int32](repeating: -1, count: rows.count)
            groupOfKey = [Int32](repeating: -1, count: placeCount * currencies)
        }

        var count: Int { all.count }

        /// Makes room for `n` more places.
        mutating func addPlaces(_ n: Int) { groupOfKey += [Int32](repeating: -1, count: n * currencies) }

        mutating func add(_ i: Int, place: Int32) {
            let currency = Int(rows.currencyNumber[i]), key = Int(place) * currencies + currency
            var g = groupOfKey[key]
            if g < 0 {
                g = Int32(all.count)
                groupOfKey[key] = g
                all.append(Group(place: Int(place), currency: currency, first: i, last: i))
            } else {
                // Not for the group's first row: comparing a row with itself compares its id as
                // strings (two thirds of `add`'s instructions, callgrind, session 15).
                if rows.isEarlier(i, than: all[Int(g)].first) { all[Int(g)].first = i }
                if rows.isEarlier(all[Int(g)].last, than: i) { all[Int(g)].last = i }
            }
            groupOf[i] = g
            all[Int(g)].count += 1
            all[Int(g)].totalMinor += rows.amountMinor[i]
        }

        func group(place: Int32, currency: Int) -> Int32? {
            let g = groupOfKey[Int(place) * currencies + currency]
            return g < 0 ? nil : g
        }

        /// The ids of the first and last visits of these groups.
        func visitIDs(of groups: Range<Int>) -> Set<String> {
            Set(all[groups].flatMap { [rows.id($0.first), rows.id($0.last)] })
        }

        /// Each group's rows, contiguous (a counting sort by group): group g's are
        /// `members[start[g]..<start[g + 1]]`.
        func members() -> (start: [Int], members: [Int]) {
            var start = [Int](repeating: 0, count: all.count + 1)
            for (g, group) in all.enumerated() { start[g + 1] = start[g] + group.count }
            var members = [Int](repeating: 0, count: start[all.count])
            var fill = start
            for (i, g) in groupOf.enumerated() where g >= 0 {
                members[fill[Int(g)]] = i
                fill[Int(g)] += 1
            }
            return (start, members)
        }
    }

    /// Counts distinct day numbers with a bit per day over their range (sorting every group's
    /// days was a fifth of the figures' time); a sort when the range is too long for bits.
    struct DistinctDays {
        private var bits: [UInt64] = []

        /// Distinct `dayOf[i]` for the `members`.
        mutating func count(_ members: ArraySlice<Int>, _ dayOf: [Int32]) -> Int {
            var low = Int32.max, high = Int32.min
            for i in members {
                low = min(low, dayOf[i])
                high = max(high, dayOf[i])
            }
            guard low <= high else { return 0 }
            let words = Int(high - low) / 64 + 1
            guard words <= 1 << 12 else { return Set(members.map { dayOf[$0] }).count }  // over 700 years apart
            if bits.count < words { bits = [UInt64](repeating: 0, count: words) }
            for i in members {
                let d = Int(dayOf[i] - low)
                bits[d >> 6] |= 1 << UInt64(d & 63)
            }
            var n = 0
            for w in 0..<words {
                n += bits[w].nonzeroBitCount
                bits[w] = 0
            }
            return n
        }
    }
}
