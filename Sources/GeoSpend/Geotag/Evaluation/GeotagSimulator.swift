import Foundation

/// Simulated people living among real places, with location histories, bank statements and the
/// truth about where each payment was made, to measure the geotagger (docs/GEOTAG.md).
///
/// Deterministic: the same stores, seed and sizes give the same people, fixes and statements on
/// every platform (`SplitMix64`; no dictionary order is relied on).
///
/// Each person has a home, a workplace and favourite places, and on every day walks between
/// them: stays (home, work, lunch, 0–3 shop stops) joined by walks at 1–1.5 m/s. The phone
/// records a fix every 1–3 minutes with an accuracy radius (5–30 m outdoors, 10–45 m inside
/// shops) and Gaussian noise of that size; fixes drop out singly (10 %) and in gaps of 1–4 hours
/// (15 % of days). Payments are made during shop and lunch stays. The bank prints them the way
/// banks do: upper case, accents stripped, sometimes a processor mark (SumUp, Zettle, Square),
/// a city and country, a card number or date, the branch word dropped, the name cut at 22
/// characters; half the people's banks give only a booking date, a day late for 30 % of the
/// payments. Online purchases (web shops, subscriptions, app stores, delivery and ride apps,
/// PayPal and Klarna marks, monthly series), a salary and transfers are mixed in. A share of
/// the places (`missingStoreShare`) is left out of the registry the geotagger gets.
public struct GeotagSimulator: Sendable {
    public struct Configuration: Sendable, Hashable {
        public var seed: UInt64
        public var people: Int
        public var days: Int
        /// The share of stores left out of the registry given to the geotagger.
        public var missingStoreShare: Double
        /// The share of people whose bank prints booking dates only.
        public var dateOnlyShare: Double

        public init(seed: UInt64, people: Int = 20, days: Int = 28, missingStoreShare: Double = 0.05, dateOnlyShare: Double = 0.5) {
            self.seed = seed
            self.people = people
            self.days = days
            self.missingStoreShare = missingStoreShare
            self.dateOnlyShare = dateOnlyShare
        }
    }

    /// What really happened with one statement line.
    public struct Truth: Sendable, Hashable {
        public enum Kind: String, Sendable, Hashable { case inPerson = "in-person", online, income, transfer }
        public var kind: Kind
        /// The store paid at (in person), whether or not the registry has it.
        public var storeID: String?
        public var coordinate: Coordinate?
        public var storeInRegistry: Bool
        public var dateOnly: Bool
    }

    /// One simulated person: their history, their statement lines and the truth of each.
    public struct Person: Sendable {
        public var id: String
        public var history: LocationHistory
        public var expenses: [Expense]
        /// By expense id.
        public var truth: [String: Truth]
    }

    public let configuration: Configuration
    /// Every place, the ones left out of the registry among them.
    public let allStores: [Store]
    /// The stores the geotagger is given.
    public let registry: [Store]
    public let people: [Person]
    static let euro = try! Currency(code: "EUR")
    public static let timeZone = TimeZone(identifier: "Europe/Helsinki") ?? TimeZone(secondsFromGMT: 7200)!
    /// 2026-02-02T00:00:00+02:00: Mondays, before the switch to summer time.
    static let firstDayEpochSeconds: Int64 = 1_769_983_200

    public init(stores: [Store], configuration: Configuration) {
        self.configuration = configuration
        let stores = stores.filter { $0.name != nil }.sorted { $0.id < $1.id }
        self.allStores = stores
        var random = SplitMix64(seed: configuration.seed &* 0x9E37_79B9 &+ 17)
        var missing = Set<String>()
        for s in stores where random.unit() < configuration.missingStoreShare { missing.insert(s.id) }
        self.registry = stores.filter { !missing.contains($0.id) }
        let kinds = Kinds(stores: stores)
        var people: [Person] = []
        for p in 0..<configuration.people {
            var r = SplitMix64(seed: configuration.seed &+ UInt64(p) &* 0x1000_0001)
            people.append(Self.person(index: p, stores: stores, kinds: kinds, missing: missing, configuration: configuration, random: &r))
        }
        self.people = people
    }

    private static func jitter(_ c: Coordinate, sigmaMeters: Double, _ r: inout SplitMix64) -> Coordinate {
        let dy = r.gaussian() * sigmaMeters, dx = r.gaussian() * sigmaMeters
        return Coordinate(
            uncheckedLatitude: c.latitude + dy / 111_320,
            longitude: c.longitude + dx / (111_320 * cos(c.latitude * .pi / 180)))
    }

    private static func randomPoint(_ r: inout SplitMix64) -> Coordinate {
        Coordinate(uncheckedLatitude: 60.160 + r.unit() * 0.024, longitude: 24.925 + r.unit() * 0.040)
    }

    private static func pick<T>(_ list: [T], _ r: inout SplitMix64) -> T { list[Int(r.next() % UInt64(list.count))] }

    /// Zipf-like: the first favourites far more often than the last.
    private static func favourite(_ list: [Store], _ r: inout SplitMix64) -> Store {
        let u = r.unit()
        return list[min(list.count - 1, Int(Double(list.count) * u * u))]
    }

    static let onlineDescriptors = [
        "NETFLIX.COM", "SPOTIFY P2B1C3D4E5", "APPLE.COM/BILL", "AMZN MKTP DE*AB12CD", "WOLT HELSINKI FI", "PAYPAL *EBAY",
        "KLARNA*ZALANDO", "UBER *TRIP", "BOLT.EU/O/2603041", "STEAMGAMES.COM 4259522", "VERKKOKAUPPA.COM", "GOOGLE *YOUTUBEPREMIUM",
        "FOODORA HELSINKI", "WWW.KIRJAKAUPPA-VERKKO.FI", "PAYPAL *MUSICSHOP", "STRIPE*TEEPUBLIC", "ALIEXPRESS.COM", "HBO MAX",
    ]

    /// The places by what a person does there.
    private struct Kinds {
        let shops: [Store], eateries: [Store], chains: [Store]
        init(stores: [Store]) {
            shops = stores.filter { ($0.kind ?? "").hasPrefix("shop:") || $0.kind == "amenity:pharmacy" || $0.kind == "amenity:fuel" }
            eateries = stores.filter { ["amenity:cafe", "amenity:restaurant", "amenity:fast_food", "amenity:bar", "amenity:pub"].contains($0.kind ?? "") }
            // Several branches with one name (or one name's first word: K-Market …).
            var names: [String: Int] = [:]
            for s in stores { names[s.name ?? "", default: 0] += 1 }
            chains = stores.filter { names[$0.name ?? "", default: 0] > 1 }
        }
    }

    private static func person(index: Int, stores: [Store], kinds: Kinds, missing: Set<String>, configuration c: Configuration, random r: inout SplitMix64) -> Person {
        let id = "u\(index)"
        let home = randomPoint(&r), work = randomPoint(&r)
        let (shops, eateries, chains) = (kinds.shops, kinds.eateries, kinds.chains)
        var favouriteShops: [Store] = (0..<14).map { _ in pick(shops.isEmpty ? stores : shops, &r) }
        if !chains.isEmpty { favouriteShops.insert(contentsOf: (0..<4).map { _ in pick(chains, &r) }, at: 2) }
        let favouriteEateries: [Store] = (0..<10).map { _ in pick(eateries.isEmpty ? stores : eateries, &r) }
        // Spread evenly over the people, so a small run has both kinds.
        let dateOnly = Int(Double(index + 1) * c.dateOnlyShare) > Int(Double(index) * c.dateOnlyShare)
        let subscription = (pick(["NETFLIX.COM", "SPOTIFY P2B1C3D4E5", "HBO MAX", "GOOGLE *YOUTUBEPREMIUM"], &r), Int64(799 + r.next() % 1000))
        var positions: [Position] = []
        var expenses: [Expense] = []
        var truth: [String: Truth] = [:]
        var serial = 0
        func newID() -> String {
            serial += 1
            return "\(id)-e\(serial)"
        }
        func timestamp(_ epochSeconds: Int64, dateOnly: Bool, lateDays: Int64) -> Timestamp {
            let offset = GeotagSimulator.timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(epochSeconds))) / 60
            let t = Timestamp(epochSeconds: epochSeconds + lateDays * 86_400, utcOffsetMinutes: offset)
            guard dateOnly else { return t }
            return (try? Timestamp(parsing: t.localDate)) ?? t
        }
        for day in 0..<c.days {
            let midnight = firstDayEpochSeconds + Int64(day) * 86_400
            // Stops of the day: (place, store or nil, minutes). Weekends: no work.
            let weekend = day % 7 >= 5
            var stops: [(Coordinate, Store?, Double)] = [(home, nil, 0)]
            if !weekend { stops.append((work, nil, 180 + r.unit() * 60)) }
            let lunch = favourite(favouriteEateries, &r)
            stops.append((lunch.coordinate, lunch, 25 + r.unit() * 30))
            if !weekend { stops.append((work, nil, 150 + r.unit() * 90)) }
            let shopStops = Int(r.next() % 4)
            for _ in 0..<shopStops {
                let s = r.unit() < 0.15 ? pick(stores, &r) : favourite(favouriteShops, &r)
                stops.append((s.coordinate, s, 6 + r.unit() * 30))
            }
            stops.append((home, nil, 0))
            // Phone off for a while on some days.
            var gap: Range<Int64> = 0..<0
            if r.unit() < 0.15 {
                let from = midnight + 8 * 3600 + Int64(r.unit() * 10 * 3600)
                gap = from..<(from + 3600 + Int64(r.unit() * 3 * 3600))
            }
            var t = midnight + 7 * 3600 + Int64(r.unit() * 5400)
            var here = home
            func fix(at t: Int64, _ c: Coordinate, indoors: Bool) {
                guard !gap.contains(t), r.unit() >= 0.1 else { return }
                let accuracy = indoors ? 10 + r.unit() * 35 : 5 + r.unit() * 25
                let seen = jitter(c, sigmaMeters: accuracy / 2, &r)
                positions.append(Position(epochMilliseconds: t * 1000, coordinate: seen, accuracyMeters: (accuracy * 10).rounded() / 10, source: .googleTimeline))
            }
            for (place, store, minutes) in stops.dropFirst() {
                // Walk there.
                let distance = Geodesic.distance(here, place)
                let speed = 1.0 + r.unit() * 0.5
                let walk = Int64(distance / speed)
                var s: Int64 = 0
                while s < walk {
                    let f = Double(s) / Double(max(1, walk))
                    let c = Coordinate(uncheckedLatitude: here.latitude + f * (place.latitude - here.latitude), longitude: here.longitude + f * (place.longitude - here.longitude))
                    fix(at: t + s, c, indoors: false)
                    s += 60 + Int64(r.next() % 60)
                }
                t += walk
                here = place
                let stay = Int64(minutes * 60)
                // Inside: a fix every 1–3 minutes around the place.
                var k: Int64 = 0
                while k < stay {
                    fix(at: t + k, place, indoors: store != nil)
                    k += 60 + Int64(r.next() % 120)
                }
                if let store {
                    let paidAt = t + Int64(Double(stay) * (0.3 + 0.6 * r.unit()))
                    let late: Int64 = dateOnly && r.unit() < 0.3 ? 1 : 0
                    let e = newID()
                    let amount = Int64(150 + r.next() % 6000)
                    expenses.append(Expense(
                        id: e, userID: id, amount: Money(minorUnits: amount, currency: GeotagSimulator.euro),
                        occurredAt: timestamp(paidAt, dateOnly: dateOnly, lateDays: late),
                        merchant: descriptor(for: store, &r)))
                    truth[e] = Truth(kind: .inPerson, storeID: store.id, coordinate: store.coordinate, storeInRegistry: !missing.contains(store.id), dateOnly: dateOnly)
                }
                t += stay
            }
            // Online purchases, made wherever the person was.
            if r.unit() < 0.35 {
                let e = newID()
                let when = midnight + 9 * 3600 + Int64(r.unit() * 12 * 3600)
                expenses.append(Expense(
                    id: e, userID: id, amount: Money(minorUnits: Int64(300 + r.next() % 9000), currency: GeotagSimulator.euro),
                    occurredAt: timestamp(when, dateOnly: dateOnly, lateDays: 0), title: pick(onlineDescriptors, &r)))
                truth[e] = Truth(kind: .online, storeID: nil, coordinate: nil, storeInRegistry: false, dateOnly: dateOnly)
            }
            // The monthly subscription, same amount, same day; the salary; a transfer.
            if day % 28 == 3 {
                let e = newID()
                expenses.append(Expense(
                    id: e, userID: id, amount: Money(minorUnits: subscription.1, currency: GeotagSimulator.euro),
                    occurredAt: timestamp(midnight + 4 * 3600, dateOnly: dateOnly, lateDays: 0), merchant: subscription.0 == "HBO MAX" ? "HBO MAX" : "SUBSCR " + subscription.0))
                truth[e] = Truth(kind: .online, storeID: nil, coordinate: nil, storeInRegistry: false, dateOnly: dateOnly)
            }
            if day % 28 == 20 {
                let e = newID()
                expenses.append(Expense(
                    id: e, userID: id, kind: .income, amount: Money(minorUnits: 320_000, currency: GeotagSimulator.euro),
                    occurredAt: timestamp(midnight + 10 * 3600, dateOnly: dateOnly, lateDays: 0), merchant: "PALKKA ACME OY"))
                truth[e] = Truth(kind: .income, storeID: nil, coordinate: nil, storeInRegistry: false, dateOnly: dateOnly)
            }
            if day % 9 == 5 {
                let e = newID()
                expenses.append(Expense(
                    id: e, userID: id, kind: .transfer, amount: Money(minorUnits: 5_000, currency: GeotagSimulator.euro),
                    occurredAt: timestamp(t, dateOnly: dateOnly, lateDays: 0), title: "OMA TILISIIRTO"))
                truth[e] = Truth(kind: .transfer, storeID: nil, coordinate: nil, storeInRegistry: false, dateOnly: dateOnly)
            }
        }
        return Person(id: id, history: LocationHistory(positions: positions), expenses: expenses, truth: truth)
    }

    static let branchWords: Set<String> = [
        "KAMPPI", "KLUUVI", "ESPLANADI", "HAKANIEMI", "EROTTAJA", "KAISANIEMI", "RAUTATIENTORI", "KASARMITORI", "POSTITALO",
        "SANOMATALO", "KESKUSTA", "FORUM", "KAIVOPIHA", "LONNROTINKATU", "ELIEL", "KOTIKONTU", "SOKOS", "HELSINKI", "STOCKMANN",
        "KAISANIEMENKATU", "MANNERHEIMINTIE", "ALEKSI", "ALEKSANTERINKATU", "KRUUNUNHAKA", "PUNAVUORI", "ULLANLINNA",
    ]

    /// What a bank prints for a card payment at `store`.
    static func descriptor(for store: Store, _ r: inout SplitMix64) -> String {
        var name = MerchantDescriptor.upperASCII(store.name ?? "")
        var words = name.split(separator: " ")
        // The branch word dropped: "K-MARKET KAMPPI" → "K-MARKET" (districts and landmarks
        // of central Helsinki that chains name their branches after).
        if words.count >= 2, let last = words.last, branchWords.contains(String(last)), r.unit() < 0.6 { words.removeLast() }
        name = words.joined(separator: " ")
        let u = r.unit()
        if u < 0.1 { name = "SUMUP  *" + name } else if u < 0.17 { name = "IZ *" + name } else if u < 0.22 { name = "SQ *" + name } else if u < 0.25 { name = "ZETTLE_*" + name }
        // The network's 22-character name field.
        if name.count > 22, r.unit() < 0.8 { name = String(name.prefix(22)) }
        let v = r.unit()
        if v < 0.4 { name += " HELSINKI FI" } else if v < 0.55 { name += " HELSINKI" } else if v < 0.65 { name += " FIN" }
        let w = r.unit()
        if w < 0.15 { name = "KORTTIOSTO \(10 + r.next() % 18).0\(1 + r.next() % 9) " + name } else if w < 0.25 { name += " XXXX\(1000 + r.next() % 9000)" }
        return name
    }
}
