import Foundation
import GeoSpend
import GeoSpendPostGIS
import GeoSpendSpatiaLite
import GeoSpendTestStores
import Testing

/// The stores a contract test runs against: every store behind the seam must pass the same suite.
/// PostGIS runs where `$GEOSPEND_TEST_POSTGRES` names a server (`make test` starts one:
/// scripts/with-postgis.sh); `PostGISTestServer.isRequired` makes its absence a failure there.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible {
    case spatiaLite, memory, postGIS

    static var allCases: [StoreKind] { PostGISTestServer.address == nil ? [.spatiaLite, .memory] : [.spatiaLite, .memory, .postGIS] }

    func make(in scratch: Scratch) async throws -> any ExpenseStore {
        switch self {
        case .spatiaLite: try scratch.store()
        case .memory: MemoryStore()
        case .postGIS: try await PostGISTestServer.freshStore()
        }
    }

    var testDescription: String { rawValue }
}

/// The storage seam's promises (`ExpenseStore`, `ExpenseReader`, `ExpenseWriter`), checked on
/// each store through the seam alone, with brute-force oracles over the rows written: the
/// 936 Helsinki places of `Data/` with generated expenses (`SyntheticData`), and random stores
/// around the world for the nearest-store walks. Last, the analytics on both stores must agree.
@Suite struct StoreContractTests {
    /// A store with the Helsinki places and 5,000 generated expenses of 4 users (more than one
    /// read batch), and the rows as written.
    struct Loaded {
        let scratch = Scratch()
        let store: any ExpenseStore
        let stores: [Store]
        let expenses: [Expense]

        init(_ kind: StoreKind, users: Int = 4, count: Int = 5000, keep: (Expense) -> Bool = { _ in true }) async throws {
            store = try await kind.make(in: scratch)
            stores = try Importer.readStores(from: Repo.path("Data/helsinki-places.geojson"))
            var all: [Expense] = []
            SyntheticData(places: stores, scale: .city).generateExpenses(users: users, count: count, seed: 11) { if keep($0) { all.append($0) } }
            expenses = all
            try await StoreContractTests.write(stores, all, into: store)
        }
    }

    /// Writes stores then expenses in one write scope, in batches; every row must go in.
    static func write(_ stores: [Store], _ expenses: [Expense], into store: some ExpenseStore) async throws {
        let outcomes = try await store.write { w in
            try w.insert(stores.map { HashedRow($0, contentHash: $0.contentHash) })
                + stride(from: 0, to: expenses.count, by: 1000).flatMap { start in
                    try w.insert(expenses[start..<min(start + 1000, expenses.count)].map { HashedRow($0, contentHash: $0.contentHash) })
                }
        }
        #expect(outcomes.allSatisfy { $0 == .inserted })
    }

    // MARK: Queries against brute force

    @Test(arguments: StoreKind.allCases)
    func radiusEqualsBruteForce(kind: StoreKind) async throws {
        let data = try await Loaded(kind)
        var rng = SplitMix64(seed: 5)
        let filters: [ExpenseFilter] = [
            ExpenseFilter(userID: "user1"), ExpenseFilter(userID: nil),
            ExpenseFilter(userID: "user2", from: try Timestamp(parsing: "2025-03-01"), to: try Timestamp(parsing: "2025-06-30")),
            ExpenseFilter(userID: nil, kinds: [.expense], categories: ["food"], currency: try Currency(code: "EUR")),
        ]
        for _ in 0..<25 {
            let center = Coordinate(uncheckedLatitude: 60.164 + rng.unit() * 0.016, longitude: 24.933 + rng.unit() * 0.022)
            let radius = Distance(meters: [50, 150, 300, 800][Int(rng.next() % 4)])
            for filter in filters {
                let got = try await data.store.read { try $0.expenses(within: radius, of: center, filter: filter) }
                let expected = data.expenses.compactMap { e -> ExpenseHit? in
                    guard let c = e.location?.coordinate, filter.matches(e) else { return nil }
                    let d = Geodesic.distance(center, c)
                    return d <= radius.meters ? ExpenseHit(expense: e, distanceMeters: d) : nil
                }.sorted(by: Ranking.byDistance)
                #expect(got.map(\.expense.id) == expected.map(\.expense.id))  // nearest first, ties by id
                #expect(got.map(\.expense) == expected.map(\.expense))  // every field as written
                #expect(zip(got, expected).allSatisfy { abs($0.distanceMeters - $1.distanceMeters) < 0.001 })
            }
        }
    }

    /// 2,000 random stores, a third of them in a band across ±180°, some near the poles.
    static func worldStores() -> [Store] {
        var rng = SplitMix64(seed: 9)
        return (0..<2000).map { i in
            let lat = i % 50 == 0 ? 89.9 + rng.unit() * 0.1 : (rng.unit() * 2 - 1) * 70
            let lon = i % 3 == 0 ? (rng.unit() < 0.5 ? 179 + rng.unit() : -180 + rng.unit()) : rng.unit() * 360 - 180
            return Store(
                id: String(format: "s%04d", i), name: "S\(i)", kind: i % 3 == 1 ? "amenity:cafe" : "shop:supermarket",
                coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon))
        }
    }

    static let worldCentres: [Coordinate] = {
        var rng = SplitMix64(seed: 3)
        return [(10.0, 179.9999), (-5.0, 180.0), (89.99, 0.0), (0.0, 0.0), (-60.0, 179.99), (-90.0, 0.0)]
            .map { Coordinate(uncheckedLatitude: $0.0, longitude: $0.1) }
            + (0..<12).map { _ in Coordinate(uncheckedLatitude: (rng.unit() * 2 - 1) * 90, longitude: rng.unit() * 360 - 180) }
    }()

    static func bruteForce(_ stores: [Store], _ center: Coordinate, kind: String?, within meters: Double?) -> [StoreHit] {
        stores.filter { kind == nil || $0.kind == kind }
            .map { StoreHit(store: $0, distanceMeters: Geodesic.distance(center, $0.coordinate)) }
            .filter { meters == nil || $0.distanceMeters <= meters! }
            .sorted(by: Ranking.byDistance)
    }

    static func sameHits(_ got: [StoreHit], _ expected: some Collection<StoreHit>) -> Bool {
        got.map(\.store) == expected.map(\.store)
            && zip(got, expected).allSatisfy { abs($0.distanceMeters - $1.distanceMeters) < 0.001 }
    }

    @Test(arguments: StoreKind.allCases)
    func nearestStoresEqualBruteForce(kind: StoreKind) async throws {
        let scratch = Scratch()
        let store = try await kind.make(in: scratch)
        let stores = Self.worldStores()
        try await Self.write(stores, [], into: store)
        for center in Self.worldCentres {
            for (k, kind, max) in [(1, nil, nil), (5, nil, nil), (20, "amenity:cafe", nil), (5, nil, 1_500_000.0), (3, nil, 300_000.0)] as [(Int, String?, Double?)] {
                let expected = Self.bruteForce(stores, center, kind: kind, within: max).prefix(k)
                let ask: @Sendable (any ExpenseReader) throws -> [StoreHit] = {
                    try $0.nearestStores(to: center, limit: k, maxDistance: max.map(Distance.init(meters:)), kind: kind)
                }
                // A quick read too (on PostgreSQL the same as a read: `quickRead`'s default).
                for (got, how) in [(try await store.read(ask), "read"), (try await store.quickRead(ask), "quick read")] {
                    #expect(Self.sameHits(got, expected), "\(how): \(center) k=\(k) kind=\(kind ?? "-") max=\(max ?? 0)")
                }
            }
        }
        #expect(try await store.read { try $0.nearestStores(to: Self.worldCentres[0], limit: 0, maxDistance: nil, kind: nil) }.isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func storesWithinEqualBruteForce(kind: StoreKind) async throws {
        let scratch = Scratch()
        let store = try await kind.make(in: scratch)
        let stores = Self.worldStores()
        try await Self.write(stores, [], into: store)
        for center in Self.worldCentres {
            for (radius, kind) in [(800_000.0, nil), (2_000_000.0, "amenity:cafe"), (10.0, nil)] as [(Double, String?)] {
                let got = try await store.read { try $0.stores(within: Distance(meters: radius), of: center, kind: kind) }
                #expect(Self.sameHits(got, Self.bruteForce(stores, center, kind: kind, within: radius)), "\(center) r=\(radius)")
            }
        }
    }

    /// Stores on a ring, their geodesic distances a few centimetres apart: on PostgreSQL the
    /// sphere's order of the `<->` candidates is not the spheroid's, and the last candidate is
    /// too close to rule out the stores left out, so the statement runs again for more
    /// candidates. Random centres reach that path only far from the nearest town, where every
    /// candidate is about as far.
    @Test(arguments: StoreKind.allCases)
    func nearestStoresOnARingEqualBruteForce(kind: StoreKind) async throws {
        let scratch = Scratch()
        let store = try await kind.make(in: scratch)
        let centre = Coordinate(uncheckedLatitude: 60.17, longitude: 24.94)
        let stores = (0..<40).map { (i: Int) -> Store in
            let meters = 1000 + Double((i * 7) % 40) * 0.03
            let spot = Geodesic.destination(from: centre, azimuth: Double(i) * 9, distance: meters)
            return Store(id: "ring\(i)", name: "Ring \(i)", kind: i % 3 == 0 ? "amenity:cafe" : "shop:bakery", coordinate: spot)
        }
        // A wider ring beyond it: more candidates settle the answer before every store is read.
        let outer = (0..<60).map { (i: Int) -> Store in
            let spot = Geodesic.destination(from: centre, azimuth: Double(i) * 6 + 1, distance: 1500 + Double(i) * 0.5)
            return Store(id: "outer\(i)", name: "Outer \(i)", kind: "shop:bakery", coordinate: spot)
        }
        try await Self.write(stores + outer, [], into: store)
        for (k, kind, max) in [(1, nil, nil), (3, nil, nil), (2, "amenity:cafe", nil), (5, nil, 1000.6), (50, nil, nil)] as [(Int, String?, Double?)] {
            let got = try await store.read { try $0.nearestStores(to: centre, limit: k, maxDistance: max.map(Distance.init(meters:)), kind: kind) }
            let expected = Self.bruteForce(stores + outer, centre, kind: kind, within: max).prefix(k)
            #expect(!expected.isEmpty && Self.sameHits(got, expected), "k=\(k) kind=\(kind ?? "-") max=\(max ?? 0)")
        }
    }

    /// Three stores at one spot: equal distances go by id, in nearest and within alike.
    @Test(arguments: StoreKind.allCases)
    func tiesAreBrokenByID(kind: StoreKind) async throws {
        let scratch = Scratch()
        let store = try await kind.make(in: scratch)
        let spot = Coordinate(uncheckedLatitude: 60, longitude: 25)
        try await Self.write(["b", "a", "c"].map { Store(id: $0, name: $0.uppercased(), coordinate: spot) }, [], into: store)
        let near = Coordinate(uncheckedLatitude: 60.001, longitude: 25)
        #expect(try await store.read { try $0.nearestStores(to: near, limit: 2, maxDistance: nil, kind: nil) }.map(\.store.id) == ["a", "b"])
        #expect(try await store.read { try $0.stores(within: .meters(500), of: near, kind: nil) }.map(\.store.id) == ["a", "b", "c"])
    }

    @Test(arguments: StoreKind.allCases)
    func countsAndLookupsEqualBruteForce(kind: StoreKind) async throws {
        let data = try await Loaded(kind)
        let all = data.expenses
        let counts = try await data.store.read { try $0.counts() }
        #expect(counts == StoreCounts(
            users: Set(all.map(\.userID)).count, expenses: all.count, geotaggedExpenses: all.count(where: { $0.location != nil }),
            stores: data.stores.count))

        let someStores = Set(data.stores.prefix(40).map(\.id) + ["no-such-store"])
        let byID = try await data.store.read { try $0.stores(withIDs: someStores) }
        #expect(byID == Dictionary(uniqueKeysWithValues: data.stores.prefix(40).map { ($0.id, $0) }))

        // One user's: another user's expenses are not read, even by id.
        let someExpenses = Set(all.prefix(300).map(\.id) + ["no-such-expense"])
        let times = try await data.store.read { try $0.timestamps(ofExpenses: someExpenses, userID: "user1") }
        #expect(times == Dictionary(uniqueKeysWithValues: all.prefix(300).filter { $0.userID == "user1" }.map { ($0.id, $0.occurredAt) }))
        #expect(!times.isEmpty && times.count < 300)

        for user in ["user3", nil] as [String?] {
            let unsnapped = try await data.store.read { try $0.expensesWithoutStore(userID: user) }
            let expected = all.filter { $0.storeID == nil && $0.location != nil && (user == nil || $0.userID == user) }
                .sorted { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }
                .map { UnsnappedExpense(id: $0.id, userID: $0.userID, coordinate: $0.location!.coordinate, accuracyMeters: $0.location!.accuracyMeters, merchant: $0.merchant) }
            #expect(unsnapped == expected)
        }

        for storeKind in [nil, "amenity:cafe"] as [String?] {
            let got = try await data.store.read { try $0.allStores(kind: storeKind) }
            #expect(got == data.stores.filter { storeKind == nil || $0.kind == storeKind }.sorted { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) })
        }
    }

    /// A guess may be nil; one given lies within the box of the geotagged expenses (float
    /// rounding aside). An empty store has nothing to guess from.
    @Test(arguments: StoreKind.allCases)
    func centerHintLiesWithinTheExpenses(kind: StoreKind) async throws {
        let empty = Scratch()
        let none = try await kind.make(in: empty).read { try $0.geotaggedCenterHint() }
        #expect(none == nil)
        let data = try await Loaded(kind)
        let located = data.expenses.compactMap { $0.location?.coordinate }
        if let hint = try await data.store.read({ try $0.geotaggedCenterHint() }) {
            #expect((located.map(\.latitude).min()! - 1e-4...located.map(\.latitude).max()! + 1e-4).contains(hint.latitude))
            #expect((located.map(\.longitude).min()! - 1e-4...located.map(\.longitude).max()! + 1e-4).contains(hint.longitude))
        }
    }

    // MARK: Spending rows

    // Expectations are checked after a scope returns, not in its body: the body runs on the
    // store's threads, where Swift Testing does not know the current test and drops issues.

    /// The points of a filter, which must come in batches of 1 to `ReadBatch.size`.
    static func points(
        _ store: some ExpenseStore, _ filter: ExpenseFilter, geotaggedOnly: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [SpendingPoint] {
        let (points, batches) = try await store.read { reader in
            var points: [SpendingPoint] = [], batches: [Int] = []
            try reader.forEachSpendingPointBatch(filter, geotaggedOnly: geotaggedOnly) { batch in
                points += batch
                batches.append(batch.count)
            }
            return (points, batches)
        }
        #expect(batches.allSatisfy { (1...ReadBatch.size).contains($0) }, sourceLocation: sourceLocation)
        return points
    }

    @Test(arguments: StoreKind.allCases)
    func spendingPointsEqualBruteForce(kind: StoreKind) async throws {
        let data = try await Loaded(kind)
        let filters = [
            ExpenseFilter(userID: nil), ExpenseFilter(userID: "user2"),
            ExpenseFilter(userID: "user1", from: try Timestamp(parsing: "2025-04-01"), to: try Timestamp(parsing: "2025-04-30"), kinds: [.expense]),
            ExpenseFilter(userID: nil, kinds: [.income, .transfer]), ExpenseFilter(userID: nil, categories: ["FOOD"]),
            ExpenseFilter(userID: nil, storeIDs: Set(data.expenses.compactMap(\.storeID).prefix(30))),
        ]
        #expect(try await Self.points(data.store, ExpenseFilter(userID: nil)).allSatisfy { $0.merchant == nil })
        #expect(data.expenses.contains { $0.merchant != nil })
        for var filter in filters {
            for geotaggedOnly in [false, true] {
                let got = try await Self.points(data.store, filter, geotaggedOnly: geotaggedOnly)
                let expected = data.expenses.filter { filter.matches($0) && (!geotaggedOnly || $0.location != nil) }.map(SpendingPoint.init)
                // The order is the store's (one user's: next test); the rows are brute force's.
                #expect(got.sorted { $0.id < $1.id } == expected.sorted { $0.id < $1.id }, "\(filter) geotagged=\(geotaggedOnly)")
            }
            // The merchant only when asked for.
            filter.readsMerchant = true
            let byID = Dictionary(uniqueKeysWithValues: data.expenses.map { ($0.id, $0.merchant) })
            #expect(try await Self.points(data.store, filter).allSatisfy { $0.merchant == byID[$0.id]! })
        }
    }

    /// One user's rows come in the same order whether the store holds other users or not (maps
    /// and exports list them in it and must not reveal other users).
    @Test(arguments: StoreKind.allCases)
    func oneUsersOrderDoesNotDependOnOtherUsers(kind: StoreKind) async throws {
        let everyone = try await Loaded(kind)
        let alone = try await Loaded(kind, keep: { $0.userID == "user2" })
        for filter in [ExpenseFilter(userID: "user2"), ExpenseFilter(userID: "user2", kinds: [.expense], categories: ["food"])] {
            let shared = try await Self.points(everyone.store, filter).map(\.id)
            #expect(shared.count > 300)
            #expect(shared == (try await Self.points(alone.store, filter).map(\.id)))
            #expect(shared == (try await Self.points(alone.store, ExpenseFilter(userID: nil, kinds: filter.kinds, categories: filter.categories)).map(\.id)))
        }
    }

    /// The columns insights read: the points of the same filter, in the store's own order (one
    /// user's the same whatever other users hold), compared here row by row in id order. Store
    /// labels read with the rows (PostgreSQL's) are those `storeLabels` gives.
    @Test(arguments: StoreKind.allCases)
    func columnsEqualPoints(kind: StoreKind) async throws {
        let data = try await Loaded(kind)
        let alone = try await Loaded(kind, keep: { $0.userID == "user1" })
        let oneUser = ExpenseFilter(userID: "user1")
        let ids = { (c: SpendingColumns) in (0..<c.count).map(c.id) }
        #expect(ids(try await data.store.read { try $0.spendingColumns(oneUser) }) == ids(try await alone.store.read { try $0.spendingColumns(oneUser) }))
        var sawUnnamed = false
        for filter in [oneUser, ExpenseFilter(userID: nil, kinds: [.expense]), ExpenseFilter(userID: "user4", categories: ["Food"])] {
            let columns = Self.rows(try await data.store.read { try $0.spendingColumns(filter) })
            #expect(columns.count > 100)
            #expect(columns == Self.rows(SpendingColumns(try await Self.points(data.store, filter))))
            let (carried, labels) = try await data.store.read { r in
                let c = try r.spendingColumns(filter)
                return (c.storeLabels, try r.storeLabels(c.storeIDs))
            }
            #expect((carried != nil) == (kind == .postGIS))
            if let carried { #expect(carried.map(Self.text) == labels.map(Self.text)) }
            sawUnnamed = sawUnnamed || labels.contains { $0?.name.hasPrefix("(") == true }
        }
        #expect(sawUnnamed, "a store without a name, labelled by its kind")
    }

    static func text(_ label: (name: String, coordinate: Coordinate)?) -> String {
        label.map { "\($0.name) \($0.coordinate.latitude) \($0.coordinate.longitude)" } ?? "nil"
    }

    /// Each row of the columns as one line, numbers resolved and floats by their bits, in id order.
    static func rows(_ c: SpendingColumns) -> [String] {
        (0..<c.count).map { i in
            let store = c.storeNumber[i] < 0 ? "-" : c.storeIDs[Int(c.storeNumber[i])]
            let category = c.categoryNumber[i] < 0 ? "-" : c.categories[Int(c.categoryNumber[i])]
            return [c.id(i), "\(c.amountMinor[i])", "\(c.occurredMilliseconds[i])", "\(c.utcOffsetMinutes[i].map(String.init) ?? "-")",
                    "\(c.latitude[i].bitPattern)", "\(c.longitude[i].bitPattern)", c.currencies[Int(c.currencyNumber[i])].code, store, category]
                .joined(separator: "\u{1F}")
        }.sorted()
    }

    /// Insights' store labels: each id's display name (a store without a name shows its kind)
    /// and position, in the order asked, nil for an unknown id.
    @Test(arguments: StoreKind.allCases)
    func storeLabelsFollowTheIDsAsked(kind: StoreKind) async throws {
        let data = try await Loaded(kind)
        let unnamed = data.stores.filter { $0.name == nil }.prefix(3).map(\.id)
        #expect(!unnamed.isEmpty)
        let ids = Array(data.stores.suffix(40).map(\.id).reversed()) + ["no-such-store"] + unnamed + [data.stores[0].id]
        let labels = try await data.store.read { try $0.storeLabels(ids) }
        let text = Self.text
        let byID = Dictionary(data.stores.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        #expect(labels.map(text) == ids.map { id in text(byID[id].map { ($0.displayName, $0.coordinate) }) })
        #expect(try await data.store.read { try $0.storeLabels([]) }.isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func locatedAmountsEqualBruteForce(kind: StoreKind) async throws {
        let data = try await Loaded(kind)
        func key(_ a: LocatedAmount) -> [String] { ["\(a.latitude)", "\(a.longitude)", "\(a.amountMinor)", "\(a.currencyKey)", "\(a.userKey)"] }
        for filter in [ExpenseFilter(userID: nil), ExpenseFilter(userID: "user3", kinds: [.expense]), ExpenseFilter(userID: nil, currency: try Currency(code: "SEK"))] {
            for withUsers in [false, true] {
                let (got, batches) = try await data.store.read { reader in
                    var rows: [LocatedAmount] = [], batches: [Int] = []
                    try reader.forEachLocatedAmountBatch(filter, withUsers: withUsers) { batch in
                        rows += batch
                        batches.append(batch.count)
                    }
                    return (rows, batches)
                }
                #expect(batches.allSatisfy { (1...ReadBatch.size).contains($0) })
                let expected = data.expenses.filter { filter.matches($0) && $0.location != nil }.map { e in
                    LocatedAmount(
                        latitude: e.location!.coordinate.latitude, longitude: e.location!.coordinate.longitude, amountMinor: e.amount.minorUnits,
                        currencyKey: LocatedAmount.currencyKey(e.amount.currency), userKey: withUsers ? LocatedAmount.userKey(e.userID) : 0)
                }
                #expect(!expected.isEmpty)
                #expect(got.map(key).sorted { $0.lexicographicallyPrecedes($1) } == expected.map(key).sorted { $0.lexicographicallyPrecedes($1) })
            }
        }
    }

    // MARK: Writes

    static let eur = try! Currency(code: "EUR")

    static func expense(_ id: String, user: String = "ann", minor: Int64 = 450, store: String? = nil, at lat: Double? = 60.17) -> Expense {
        Expense(
            id: id, userID: user, amount: Money(minorUnits: minor, currency: eur), occurredAt: try! Timestamp(parsing: "2025-05-02T10:00:00+03:00"),
            category: "Food", merchant: "Kahvila", location: lat.map { ExpenseLocation(coordinate: Coordinate(uncheckedLatitude: $0, longitude: 24.94)) },
            storeID: store)
    }

    static func hashed<R>(_ rows: [R], _ hash: (R) -> Int64) -> [HashedRow<R>] { rows.map { HashedRow($0, contentHash: hash($0)) } }

    /// Per row: inserted, unchanged (same id, same content) or rejected with the column at fault;
    /// a rejected row writes nothing, the others in its batch are written.
    @Test(arguments: StoreKind.allCases)
    func writerOutcomesPerRow(kind: StoreKind) async throws {
        let scratch = Scratch()
        let store = try await kind.make(in: scratch)
        let a = Store(id: "a", name: "A", coordinate: Coordinate(uncheckedLatitude: 60.17, longitude: 24.94))
        var a2 = a
        a2.name = "A changed"
        let b = Store(id: "b", name: "B", coordinate: Coordinate(uncheckedLatitude: 60.18, longitude: 24.95))
        var e1b = Self.expense("e1")
        e1b.amount = Money(minorUnits: 451, currency: Self.eur)
        let (changedStore, changedExpense) = (a2, e1b)
        let (stores, expenses, again, links) = try await store.write { w in
            let stores = try w.insert(Self.hashed([a], \.contentHash)) + w.insert(Self.hashed([a, changedStore, b], \.contentHash))
            let expenses = try w.insert(Self.hashed([Self.expense("e1"), Self.expense("e2", user: "ghost", store: "nowhere"), Self.expense("e3", store: "b")], \.contentHash))
            let again = try w.insert(Self.hashed([Self.expense("e1"), changedExpense, Self.expense("e4", user: "bo", at: nil)], \.contentHash))
            let links = try w.assignStores([
                StoreLink(userID: "ann", expenseID: "e1", storeID: "b"), StoreLink(userID: "ann", expenseID: "e1", storeID: "a"),
                StoreLink(userID: "ann", expenseID: "e3", storeID: "a"), StoreLink(userID: "ann", expenseID: "e9", storeID: "a"),
            ])
            return (stores, expenses, again, links)
        }
        func rejected(_ o: RowOutcome) -> String? { if case .rejected(let r) = o { r.column } else { nil } }
        #expect(Array(stores.prefix(2)) == [.inserted, .unchanged] && rejected(stores[2]) == "id" && stores[3] == .inserted)
        #expect(expenses[0] == .inserted && rejected(expenses[1]) == "store_id" && expenses[2] == .inserted)
        #expect(again[0] == .unchanged && rejected(again[1]) == "id" && again[2] == .inserted)
        #expect(links == [true, false, false, false])  // only an expense without a store changes

        let (counts, times, storeA, points, unsnapped) = try await store.read { r in
            (try r.counts(), try r.timestamps(ofExpenses: ["e1", "e2", "e3", "e4"], userID: "ann"), try r.stores(withIDs: ["a"])["a"],
             try r.spendingPoints(ExpenseFilter(userID: nil)), try r.expensesWithoutStore(userID: nil))
        }
        // Nothing of the rejected rows: no e2, no user "ghost", e1 and store a as first written.
        #expect(counts == StoreCounts(users: 2, expenses: 3, geotaggedExpenses: 2, stores: 2))
        #expect(times.keys.sorted() == ["e1", "e3"])  // e4 is bo's
        #expect(storeA?.name == "A")
        #expect(points.map(\.id) == ["e1", "e3", "e4"] && points.map(\.amountMinor) == [450, 450, 450])
        #expect(points.map(\.storeID) == ["b", "b", nil])
        #expect(unsnapped.isEmpty)  // e1 and e3 have stores, e4 no position
    }

    /// A link to a store that is not there (deleted since snapping planned it) is refused and
    /// the scope rolled back: SpatiaLite's write scopes check references in the writer, not
    /// with SQLite's foreign keys (`SpatiaLiteBulkWriter.checkingReferencesItself`).
    @Test(arguments: StoreKind.allCases)
    func linkToAnUnknownStoreIsRefused(kind: StoreKind) async throws {
        let scratch = Scratch()
        let store = try await kind.make(in: scratch)
        let a = Store(id: "a", name: "A", coordinate: Coordinate(uncheckedLatitude: 60.17, longitude: 24.94))
        _ = try await store.write { w in
            _ = try w.insert(Self.hashed([a], \.contentHash))
            return try w.insert(Self.hashed([Self.expense("e1"), Self.expense("e2")], \.contentHash))
        }
        await #expect(throws: RowRejection.self) {
            try await store.write { w in try w.assignStores([StoreLink(userID: "ann", expenseID: "e1", storeID: "a"), StoreLink(userID: "ann", expenseID: "e2", storeID: "gone")]) }
        }
        let stores = try await store.read { r in try r.spendingPoints(ExpenseFilter(userID: nil)).map(\.storeID) }
        #expect(stores == [nil, nil])  // the good link went with the scope
    }

    /// Per currency the stored amounts add up within `Int64`, so every total is exact: the row
    /// that would pass it is refused (column `amount`); a row already stored is still unchanged.
    @Test(arguments: StoreKind.allCases)
    func amountsBeyondExactTotalsAreRejected(kind: StoreKind) async throws {
        let scratch = Scratch()
        let store = try await kind.make(in: scratch)
        let fit = Int(Int64.max / Money.maximumMinorUnits)  // 9,223 of the largest amount fit
        let big = (0..<fit).map { Self.expense("b\($0)", minor: Money.maximumMinorUnits) }
        try await Self.write([], big, into: store)
        let (over, again, otherCurrency) = try await store.write { w in
            var sek = Self.expense("s1", minor: Money.maximumMinorUnits)
            sek.amount = Money(minorUnits: Money.maximumMinorUnits, currency: try Currency(code: "SEK"))
            return (try w.insert(Self.hashed([Self.expense("over", minor: Money.maximumMinorUnits)], \.contentHash)),
                    try w.insert(Self.hashed([big[0]], \.contentHash)), try w.insert(Self.hashed([sek], \.contentHash)))
        }
        guard case .rejected(let r) = over[0] else { Issue.record("accepted: \(over)"); return }
        #expect(r.column == "amount")
        #expect(again == [.unchanged] && otherCurrency == [.inserted])
        #expect(try await store.read { try $0.counts() }.expenses == fit + 1)
    }

    /// A write scope whose body throws leaves nothing, and the store takes the next write.
    @Test(arguments: StoreKind.allCases)
    func throwingWriteScopeLeavesNothing(kind: StoreKind) async throws {
        struct Stop: Error {}
        let scratch = Scratch()
        let store = try await kind.make(in: scratch)
        let a = Store(id: "a", name: "A", coordinate: Coordinate(uncheckedLatitude: 60.17, longitude: 24.94))
        await #expect(throws: Stop.self) {
            try await store.write { w in
                _ = try w.insert(Self.hashed([a], \.contentHash))
                _ = try w.insert(Self.hashed([Self.expense("e1"), Self.expense("e2", store: "a")], \.contentHash))
                throw Stop()
            }
        }
        #expect(try await store.read { try $0.counts() } == StoreCounts(users: 0, expenses: 0, geotaggedExpenses: 0, stores: 0))
        try await Self.write([a], [Self.expense("e1")], into: store)
        #expect(try await store.read { try $0.counts() } == StoreCounts(users: 1, expenses: 1, geotaggedExpenses: 1, stores: 1))
    }

    /// An import with one bad row writes nothing (the importer throws inside the write scope).
    @Test(arguments: StoreKind.allCases)
    func importIsAllOrNothing(kind: StoreKind) async throws {
        let scratch = Scratch()
        let store = try await kind.make(in: scratch)
        let csv = scratch.file("e.csv", "id,user,amount,currency,occurred_at,lat,lon,store_id\ne1,ann,4.50,EUR,2025-05-02,60.17,24.94,\ne2,ann,3.00,EUR,2025-05-03,60.17,24.94,nowhere\n")
        await #expect(throws: ImportError.self) { try await Importer.importExpenses(from: csv, into: store) }
        #expect(try await store.read { try $0.counts() }.expenses == 0)
        let report = try await Importer.importExpenses(from: csv, into: store, options: ImportOptions(skipInvalid: true))
        #expect(report.inserted == 1)
        #expect(try await store.read { try $0.counts() }.expenses == 1)
    }

    /// A read scope is one snapshot: a write scope that commits while it runs (from another
    /// task; on SpatiaLite GRDB's writer connection, not the reader's) is not seen inside it,
    /// and is seen by the next scope.
    @Test(arguments: StoreKind.allCases)
    func readScopeIsOneSnapshot(kind: StoreKind) async throws {
        let data = try await Loaded(kind, count: 1000)
        let store = data.store
        // The scope waits (on its store's thread) for a write this task makes meanwhile. No task
        // is started from inside the scope and nothing blocks an async thread: under `make test`
        // every async thread can be busy, and a task started there once did not run in 30 s.
        let started = DispatchSemaphore(value: 0), committed = DispatchSemaphore(value: 0)
        async let reading = store.read { r in
            let before = try r.counts(), pointsBefore = try r.spendingPoints(ExpenseFilter(userID: nil)).count
            started.signal()
            let waited = committed.wait(timeout: .now() + 300) == .success
            return (before, try r.counts(), pointsBefore, try r.spendingPoints(ExpenseFilter(userID: nil)).count, waited)
        }
        while started.wait(timeout: .now()) != .success { try await Task.sleep(for: .milliseconds(5)) }
        try await store.write { w in
            _ = try w.insert(Self.hashed([Self.expense("late", user: "newcomer")], \.contentHash))
        }
        committed.signal()
        let (before, during, pointsBefore, pointsDuring, waited) = try await reading
        #expect(waited)
        #expect(during == before && pointsDuring == pointsBefore)
        let after = try await store.read { try $0.counts() }
        #expect(after.expenses == before.expenses + 1 && after.users == before.users + 1)
    }

    // MARK: Analytics on both stores

    /// The analytics, exports and snapping see nothing but the seam: on the same rows they give
    /// the same answers on every store (compared as their documented outputs).
    @Test func analyticsAgreeAcrossStores() async throws {
        var loaded: [Loaded] = []
        for kind in StoreKind.allCases { loaded.append(try await Loaded(kind)) }
        let stores = loaded.map(\.store)
        func same(_ what: String, _ make: (any ExpenseStore) async throws -> String) async throws {
            let a = try await make(stores[0])
            #expect(a.count > 200, "\(what) is too small to tell: \(a)")
            for (kind, store) in zip(StoreKind.allCases, stores).dropFirst() {
                #expect(try await make(store) == a, "\(what) differs on \(kind) from SpatiaLite")
            }
        }
        let march = (try Timestamp(parsing: "2025-03-01"), try Timestamp(parsing: "2025-05-31"))

        // Snapping first, so reports and store groupings below have links to work with.
        try await same("snap") { store in
            let plan = try await Snapping.plan(SnapRequest(), store: store)
            return SnapOutput.json(plan, written: try await Snapping.apply(plan, to: store), dryRun: false).serialized()
        }
        for grouping in PlaceGrouping.allCases {
            try await same("insights \(grouping)") { store in
                InsightsOutput.json(try await LocationInsights.compute(
                    InsightsRequest(userID: "user1", from: march.0, to: march.1, grouping: grouping), store: store)).serialized()
            }
        }
        try await same("summary") { store in
            SummaryOutput.json(try await SpendingSummary.compute(userID: "user2", from: nil, to: nil, store: store)).serialized()
        }
        let busiest = Dictionary(grouping: loaded[0].expenses.compactMap(\.storeID), by: { $0 }).max { ($0.value.count, $1.key) < ($1.value.count, $0.key) }!.key
        try await same("store report") { store in
            StoreReportOutput.json(try await StoreReport.compute(StoreReportRequest(storeID: busiest, minUsers: 2), store: store)).serialized()
        }
        try await same("store list near") { store in
            StoreReportOutput.json(try await StoreListReport.compute(
                near: Coordinate(uncheckedLatitude: 60.17, longitude: 24.94), radius: .kilometers(2), kind: nil, minUsers: 2, store: store)).serialized()
        }
        try await same("store list, all") { store in
            StoreReportOutput.json(try await StoreListReport.compute(near: nil, radius: nil, kind: nil, minUsers: 2, store: store)).serialized()
        }
        let layers: [(String, MapLayer, ExpenseFilter)] = [
            ("hex grid, all users", .grid(.hex, cellMeters: 250, metric: .total), ExpenseFilter(userID: nil, kinds: [.expense])),
            ("hex grid, one user", .grid(.hex, cellMeters: 150, metric: .count), ExpenseFilter(userID: "user3")),
            ("points, one user", .points, ExpenseFilter(userID: "user4")),
            ("places, one user", .places, ExpenseFilter(userID: "user1")),
        ]
        for (name, layer, filter) in layers {
            try await same(name) { store in
                let sink = ByteSink()
                try await MapExport.geoJSON(layer, MapExportRequest(filter: filter, generatedAt: "2026-01-01T00:00:00Z"), store: store, to: sink)
                return String(decoding: sink.bytes, as: UTF8.self)
            }
        }
    }
}
