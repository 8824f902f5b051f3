/// `basket --format json` (the CLI's and the service's `/api/v1/basket`).
extension BasketResult {
    static func money(_ minor: Int64, _ c: Currency?) -> JSONOutput {
        guard let c else { return .null }
        return .string(Money.decimalString(minor, digits: c.minorDigits))
    }

    public func json(asOf: LocalDay) -> JSONOutput {
        let r = self
        let c = r.currency, best = r.stores.first
        let code: JSONOutput = c.map { .string($0.code) } ?? .null
        let stores: [JSONOutput] = r.stores.map { line -> JSONOutput in
            .object([
                ("store", .object([
                    ("id", .string(line.store.id)), ("name", line.store.name.map { .string($0) } ?? .null),
                    ("lat", .number(line.store.coordinate.latitude, decimals: 7)), ("lon", .number(line.store.coordinate.longitude, decimals: 7)),
                ])),
                ("total_price", Self.money(line.totalMinor, c)), ("currency", code),
                ("available_items", .integer(Int64(line.availableItems))),
                ("unavailable_items", .array(line.unavailable.map { .string($0) })),
                ("item_prices", .object(line.itemPrices.map { p -> (String, JSONOutput) in (p.name, Self.money(p.minor, c)) })),
                ("distance_m", line.distanceMeters.map { .number($0, decimals: 3) } ?? .null),
                ("travel_cost", Self.money(line.travelMinor, c)), ("total_with_travel", Self.money(line.totalWithTravelMinor, c)),
                ("estimated_total", Self.money(line.estimatedTotalMinor, c)),
                ("unpriced_items", .array(line.unpricedItems.map { .string($0) })),
            ])
        }
        let split: JSONOutput = r.split.map { s -> JSONOutput in
            .object([
                ("stores", .array([.string(s.first.id), .string(s.second.id)])),
                ("item_prices", .object(s.itemPrices.map { p -> (String, JSONOutput) in (p.name, .object([("store", .string(p.storeID)), ("price", Self.money(p.minor, c))])) })),
                ("total_price", Self.money(s.totalMinor, c)), ("trip_m", s.tripMeters.map { .number($0, decimals: 3) } ?? .null),
                ("travel_cost", Self.money(s.travelMinor, c)), ("total_with_travel", Self.money(s.totalWithTravelMinor, c)),
                ("saving", Self.money(s.savingMinor, c)),
            ])
        } ?? .null
        // Optional values as typed constants: inside the literal below they took 2 s to type-check.
        let bestStore: JSONOutput = best.map { .string($0.store.id) } ?? .null
        let bestTotal: JSONOutput = best.map { Self.money($0.totalMinor, c) } ?? .null
        let bestByEstimate: JSONOutput = r.bestByEstimate.map { .string($0.store.id) } ?? .null
        let leftOut: [JSONOutput] = r.otherCurrencies.map { .object([("currency", .string($0.currency)), ("records", .integer(Int64($0.records)))]) }
        let matched: [JSONOutput] = r.matched.map { m -> JSONOutput in
            .object([
                ("item", .string(m.item)), ("product_id", m.product.map { .integer($0.id) } ?? .null),
                ("product", m.product.map { .string($0.name) } ?? .null),
            ])
        }
        return .object([
            ("best_store", bestStore),
            ("best_total_price", bestTotal),
            ("best_currency", best != nil ? code : .null),
            ("total_items", .integer(Int64(r.totalItems))),
            ("available_items", .integer(Int64(best?.availableItems ?? 0))),
            ("stores", .array(stores)),
            ("as_of", .string(asOf.description)),
            ("candidates", .integer(Int64(r.candidates))),
            ("best_by_estimated_total", bestByEstimate),
            ("split", split),
            ("currencies_left_out", .array(leftOut)),
            ("matched", .array(matched)),
        ])
    }
}
