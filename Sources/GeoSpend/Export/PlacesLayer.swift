/// `places`: one Point per place. For one user, the places of their location insights (stores
/// and clusters, with every insight figure); for all users, every store with expenses, with
/// figures across users and the count of distinct users. simplestyle `marker-size` and
/// `marker-color` grow with the total so geojson.io draws big spenders big and dark.
enum PlacesLayer {
    struct Row {
        var id: String
        var kind: Place.Kind
        var name: String?
        var coordinate: Coordinate
        var count: Int
        var total: Int64
        var average: Int64
        var median: Int64
        var min: Int64
        var max: Int64
        var users: Int?
        /// Across users, who they are (for the hidden places' union; empty for one user's places).
        var userIDs: Set<String> = []
        var firstVisit: String
        var lastVisit: String
        var visitDays: Int?
        var share: Double
        var topCategory: String?
        var change: WindowChange?
    }

    /// The places a layer publishes (masked and suppressed ones left out), largest total first.
    struct Published {
        var rows: [Row]
        let choice: LayerCurrency
        let suppression: Suppression
        /// Some places were left out: shares are then of the published places' total.
        let partial: Bool
    }

    /// The rows of the places layer, also drawn by the vector tiles' places layer.
    static func published(_ request: MapExportRequest, reader: some ExpenseReader) throws -> Published {
        let privacy = PositionPrivacy(request.privacy)
        let (found, choice) = request.filter.userID == nil
            ? try storeRows(request, privacy: privacy, reader: reader) : try insightRows(request, reader: reader)
        // Masked places go first (a place in a dropped region, or published into one), then
        // suppression; positions published are noised and rounded when asked.
        let all = found.compactMap { r -> Row? in
            guard let c = privacy.published(r.coordinate, id: r.id) else { return nil }
            var r = r
            r.coordinate = c
            return r
        }
        let suppression = Suppression(
            count: all.count, passes: { all[$0].count >= request.minCount && (all[$0].users ?? Int.max) >= request.minUsers },
            smaller: { (all[$0].count, all[$0].total, all[$0].id) < (all[$1].count, all[$1].total, all[$1].id) },
            hiddenPass: { hidden in
                hidden.reduce(0) { $0 + all[$1].count } >= request.minCount
                    && (request.minUsers <= 1 || hidden.reduce(into: Set<String>()) { $0.formUnion(all[$1].userIDs) }.count >= request.minUsers)
            })
        var rows = suppression.kept.map { all[$0] }.sorted { ($1.total, $0.id) < ($0.total, $1.id) }
        let total = rows.reduce(Int64(0)) { $0 + $1.total }
        // A share of a total that includes left-out places would publish that total (total / share):
        // then shares are of the published places' total.
        let partial = rows.count < found.count
        if partial { for n in rows.indices { rows[n].share = total > 0 ? Double(rows[n].total) / Double(total) : 0 } }
        return Published(rows: rows, choice: choice, suppression: suppression, partial: partial)
    }

    static func write(_ request: MapExportRequest, reader: some ExpenseReader, to sink: ByteSink) throws -> MapExportSummary {
        let places = try published(request, reader: reader)
        let (rows, choice, suppression, partial) = (places.rows, places.choice, places.suppression, places.partial)
        let currency = choice.currency
        let total = rows.reduce(Int64(0)) { $0 + $1.total }
        // Published stores imported from OpenStreetMap carry its licence (ODbL) along.
        let storeIDs = Set(rows.filter { $0.kind == .store }.map(\.id))
        let fromOSM = try !storeIDs.isEmpty && reader.stores(withIDs: storeIDs).values.contains { $0.sourceID?.hasPrefix("osm:") == true }
        let provenance = Provenance.object(
            layer: "places", request: request, currency: choice, features: rows.count,
            expenses: rows.reduce(0) { $0 + $1.count }, totalMinor: total, suppression: suppression,
            extra: [
                ("places", .string(request.filter.userID == nil
                    ? "stores, figures across all users"
                    : "stores and clusters of storeless positions (DBSCAN 75 m, 2 points), as geospend insights")),
                ("weight", .string("total / largest published total")),
                ("share", .string(partial ? "of the published places' total" : "of the total of every place in the selection")),
            ] + (fromOSM ? [("attribution", Provenance.openStreetMap)] : []))
        var writer = FeatureWriter(sink: sink, precision: request.precision, provenance: provenance, index: request.featureIndex)
        let largest = Double(max(rows.first?.total ?? 1, 1))
        for r in rows {
            guard let currency else { break }
            let weight = Double(r.total) / largest
            writer.beginFeature(id: r.id)
            writer.point(longitude: r.coordinate.longitude, latitude: r.coordinate.latitude)
            writer.beginProperties()
            writer.string("place_id", r.id)
            writer.string("kind", r.kind.rawValue)
            writer.string("name", r.name)
            writer.integer("count", r.count)
            if let users = r.users { writer.integer("users", users) }
            writer.money("total", r.total, currency)
            writer.money("average", r.average, currency)
            writer.money("median", r.median, currency)
            // Across users, the smallest and largest amounts and the first and last visits are
            // each one person's expense: published for a user's own places only.
            if request.filter.userID != nil {
                writer.money("min", r.min, currency)
                writer.money("max", r.max, currency)
            }
            writer.string("currency", currency.code)
            if request.filter.userID != nil {
                writer.string("first_visit", r.firstVisit)
                writer.string("last_visit", r.lastVisit)
            }
            if let days = r.visitDays { writer.integer("visit_days", days) }
            writer.number("share", r.share, decimals: 6)
            if request.filter.userID != nil { writer.string("top_category", r.topCategory) }
            if let change = r.change {
                writer.money("previous_total", change.previousTotal.minorUnits, currency)
                writer.money("change", change.delta.minorUnits, currency)
            }
            writer.number("weight", weight, decimals: 6)
            writer.string("marker-size", weight >= 2.0 / 3 ? "large" : weight >= 1.0 / 3 ? "medium" : "small")
            writer.string("marker-color", Self.ramp[min(Self.ramp.count - 1, Int(weight * Double(Self.ramp.count)))])
            writer.endFeature()
        }
        writer.finish()
        return MapExportSummary(
            features: rows.count, suppressed: suppression.suppressed, currency: currency, totalMinor: total, leftOutCurrencies: choice.leftOut)
    }

    /// One store's expenses in one currency, across users.
    private struct StoreGroup {
        var amounts: [Int64] = []
        var users: Set<String> = []
        var first: SpendingPoint
        var last: SpendingPoint
    }

    /// ColorBrewer YlOrRd, light to dark.
    static let ramp = ["#ffffb2", "#fecc5c", "#fd8d3c", "#f03b20", "#bd0026"]

    private static func insightRows(_ request: MapExportRequest, reader: some ExpenseReader) throws -> ([Row], LayerCurrency) {
        let f = request.filter
        let insights = try LocationInsights.compute(
            InsightsRequest(userID: f.userID!, from: f.from, to: f.to, kinds: f.kinds, categories: f.categories, grouping: .place),
            reader: reader)
        var counts: [Currency: Int] = [:]
        for p in insights.places where f.currency == nil || p.currency == f.currency { counts[p.currency, default: 0] += p.count }
        let choice = LayerCurrency(counts: counts.map { ($0.key, $0.value) })
        let currency = choice.currency
        let rows = insights.places.filter { $0.currency == currency && $0.centroid != nil }.map { p in
            Row(
                id: p.place.id, kind: p.place.kind, name: p.place.name, coordinate: p.centroid!,
                count: p.count, total: p.total.minorUnits, average: p.average.minorUnits, median: p.median.minorUnits,
                min: p.min.minorUnits, max: p.max.minorUnits,
                users: nil, firstVisit: p.firstVisit.text, lastVisit: p.lastVisit.text, visitDays: p.visitDays, share: p.share,
                topCategory: p.topCategory, change: p.change)
        }
        return (rows, choice)
    }

    /// Expenses positioned in a mask's region count nowhere (the store's own position is
    /// checked by the caller).
    private static func storeRows(
        _ request: MapExportRequest, privacy: PositionPrivacy, reader: some ExpenseReader
    ) throws -> ([Row], LayerCurrency) {
        var groups: [String: [Currency: StoreGroup]] = [:]
        var counts: [Currency: Int] = [:]
        var users: [Currency: Set<String>] = [:]
        try reader.forEachSpendingPoint(request.filter, geotaggedOnly: false) { p in
            guard let s = p.storeID else { return }
            if let c = p.coordinate, privacy.isMasked(latitude: c.latitude, longitude: c.longitude) { return }
            counts[p.currency, default: 0] += 1
            if users[p.currency, default: []].count < request.minUsers { users[p.currency, default: []].insert(p.userID) }
            var g = groups[s, default: [:]][p.currency] ?? StoreGroup(first: p, last: p)
            g.amounts.append(p.amountMinor)
            g.users.insert(p.userID)
            if SpendingPoint.chronological(p, g.first) { g.first = p }
            if SpendingPoint.chronological(g.last, p) { g.last = p }
            groups[s, default: [:]][p.currency] = g
        }
        let choice = LayerCurrency(counts: counts.map { ($0.key, $0.value, users[$0.key]?.count ?? 0) }, minUsers: request.minUsers)
        guard let currency = choice.currency else { return ([], choice) }
        let stores = try reader.stores(withIDs: Set(groups.keys))
        let placed = groups.values.reduce(Int64(0)) { $0 + ($1[currency]?.amounts.reduce(0, +) ?? 0) }
        func text(_ p: SpendingPoint) -> String {
            Timestamp.rfc3339(epochMilliseconds: p.occurredMilliseconds, utcOffsetMinutes: p.utcOffsetMinutes)
        }
        let rows = groups.compactMap { id, byCurrency -> Row? in
            guard let g = byCurrency[currency], let s = stores[id] else { return nil }
            let stats = AmountStatistics(minorUnits: g.amounts, currency: currency)
            return Row(
                id: id, kind: .store, name: s.name, coordinate: s.coordinate, count: stats.count, total: stats.total.totalMinor,
                average: stats.average.minorUnits, median: stats.median.minorUnits, min: stats.min.minorUnits,
                max: stats.max.minorUnits, users: g.users.count, userIDs: g.users,
                firstVisit: text(g.first), lastVisit: text(g.last), visitDays: nil,
                share: placed > 0 ? Double(stats.total.totalMinor) / Double(placed) : 0, topCategory: nil, change: nil)
        }
        return (rows, choice)
    }
}
