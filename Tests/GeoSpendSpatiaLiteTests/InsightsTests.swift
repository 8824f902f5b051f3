import Foundation
import GeoSpend
import Testing

@testable import GeoSpendSpatiaLite

@Suite struct InsightsTests {
    /// A hand-computed fixture: every figure below was worked out on paper from these rows.
    static let rows = """
        id,user,kind,amount,currency,occurred_at,category,lat,lon,store_id
        a1,ann,expense,4.50,EUR,2025-03-01T08:00:00+02:00,Food,60.1700,24.9400,S1
        a2,ann,expense,3.00,EUR,2025-03-01T15:00:00+02:00,Food,,,S1
        a3,ann,expense,5.00,EUR,2025-03-05T09:00:00+02:00,Shopping,60.1700,24.9400,S1
        a4,ann,expense,2.50,EUR,2025-03-10T09:00:00+02:00,Food,60.1700,24.9400,S1
        j1,ann,expense,1200,JPY,2025-03-02T12:00:00+09:00,Food,60.1700,24.9400,S1
        j2,ann,expense,800,JPY,2025-03-03T12:00:00+09:00,Food,60.1700,24.9400,S1
        c1,ann,expense,10.00,EUR,2025-03-02T12:00:00+02:00,Food,60.1800,24.9500,
        c2,ann,expense,20.01,EUR,2025-03-03T12:00:00+02:00,Shopping,60.1800,24.9505,
        n1,ann,expense,7.00,EUR,2025-03-04T12:00:00+02:00,Health,60.2000,24.9500,
        u1,ann,expense,9.99,EUR,2025-03-04T12:00:00+02:00,Bills,,,
        i1,ann,income,2500,EUR,2025-03-25,Salary,,,
        p1,ann,expense,6.00,EUR,2025-02-15T12:00:00+02:00,Food,60.1700,24.9400,S1
        p2,ann,expense,5.00,EUR,2025-02-16T12:00:00+02:00,Food,60.1801,24.9502,
        b1,bob,expense,99.00,EUR,2025-03-02T12:00:00+02:00,Food,60.1800,24.9500,S1

        """

    func fixtureStore(_ scratch: Scratch) async throws -> SpatiaLiteStore {
        let store = try scratch.store()
        _ = try await Importer.importStores(from: scratch.file("s.csv", "id,name,kind,lat,lon\nS1,Cafe One,amenity:cafe,60.17,24.94\n"), into: store)
        _ = try await Importer.importExpenses(from: scratch.file("e.csv", Self.rows), into: store)
        return store
    }

    @Test func handComputedFiguresWithPreviousWindow() async throws {
        let scratch = Scratch()
        let store = try await fixtureStore(scratch)
        let r = try await LocationInsights.compute(
            InsightsRequest(userID: "ann", from: try Timestamp(parsing: "2025-03-01"), to: try Timestamp(parsing: "2025-03-31")),
            store: store)
        #expect(r.previousFrom?.text == "2025-01-29" && r.previousTo?.text == "2025-02-28")
        let rows = r.places.map { ($0.place.id, $0.currency.code, $0.total.decimalString) }
        // EUR first (more placed expenses), by total; then JPY. c2's cluster is named after c1.
        #expect(rows.map { $0.0 } == ["c-c1", "S1", "c-n1", "S1"])
        #expect(rows.map { $0.1 } == ["EUR", "EUR", "EUR", "JPY"])

        let cluster = r.places[0]
        #expect(cluster.place == Place(kind: .cluster, id: "c-c1", name: nil))
        #expect(cluster.count == 2 && cluster.total.decimalString == "30.01")
        #expect(cluster.average.decimalString == "15.01")  // 30.01 / 2 = 15.005 → half away from zero
        #expect(cluster.median.decimalString == "15.01")  // (10.00 + 20.01) / 2, half up
        #expect(cluster.min.decimalString == "10.00" && cluster.max.decimalString == "20.01")
        #expect(abs(cluster.centroid!.latitude - 60.18) < 1e-9 && abs(cluster.centroid!.longitude - 24.95025) < 1e-9)
        #expect(cluster.topCategory == "Shopping")
        #expect(cluster.change?.previousTotal.decimalString == "5.00")  // p2 lies within 75 m of c1

        let cafe = r.places[1]
        #expect(cafe.place.name == "Cafe One")
        #expect(cafe.count == 4 && cafe.total.decimalString == "15.00" && cafe.average.decimalString == "3.75")
        #expect(cafe.median.decimalString == "3.75")  // (3.00 + 4.50) / 2
        #expect(cafe.visitDays == 3)
        #expect(cafe.firstVisit.text == "2025-03-01T08:00:00+02:00" && cafe.lastVisit.text == "2025-03-10T09:00:00+02:00")
        #expect(cafe.centroid == Coordinate(uncheckedLatitude: 60.17, longitude: 24.94))
        #expect(cafe.topCategory == "Food")
        #expect(cafe.change == WindowChange(
            previousTotal: Money(minorUnits: 600, currency: try Currency(code: "EUR")),
            delta: Money(minorUnits: 900, currency: try Currency(code: "EUR")), ratio: 2.5))
        #expect(abs(cafe.share - 1500.0 / 5201.0) < 1e-12)

        let lone = r.places[2]
        #expect(lone.count == 1 && lone.median.decimalString == "7.00" && lone.change?.ratio == nil)

        let yen = r.places[3]
        #expect(yen.total.decimalString == "2000" && yen.average.decimalString == "1000" && yen.median.decimalString == "1000")
        #expect(yen.share == 1)
        #expect(yen.firstVisit.text == "2025-03-02T12:00:00+09:00")

        // The coordinate-less expense counts in totals but not in places; income is not spending.
        #expect(r.unplaced.map { "\($0.currency.code) \($0.total.decimalString)" } == ["EUR 9.99"])
        #expect(r.totals.map { "\($0.currency.code) \($0.total.decimalString)" } == ["EUR 62.00", "JPY 2000"])
    }

    @Test func byStoreLeavesStorelessExpensesUnplacedAndNeverShowsOtherUsers() async throws {
        let scratch = Scratch()
        let store = try await fixtureStore(scratch)
        let r = try await LocationInsights.compute(InsightsRequest(userID: "ann", grouping: .store), store: store)
        #expect(r.places.map(\.place.id) == ["S1", "S1"])
        #expect(r.places[0].total.decimalString == "21.00")  // bob's 99.00 at S1 is not ann's
        #expect(r.unplaced.first?.total.decimalString == "52.00")  // c1 + c2 + n1 + u1 + p2
        #expect(r.places[0].change == nil)
    }

    /// Properties on generated data: placed + unplaced = total per currency; shares sum to 1.
    /// Everything from a SpatiaLite reader except `spendingColumns`, which the protocol's default
    /// builds from points (as a store without a faster way would); optionally it has lost the
    /// timestamps of some expenses, as a reader that is not one snapshot could.
    struct PointsOnlyReader: ExpenseReader {
        let base: any ExpenseReader
        var deletedMeanwhile: Set<String> = []
        /// The base reader's own `spendingColumns` instead of the default.
        var nativeColumns = false
        /// The points shuffled by this seed before they become columns.
        var shuffleSeed: UInt64?

        func spendingColumns(_ filter: ExpenseFilter) throws -> SpendingColumns {
            if nativeColumns { return try base.spendingColumns(filter) }
            var points = try spendingPoints(filter)
            if let shuffleSeed {
                var rng = SplitMix64(seed: shuffleSeed)
                points.shuffle(using: &rng)
            }
            return SpendingColumns(points)
        }

        func token(lookup: String) throws -> (record: TokenRecord, sha256: [UInt8])? { try base.token(lookup: lookup) }
        func expense(id: String, userID: String) throws -> StoredExpense? { try base.expense(id: id, userID: userID) }
        func expensePage(_ filter: ExpenseFilter, after cursor: ExpenseCursor?, limit: Int) throws -> ExpensePage {
            try base.expensePage(filter, after: cursor, limit: limit)
        }
        func searchExpenses(userID: String, text: String, limit: Int) throws -> [StoredExpense] {
            try base.searchExpenses(userID: userID, text: text, limit: limit)
        }
        func dueReminders(userID: String, asOf: Timestamp) throws -> [StoredExpense] { try base.dueReminders(userID: userID, asOf: asOf) }
        func users() throws -> [UserRecord] { try base.users() }
        func userData(_ userID: String) throws -> (any UserDataSnapshot)? { try base.userData(userID) }
        func categoryDetails(userID: String, includeInactive: Bool) throws -> [CategoryDetail] {
            try base.categoryDetails(userID: userID, includeInactive: includeInactive)
        }
        func period(userID: String, id: Int64) throws -> Period? { try base.period(userID: userID, id: id) }
        func periods(userID: String) throws -> [Period] { try base.periods(userID: userID) }
        func tokens(userID: String?) throws -> [TokenRecord] { try base.tokens(userID: userID) }
        func budget(id: Int64, userID: String) throws -> Budget? { try base.budget(id: id, userID: userID) }
        func storeChoices(userID: String) throws -> StoreChoices { try base.storeChoices(userID: userID) }
        func store(userID: String, id: String) throws -> StoreEntry? { try base.store(userID: userID, id: id) }
        func budgets(userID: String, includeInactive: Bool) throws -> [Budget] { try base.budgets(userID: userID, includeInactive: includeInactive) }
        func budgetExpenses(userID: String, from: LocalDay, to: LocalDay) throws -> [BudgetExpense] {
            try base.budgetExpenses(userID: userID, from: from, to: to)
        }
        func products() throws -> [Product] { try base.products() }
        func priceRecords(_ query: PriceQuery) throws -> [PriceRecord] { try base.priceRecords(query) }
        func latestPrices(onOrBefore day: LocalDay, _ query: PriceQuery) throws -> [PriceRecord] { try base.latestPrices(onOrBefore: day, query) }
        func storesWithPrices(userID: String?) throws -> [Store] { try base.storesWithPrices(userID: userID) }
        func receipt(id: String, userID: String) throws -> Receipt? { try base.receipt(id: id, userID: userID) }
        func receipts(userID: String, after sequence: Int64?, limit: Int) throws -> [Receipt] { try base.receipts(userID: userID, after: sequence, limit: limit) }
        func lists(userID: String) throws -> [ShoppingList] { try base.lists(userID: userID) }
        func productMarks(userID: String) throws -> [Int64: ProductMarks] { try base.productMarks(userID: userID) }
        func productTags(userID: String) throws -> [ProductTag] { try base.productTags(userID: userID) }
        func pantryItems(userID: String) throws -> [PantryItem] { try base.pantryItems(userID: userID) }
        func openPantryItems(expiringOnOrBefore day: LocalDay) throws -> [PantryItem] { try base.openPantryItems(expiringOnOrBefore: day) }
        func userSettings(userID: String) throws -> UserSettings? { try base.userSettings(userID: userID) }
        func positionRetentions() throws -> [(userID: String, days: Int)] { try base.positionRetentions() }
        func locationHistory(userID: String, from: Int64?, to: Int64?) throws -> LocationHistory {
            try base.locationHistory(userID: userID, from: from, to: to)
        }
        func geotagInput(userID: String, from: Int64?, to: Int64?) throws -> GeotagInput {
            try base.geotagInput(userID: userID, from: from, to: to)
        }
        func recurringRules(userID: String) throws -> [RecurringRule] { try base.recurringRules(userID: userID) }
        func usersWithRecurringDue(onOrBefore day: LocalDay) throws -> [String] { try base.usersWithRecurringDue(onOrBefore: day) }
        func webhooks(userID: String) throws -> [Webhook] { try base.webhooks(userID: userID) }
        func webhook(id: String, userID: String) throws -> Webhook? { try base.webhook(id: id, userID: userID) }
        func notifications(userID: String, after sequence: Int64?, limit: Int, unreadOnly: Bool) throws -> [NotificationEvent] {
            try base.notifications(userID: userID, after: sequence, limit: limit, unreadOnly: unreadOnly)
        }
        func dueDeliveries(now: Int64, limit: Int) throws -> [DueDelivery] { try base.dueDeliveries(now: now, limit: limit) }
        func deliveries(userID: String, webhookID: String?, limit: Int) throws -> [WebhookDelivery] {
            try base.deliveries(userID: userID, webhookID: webhookID, limit: limit)
        }
        func notificationSettings(userID: String) throws -> NotificationSettings? { try base.notificationSettings(userID: userID) }
        func remindersDue(asOf: Timestamp) throws -> [StoredExpense] { try base.remindersDue(asOf: asOf) }
        func communityMember(userID: String) throws -> CommunityMember? { try base.communityMember(userID: userID) }
        func communityFeed(_ filter: CommunityFeedFilter, limit: Int) throws -> [CommunityPost] { try base.communityFeed(filter, limit: limit) }
        func communityThread(id: Int64) throws -> CommunityThread? { try base.communityThread(id: id) }
        func communityStanding(userID: String) throws -> CommunityStanding? { try base.communityStanding(userID: userID) }

        func expenses(within radius: Distance, of center: Coordinate, filter: ExpenseFilter) throws -> [ExpenseHit] {
            try base.expenses(within: radius, of: center, filter: filter)
        }
        func nearestStores(to center: Coordinate, limit: Int, maxDistance: Distance?, kind: String?) throws -> [StoreHit] {
            try base.nearestStores(to: center, limit: limit, maxDistance: maxDistance, kind: kind)
        }
        func stores(within radius: Distance, of center: Coordinate, kind: String?) throws -> [StoreHit] {
            try base.stores(within: radius, of: center, kind: kind)
        }
        func counts() throws -> StoreCounts { try base.counts() }
        func forEachSpendingPointBatch(_ filter: ExpenseFilter, geotaggedOnly: Bool, _ body: ([SpendingPoint]) throws -> Void) throws {
            try base.forEachSpendingPointBatch(filter, geotaggedOnly: geotaggedOnly, body)
        }
        func forEachLocatedAmountBatch(_ filter: ExpenseFilter, withUsers: Bool, _ body: ([LocatedAmount]) throws -> Void) throws {
            try base.forEachLocatedAmountBatch(filter, withUsers: withUsers, body)
        }
        func geotaggedCenterHint() throws -> Coordinate? { try base.geotaggedCenterHint() }
        func stores(withIDs ids: Set<String>) throws -> [String: Store] { try base.stores(withIDs: ids) }
        func positionSources(_ filter: ExpenseFilter) throws -> [String: PositionSource] { try base.positionSources(filter) }
        func timestamps(ofExpenses ids: Set<String>, userID: String) throws -> [String: Timestamp] {
            try base.timestamps(ofExpenses: ids.subtracting(deletedMeanwhile), userID: userID)
        }
        func expensesWithoutStore(userID: String?) throws -> [UnsnappedExpense] { try base.expensesWithoutStore(userID: userID) }
        func allStores(kind: String?) throws -> [Store] { try base.allStores(kind: kind) }
        func hasUser(_ id: String) throws -> Bool { try base.hasUser(id) }
        func userIDs() throws -> [String] { try base.userIDs() }
        func categoryCounts(userID: String?) throws -> [CategoryCount] { try base.categoryCounts(userID: userID) }
        func storeKindCounts() throws -> [StoreKindCount] { try base.storeKindCounts() }
    }

    /// The protocol's default `spendingColumns` (from points) gives the insights SpatiaLite's own
    /// read gives; an expense gone between the read and the visit lookup is a clear error.
    @Test func defaultColumnsAgreeAndADeletionMidwayIsAnError() async throws {
        let scratch = Scratch()
        let (store, _) = try await Self.helsinkiStore(scratch, users: 2, count: 600, seed: 9)
        for request in [InsightsRequest(userID: "user1"), InsightsRequest(userID: "user2", grouping: .store),
                        InsightsRequest(userID: "user1", from: try Timestamp(parsing: "2025-04-01"), to: try Timestamp(parsing: "2025-06-30"))] {
            let native = try await LocationInsights.compute(request, store: store)
            let fromPoints = try store.readHere { try LocationInsights.compute(request, reader: PointsOnlyReader(base: $0)) }
            #expect(fromPoints.places == native.places && fromPoints.totals == native.totals && fromPoints.unplaced == native.unplaced)
        }
        let first = try #require(try await LocationInsights.compute(InsightsRequest(userID: "user1"), store: store).places.first { $0.place.kind == .store })
        let gone = try #require(try store.readHere { try $0.spendingPoints(ExpenseFilter(userID: "user1", kinds: [.expense])) }
            .first { $0.storeID == first.place.id && $0.occurredMilliseconds == first.firstVisit.epochMilliseconds }).id
        #expect(throws: InsightsError.expenseDeletedDuringRead(gone)) {
            try store.readHere { try LocationInsights.compute(InsightsRequest(userID: "user1"), reader: PointsOnlyReader(base: $0, deletedMeanwhile: [gone])) }
        }
        // SpatiaLite's columns carry the visit instants: no lookup by id, so none can miss.
        for grouping in PlaceGrouping.allCases {
            let request = InsightsRequest(userID: "user1", grouping: grouping)
            let native = try await LocationInsights.compute(request, store: store)
            let noLookups = try store.readHere {
                try LocationInsights.compute(request, reader: PointsOnlyReader(base: $0, deletedMeanwhile: [gone], nativeColumns: true))
            }
            #expect(noLookups.places == native.places)
        }
    }

    /// Stores may hand the columns over in any order of their own (SpatiaLite's index order for
    /// one user, insertion order elsewhere): insights must not depend on it — ties by id,
    /// clusters independent of input order, sums exact. Same rows, shuffled, same insights.
    @Test func insightsDoNotDependOnTheRowOrder() async throws {
        let scratch = Scratch()
        let (store, _) = try await Self.helsinkiStore(scratch, users: 2, count: 900, seed: 4)
        let requests = [
            InsightsRequest(userID: "user1"), InsightsRequest(userID: "user2", grouping: .store),
            InsightsRequest(userID: "user1", from: try Timestamp(parsing: "2025-04-01"), to: try Timestamp(parsing: "2025-06-30")),
        ]
        for request in requests {
            let native = try await LocationInsights.compute(request, store: store)
            #expect(native.places.count > 10)
            for seed in 1...5 as ClosedRange<UInt64> {
                let shuffled = try store.readHere { try LocationInsights.compute(request, reader: PointsOnlyReader(base: $0, shuffleSeed: seed)) }
                #expect(shuffled.places == native.places && shuffled.totals == native.totals && shuffled.unplaced == native.unplaced)
            }
        }
    }

    /// A store with the Helsinki places and synthetic expenses spent at them.
    static func helsinkiStore(_ scratch: Scratch, users: Int, count: Int, seed: UInt64) async throws -> (SpatiaLiteStore, [Expense]) {
        let store = try scratch.store()
        let places = try Importer.readStores(from: Repo.path("Data/helsinki-places.geojson"))
        _ = try await Importer.importStores(from: Repo.path("Data/helsinki-places.geojson"), into: store)
        var all: [Expense] = []
        SyntheticData(places: places, scale: .city).generateExpenses(users: users, count: count, seed: seed) { all.append($0) }
        _ = try store.writeHere { w in for e in all { _ = try w.insert(e) } }
        return (store, all)
    }

    @Test(arguments: [1, 2, 3])
    func totalsAddUpAndSharesSumToOne(seed: UInt64) async throws {
        let scratch = Scratch()
        let (store, all) = try await Self.helsinkiStore(scratch, users: 3, count: 900, seed: seed)
        for grouping in PlaceGrouping.allCases {
            let r = try await LocationInsights.compute(InsightsRequest(userID: "user2", grouping: grouping), store: store)
            for total in r.totals {
                let placed = r.places.filter { $0.currency == total.currency }
                let unplaced = r.unplaced.first { $0.currency == total.currency }?.totalMinor ?? 0
                #expect(placed.reduce(0) { $0 + $1.total.minorUnits } + unplaced == total.totalMinor)
                if !placed.isEmpty { #expect(abs(placed.reduce(0) { $0 + $1.share } - 1) < 1e-9) }
                // The same total from a brute-force pass over the generated rows.
                let expected = all.filter { $0.userID == "user2" && $0.kind == .expense && $0.amount.currency == total.currency }
                    .reduce(Int64(0)) { $0 + $1.amount.minorUnits }
                #expect(total.totalMinor == expected)
            }
            #expect(r.places.allSatisfy { $0.min.minorUnits <= $0.median.minorUnits && $0.median.minorUnits <= $0.max.minorUnits })
        }
    }

    /// Per store and currency, against a brute-force pass over the rows: count, total, and the
    /// first and last visits by instant, ties by id (three expenses share the earliest instant
    /// and three the latest, inserted out of id order).
    @Test(arguments: [4, 5])
    func byStoreAgreesWithBruteForce(seed: UInt64) async throws {
        let scratch = Scratch()
        var (store, all) = try await Self.helsinkiStore(scratch, users: 2, count: 1200, seed: seed)
        let tied = try #require(all.first { $0.userID == "user1" && $0.kind == .expense && $0.storeID != nil })
        var ties: [Expense] = []
        for (id, at) in [("tie-b", "2001-01-01T00:00:00Z"), ("tie-a", "2001-01-01T02:00:00+02:00"), ("tie-c", "2001-01-01T00:00:00Z"),
                         ("tie-y", "2039-01-01T00:00:00Z"), ("tie-z", "2039-01-01T01:00:00+01:00"), ("tie-x", "2039-01-01T00:00:00Z")] {
            var e = tied
            e.id = id
            e.occurredAt = try Timestamp(parsing: at)
            ties.append(e)
        }
        _ = try store.writeHere { w in for e in ties { _ = try w.insert(e) } }
        all += ties
        let r = try await LocationInsights.compute(InsightsRequest(userID: "user1", grouping: .store), store: store)
        let mine = all.filter { $0.userID == "user1" && $0.kind == .expense && $0.storeID != nil }
        let groups = Dictionary(grouping: mine) { "\($0.storeID!) \($0.amount.currency.code)" }
        #expect(r.places.count == groups.count)
        for row in r.places {
            let members = try #require(groups["\(row.place.id) \(row.currency.code)"])
            let byTime = members.sorted { ($0.occurredAt.epochMilliseconds, $0.id) < ($1.occurredAt.epochMilliseconds, $1.id) }
            #expect(row.count == members.count)
            #expect(row.total.minorUnits == members.reduce(0) { $0 + $1.amount.minorUnits })
            #expect(row.firstVisit.text == byTime.first!.occurredAt.text && row.lastVisit.text == byTime.last!.occurredAt.text)
        }
        let tiedRow = try #require(r.places.first { $0.place.id == tied.storeID && $0.currency == tied.amount.currency })
        #expect(tiedRow.firstVisit.text == "2001-01-01T02:00:00+02:00" && tiedRow.lastVisit.text == "2039-01-01T01:00:00+01:00")

    }
}

@Suite struct PlaceClustersTests {
    @Test func clustersDoNotDependOnInputOrder() {
        var rng = SplitMix64(seed: 8)
        var points: [(String, Coordinate)] = []
        for i in 0..<400 {
            points.append((String(format: "p%03d", i), Coordinate(uncheckedLatitude: 60.16 + rng.unit() * 0.01, longitude: 24.93 + rng.unit() * 0.02)))
        }
        let reference = PlaceClusters(ids: points.map(\.0), coordinates: points.map(\.1))
        let byID = Dictionary(uniqueKeysWithValues: zip(points.map(\.0), reference.clusterIDs))
        for _ in 0..<5 {
            var shuffled = points
            shuffled.shuffle(using: &rng)
            let again = PlaceClusters(ids: shuffled.map(\.0), coordinates: shuffled.map(\.1))
            #expect(zip(shuffled.map(\.0), again.clusterIDs).allSatisfy { byID[$0] == $1 })
        }
        #expect(Set(reference.clusterIDs).count < points.count)  // some clusters formed
        #expect(Set(reference.clusterIDs).count > 1)
    }

    /// The grid algorithm against a plain O(n²) DBSCAN with the same rules, on dense and sparse
    /// clouds at several latitudes; the last two put a dozen or more points in most cells.
    @Test(arguments: [(0.0, 0.002, 300), (60.17, 0.004, 300), (60.17, 0.03, 300), (-45.0, 0.01, 300), (78.0, 0.01, 300),
                      (70.0, 0.003, 800), (60.17, 0.0015, 600)])
    func gridAgreesWithBruteForce(latitude: Double, spread: Double, n: Int) {
        var rng = SplitMix64(seed: UInt64(abs(latitude * 100)) + UInt64(spread * 1e4))
        let ids = (0..<n).map { String(format: "q%03d", $0) }
        let cs = (0..<n).map { _ in
            Coordinate(uncheckedLatitude: latitude + (rng.unit() - 0.5) * spread, longitude: 24.9 + (rng.unit() - 0.5) * spread * 2)
        }
        for minPoints in [2, 4] {
            let grid = PlaceClusters(ids: ids, coordinates: cs, radius: .meters(75), minPoints: minPoints).clusterIDs
            #expect(grid == Self.bruteForce(ids: ids, cs: cs, eps: 75, minPoints: minPoints), "lat \(latitude) spread \(spread) minPoints \(minPoints)")
        }
    }

    /// Random walks with steps around the radius (some of them zero: equal positions), from the
    /// equator to 80° in one input: the grid's reach spans many cells, and whether two parts of a
    /// walk join hangs on pairs of cells several cells apart.
    @Test func walksAcrossLatitudesAgreeWithBruteForce() {
        var rng = SplitMix64(seed: 11)
        var cs: [Coordinate] = []
        for _ in 0..<30 {
            var c = Coordinate(uncheckedLatitude: (rng.unit() - 0.2) * 100, longitude: rng.unit() * 360 - 180)
            for _ in 0..<20 {
                cs.append(c)
                let step = rng.unit() < 0.1 ? 0 : 60 + rng.unit() * 30
                c = Geodesic.destination(from: c, azimuth: rng.unit() * 360, distance: step)
            }
        }
        let ids = cs.indices.map { String(format: "w%03d", ($0 * 7919) % cs.count) }  // ids not in input order
        for minPoints in [2, 3] {
            let grid = PlaceClusters(ids: ids, coordinates: cs, radius: .meters(75), minPoints: minPoints).clusterIDs
            let expected = Self.bruteForce(ids: ids, cs: cs, eps: 75, minPoints: minPoints)
            #expect(grid == expected, "minPoints \(minPoints)")
            #expect(Set(expected).count > 60 && Set(expected).count < cs.count - 100)  // walks both join and break
        }
    }

    static func bruteForce(ids: [String], cs: [Coordinate], eps: Double, minPoints: Int) -> [String] {
        let n = cs.count
        let near = (0..<n).map { i in (0..<n).filter { $0 != i && Geodesic.distance(cs[i], cs[$0]) <= eps } }
        let core = near.map { $0.count + 1 >= minPoints }
        var label = [Int](repeating: -1, count: n)
        for i in 0..<n where core[i] && label[i] < 0 {  // flood fill over core links
            var stack = [i]
            label[i] = i
            while let x = stack.popLast() {
                for y in near[x] where core[y] && label[y] < 0 { label[y] = i; stack.append(y) }
            }
        }
        for i in 0..<n where !core[i] {
            let best = near[i].filter { core[$0] }.min { (Geodesic.distance(cs[i], cs[$0]), ids[$0]) < (Geodesic.distance(cs[i], cs[$1]), ids[$1]) }
            label[i] = best.map { label[$0] } ?? i
        }
        var name: [Int: String] = [:]
        for i in 0..<n { name[label[i]] = min(name[label[i]] ?? ids[i], ids[i]) }
        return label.map { "c-" + name[$0]! }
    }

    @Test func epsilonIsGeodesicMetres() {
        // Two points 74.9 m apart join; 75.1 m apart stay apart (distances from Karney's direct).
        let a = Coordinate(uncheckedLatitude: 60, longitude: 25)
        let near = Geodesic.destination(from: a, azimuth: 90, distance: 74.9)
        let far = Geodesic.destination(from: a, azimuth: 90, distance: 75.1)
        #expect(Set(PlaceClusters(ids: ["a", "b"], coordinates: [a, near]).clusterIDs) == ["c-a"])
        #expect(PlaceClusters(ids: ["a", "b"], coordinates: [a, far]).clusterIDs == ["c-a", "c-b"])
    }
}
