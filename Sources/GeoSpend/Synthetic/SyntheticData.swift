import Foundation

/// A small, fast, seedable generator (SplitMix64, Steele et al. 2014): the same seed gives the
/// same stream on every platform, unlike `SystemRandomNumberGenerator`.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }
    /// Standard normal (Box–Muller).
    public mutating func gaussian() -> Double {
        let u1 = max(unit(), 1e-300), u2 = unit()
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}

/// Deterministic synthetic expenses of people visiting real places (docs/DOMAIN.md § Synthetic data).
///
/// - `city`: the given places as they are (the 936 Helsinki places of `Data/`).
/// - `region`: the places copied onto a grid of towns 22 km apart (ids `ID~tN`), until there
///   are `storeCount` stores: a region the size of southern Finland for benchmarks.
/// Each user lives in one town, has favourite places there (Zipf-weighted), and now and then
/// shops elsewhere. Amounts follow the place kind; positions carry GPS noise (σ 8–40 m) with the
/// accuracy reported; about 8 % of expenses have no position; 30 % name their store; currencies
/// are mostly EUR with SEK, USD, JPY and KWD. Income (monthly salary) and transfers have no place.
/// Popular stores (`popular`) are every user's top favourites, so a few stores get many users in
/// every month and hour — what a cross-user store report needs to publish anything (the demo).
public struct SyntheticData: Sendable {
    public enum Scale: String, Sendable, CaseIterable { case city, region }

    public let stores: [Store]
    private let towns: [[Int]]  // store indices per town

    /// - Parameters:
    ///   - places: the real places to start from.
    ///   - scale: `city` keeps them; `region` copies them into towns.
    ///   - storeCount: the number of stores for `region` (ignored for `city`).
    public init(places: [Store], scale: Scale, storeCount: Int = 50_000) {
        precondition(!places.isEmpty)
        guard scale == .region else {
            stores = places
            towns = [Array(places.indices)]
            return
        }
        let townCount = max(1, (storeCount + places.count - 1) / places.count)
        let side = Int(Double(townCount).squareRoot().rounded(.up))
        var all: [Store] = []
        var towns: [[Int]] = []
        all.reserveCapacity(storeCount)
        outer: for t in 0..<townCount {
            let dLat = Double(t / side) * 0.2 - Double(side / 2) * 0.2
            let dLon = Double(t % side) * 0.4 - Double(side / 2) * 0.4
            var members: [Int] = []
            for p in places {
                if all.count == storeCount { if !members.isEmpty { towns.append(members) }; break outer }
                var s = p
                s.id = t == 0 ? p.id : "\(p.id)~t\(t)"
                s.coordinate = Coordinate(
                    uncheckedLatitude: p.coordinate.latitude + dLat, longitude: p.coordinate.longitude + dLon)
                s.sourceID = t == 0 ? p.sourceID : nil
                members.append(all.count)
                all.append(s)
            }
            towns.append(members)
        }
        stores = all
        self.towns = towns
    }

    /// Calls `emit` for each of `count` expenses of `users` users, in a fixed order.
    /// Times fall in the 365 days from `start` (default 2025-01-01T00:00:00Z).
    /// - Parameter popular: indices into `stores` (at most 25) that every user has as their top
    ///   favourites, rotated so each is some users' first; the random draws are the same as
    ///   without them, so an empty list gives the same expenses as before the option existed.
    /// - Parameter idPrefix: the ids are this and the expense's number from 1 (`e1`, `e2`, …).
    public func generateExpenses(
        users: Int, count: Int, seed: UInt64, start: Int64 = 1_735_689_600, popular: [Int] = [], idPrefix: String = "e",
        emit: (Expense) throws -> Void
    ) rethrows {
        precondition(popular.count <= 25 && popular.allSatisfy { stores.indices.contains($0) })
        var rng = SplitMix64(seed: seed)
        let eur = try! Currency(code: "EUR")
        let currencies = ["SEK", "USD", "JPY", "KWD"].map { try! Currency(code: $0) }
        // Per user: a town, 25 favourite places, and a monthly salary.
        var favourites: [[Int]] = []
        for _ in 0..<users {
            let town = towns[Int(rng.next() % UInt64(towns.count))]
            favourites.append((0..<25).map { _ in town[Int(rng.next() % UInt64(town.count))] })
            let u = favourites.count - 1
            for rank in popular.indices { favourites[u][rank] = popular[(rank + u) % popular.count] }
        }
        let zipf = (1...25).map { 1 / Double($0) }
        let zipfTotal = zipf.reduce(0, +)
        for n in 0..<count {
            let user = Int(rng.next() % UInt64(users))
            let userID = "user\(user + 1)"
            let day = Int64(rng.next() % 365)
            let id = "\(idPrefix)\(n + 1)"
            let roll = rng.unit()
            if roll < 0.02 {  // salary or a transfer, no place
                let isIncome = rng.unit() < 0.5
                let minor = Int64(200_000 + rng.next() % 300_000)
                let t = Timestamp(epochSeconds: start + day * 86_400 + 9 * 3600, utcOffsetMinutes: offset(day))
                try emit(Expense(
                    id: id, userID: userID, kind: isIncome ? .income : .transfer,
                    amount: Money(minorUnits: isIncome ? minor : minor / 10, currency: eur), occurredAt: t,
                    title: isIncome ? "Salary" : "To savings", category: isIncome ? "Salary" : nil))
                continue
            }
            // Pick a place: a favourite (Zipf) 85 % of the time, else anywhere.
            let storeIndex: Int
            if rng.unit() < 0.85 {
                var r = rng.unit() * zipfTotal
                var k = 0
                while k < 24 && r >= zipf[k] { r -= zipf[k]; k += 1 }
                storeIndex = favourites[user][k]
            } else {
                storeIndex = Int(rng.next() % UInt64(stores.count))
            }
            let store = stores[storeIndex]
            let (low, high, category, hours) = profile(store.kind)
            let eurMinor = Int64((low + (high - low) * pow(rng.unit(), 2)) * 100)
            var currency = eur
            var minor = max(1, eurMinor)
            if rng.unit() < 0.06 {
                currency = currencies[Int(rng.next() % UInt64(currencies.count))]
                let rate: Double = ["SEK": 11.5, "USD": 1.08, "JPY": 162, "KWD": 0.33][currency.code]!
                let major = Double(eurMinor) / 100 * rate
                minor = max(1, Int64((major * Double(currency.minorUnitsPerMajor)).rounded()))
            }
            let hour = hours.lowerBound + Int(rng.next() % UInt64(hours.count))
            let second = Int64(hour * 3600) + Int64(rng.next() % 3600)
            let t = Timestamp(epochSeconds: start + day * 86_400 + second - Int64(offset(day)) * 60, utcOffsetMinutes: offset(day))
            var location: ExpenseLocation?
            if rng.unit() >= 0.08 {
                let sigma = rng.unit() < 0.8 ? 8.0 : 40.0
                let north = rng.gaussian() * sigma, east = rng.gaussian() * sigma
                let lat = store.coordinate.latitude + north / 111_320
                let lon = store.coordinate.longitude + east / (111_320 * cos(store.coordinate.latitude * .pi / 180))
                location = ExpenseLocation(
                    coordinate: Coordinate(uncheckedLatitude: (lat * 1e7).rounded() / 1e7, longitude: (lon * 1e7).rounded() / 1e7),
                    accuracyMeters: (sigma * 1.5).rounded())
            }
            try emit(Expense(
                id: id, userID: userID, kind: .expense, amount: Money(minorUnits: minor, currency: currency), occurredAt: t,
                title: store.name, category: category, merchant: store.name, location: location,
                storeID: rng.unit() < 0.3 ? store.id : nil))
        }
    }

    /// Helsinki's UTC offset in minutes: EEST (+3) from April to October, EET (+2) otherwise
    /// (month-level approximation of the DST rule).
    private func offset(_ dayOfYear: Int64) -> Int { (90...303).contains(dayOfYear) ? 180 : 120 }

    /// (lowest EUR, highest EUR, category, opening hours) by place kind.
    private func profile(_ kind: String?) -> (Double, Double, String, Range<Int>) {
        switch kind ?? "" {
        case "amenity:cafe": return (2.5, 14, "Food", 7..<19)
        case "amenity:restaurant": return (12, 85, "Food", 11..<23)
        case "amenity:fast_food": return (5, 18, "Food", 10..<23)
        case "amenity:bar", "amenity:pub", "amenity:nightclub": return (6, 45, "Entertainment", 17..<24)
        case "amenity:pharmacy": return (4, 60, "Health", 9..<20)
        case "amenity:fuel": return (25, 95, "Transport", 6..<22)
        case "shop:supermarket", "shop:convenience": return (2, 120, "Food", 8..<22)
        case "shop:clothes", "shop:shoes", "shop:jewelry": return (15, 220, "Shopping", 10..<20)
        case "shop:books": return (8, 45, "Education", 10..<19)
        default: return (4, 150, "Shopping", 10..<20)
        }
    }
}
