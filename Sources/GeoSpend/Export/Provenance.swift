/// The provenance every layer carries in its `geospend` member.
enum Provenance {
    /// The attribution OpenStreetMap's licence (ODbL 1.0) asks of anything derived from its data,
    /// as https://www.openstreetmap.org/copyright words it; layers with OSM-sourced places carry it.
    static let openStreetMap: JSONOutput = .object([
        ("text", .string("© OpenStreetMap contributors")),
        ("license", .string("ODbL-1.0")),
        ("url", .string("https://www.openstreetmap.org/copyright")),
    ])

    static func object(
        layer: String, request: MapExportRequest, currency choice: LayerCurrency, features: Int, expenses: Int?, totalMinor: Int64?,
        suppression: Suppression?, extra: [(String, JSONOutput)]
    ) -> JSONOutput {
        let f = request.filter
        let currency = choice.currency
        var filters: [(String, JSONOutput)] = [
            ("user", .text(f.userID)), ("all_users", .bool(f.userID == nil)),
            ("from", .text(f.from?.text)), ("to", .text(f.to?.text)),
            ("kinds", .array(f.kinds.map(\.rawValue).sorted().map { .string($0) })),
            ("categories", .array(f.categories.sorted().map { .string($0) })),
            ("currency", .text(f.currency?.code)),
        ]
        if !f.storeIDs.isEmpty { filters.append(("stores", .array(f.storeIDs.sorted().map { .string($0) }))) }
        if let period = f.period { filters.append(("period", .integer(period))) }
        let total: JSONOutput = currency.flatMap { c in
            totalMinor.map { .number(Double($0) / Double(c.minorUnitsPerMajor), decimals: c.minorDigits) }
        } ?? .null
        return .object(
            [
                ("layer", .string(layer)),
                ("engine", .string("geospend \(GeoSpendInfo.version)")),
                ("generated_at", .string(request.generatedAt)),
                ("filters", .object(filters)),
                ("currency", .text(currency?.code)),
                ("currencies_left_out", .array(choice.leftOut.map { .string($0) })),
                ("precision", .integer(Int64(request.precision))),
                ("features", .integer(Int64(features))),
                ("expenses", expenses.map { .integer(Int64($0)) } ?? .null),
                ("total", total),
                ("suppression", .object([
                    ("min_count", .integer(Int64(request.minCount))),
                    ("min_users", .integer(Int64(request.minUsers))),
                    ("suppressed_features", .integer(Int64(suppression?.suppressed ?? 0))),
                    ("complementary_suppressed", .integer(Int64(suppression?.complementary ?? 0))),
                ])),
            ] + (request.privacy.isActive ? [("privacy", request.privacy.provenance(pointLayer: ["points", "places"].contains(layer)))] : [])
                + extra)
    }
}
