/// `points` (GeoJSON or CSV) and `leaflet-heat`: one entry per geotagged expense, streamed as
/// read. `weight` is the amount divided by the layer's largest amount (0–1; amounts are stored
/// positive, so never negative). Positions go through `PositionPrivacy` (masks, noise,
/// rounding) before anything is written.
enum PointsLayer {
    /// What the three point formats share: the layer's currency, the filter narrowed to it, the
    /// weight scale, the published positions, and the streaming loop with its progress reports.
    struct Selection {
        let extent: GeotaggedExtent?
        let choice: LayerCurrency
        let filter: ExpenseFilter
        let privacy: PositionPrivacy
        /// How many points go out and their total: the extent's, or with masks those of a
        /// counting pass, so no header figure includes a masked point (largest amount included).
        let expected: Int
        let totalMinor: Int64
        private let largest: Double

        /// `readsMerchant` false leaves the merchant unread (a points selection without it).
        init(_ request: MapExportRequest, reader: some ExpenseReader, readsMerchant: Bool = true) throws {
            let (extent, found) = try MapExport.extent(request.filter, reader: reader)
            var choice = found
            if extent == nil, request.filter.currency != nil {
                // None in the asked currency: the layer is empty, and names what the selection has.
                var any = request.filter
                any.currency = nil
                let others = try reader.geotaggedExtent(any).map { "\($0.currency.code) \($0.count)" }
                choice = LayerCurrency(noneOf: others)
            }
            (self.extent, self.choice) = (extent, choice)
            // Always one currency. (A nil extent once cleared the filter's currency: the layer then
            // read every currency, weighted by a largest amount of 1 — weights in minor units.)
            // With no extent nothing is read (`forEach`); the asked currency stays in the filter.
            var filter = request.filter
            filter.currency = extent?.currency ?? request.filter.currency
            filter.readsMerchant = readsMerchant
            self.filter = filter
            let privacy = PositionPrivacy(request.privacy)
            self.privacy = privacy
            switch (extent, privacy.regions.isEmpty) {
            case (nil, _):
                (expected, totalMinor, largest) = (0, 0, 1)
            case (let extent?, true):
                (expected, totalMinor, largest) = (extent.count, extent.totalMinor, Double(max(extent.maxMinor, 1)))
            case (_?, false):
                var (n, total, most) = (0, Int64(0), Int64(1))
                try reader.forEachSpendingPoint(filter, geotaggedOnly: true) { p in
                    guard let c = p.coordinate, privacy.published(c, id: p.id) != nil else { return }
                    (n, total, most) = (n + 1, total + p.amountMinor, max(most, p.amountMinor))
                }
                (expected, totalMinor, largest) = (n, total, Double(most))
            }
        }

        func weight(_ p: SpendingPoint) -> Double { Double(p.amountMinor) / largest }

        /// Where each position came from (`position_source`, an absent row reads `device`), for
        /// one user's layer only: a layer across users never says it, as it would tell who has a
        /// location history. Nil across users.
        static func positionSources(_ request: MapExportRequest, reader: some ExpenseReader) throws -> [String: PositionSource]? {
            request.filter.userID == nil ? nil : try reader.positionSources(request.filter)
        }

        /// Streams the selection's points with their positions, in the reader's batches (memory
        /// stays flat, the order is the store's); returns how many went out.
        func forEach(
            reader: some ExpenseReader, progress: ExportProgress?, _ body: (SpendingPoint, Coordinate) throws -> Void
        ) throws -> Int {
            var n = 0
            guard extent != nil else {
                progress?(0, 0)
                return 0
            }
            try reader.forEachSpendingPoint(filter, geotaggedOnly: true) { p in
                guard let c = p.coordinate, let out = privacy.published(c, id: p.id) else { return }
                try body(p, out)
                n += 1
                if n % 65_536 == 0 { progress?(n, expected) }
            }
            progress?(n, expected)
            return n
        }

        func summary(features: Int) -> MapExportSummary {
            MapExportSummary(
                features: features, suppressed: 0, currency: extent?.currency, totalMinor: totalMinor,
                leftOutCurrencies: choice.leftOut)
        }
    }

    static func write(_ request: MapExportRequest, reader: some ExpenseReader, to sink: ByteSink, progress: ExportProgress?) throws -> MapExportSummary {
        let wanted = request.pointProperties ?? Set(PointProperty.allCases)
        let selection = try Selection(request, reader: reader, readsMerchant: wanted.contains(.merchant))
        var extra: [(String, JSONOutput)] = []
        if wanted.contains(.weight) { extra.append(("weight", .string("amount / largest amount in the layer"))) }
        if let chosen = request.pointProperties { extra.append(("properties", .array(chosen.sorted().map { .string($0.rawValue) }))) }
        let provenance = Provenance.object(
            layer: "points", request: request, currency: selection.choice, features: selection.expected,
            expenses: selection.expected, totalMinor: selection.totalMinor, suppression: nil, extra: extra)
        var writer = FeatureWriter(sink: sink, precision: request.precision, provenance: provenance, index: request.featureIndex)
        // Asked once, not per feature: ten million points would ask nine sets each.
        let (amount, currency, kind, occurredAt) = (wanted.contains(.amount), wanted.contains(.currency), wanted.contains(.kind), wanted.contains(.occurredAt))
        let (category, merchant, storeID, weight) = (wanted.contains(.category), wanted.contains(.merchant), wanted.contains(.storeID), wanted.contains(.weight))
        let sources = wanted.contains(.positionSource) ? try Selection.positionSources(request, reader: reader) : nil
        let n = try selection.forEach(reader: reader, progress: progress) { p, c in
            writer.beginFeature(id: p.id)
            writer.point(longitude: c.longitude, latitude: c.latitude)
            writer.beginProperties()
            if amount { writer.money("amount", p.amountMinor, p.currency) }
            if currency { writer.string("currency", p.currency.code) }
            if kind { writer.string("kind", p.kind.rawValue) }
            if occurredAt {
                writer.key("occurred_at")
                sink.byte(UInt8(ascii: "\""))
                sink.rfc3339(epochMilliseconds: p.occurredMilliseconds, utcOffsetMinutes: p.utcOffsetMinutes)
                sink.byte(UInt8(ascii: "\""))
            }
            if category { writer.string("category", p.category) }
            if merchant { writer.string("merchant", p.merchant) }
            if storeID { writer.string("store_id", p.storeID) }
            if let sources { writer.string("position_source", (sources[p.id] ?? .device).rawValue) }
            if weight { writer.number("weight", selection.weight(p), decimals: 6) }
            writer.endFeature()
        }
        writer.finish()
        return selection.summary(features: n)
    }

    /// Leaflet.heat's input: `[[lat, lon, intensity], …]`, latitude first, intensity 0–1.
    static func writeLeafletHeat(_ request: MapExportRequest, reader: some ExpenseReader, to sink: ByteSink, progress: ExportProgress?) throws -> MapExportSummary {
        let selection = try Selection(request, reader: reader)
        var first = true
        sink.byte(UInt8(ascii: "["))
        let n = try selection.forEach(reader: reader, progress: progress) { p, c in
            sink.ascii(first ? "\n[" : ",\n[")
            first = false
            sink.fixed(c.latitude, decimals: request.precision)
            sink.byte(UInt8(ascii: ","))
            sink.fixed(c.longitude, decimals: request.precision)
            sink.byte(UInt8(ascii: ","))
            sink.fixed(selection.weight(p), decimals: 6)
            sink.byte(UInt8(ascii: "]"))
        }
        sink.ascii(n == 0 ? "]\n" : "\n]\n")
        return selection.summary(features: n)
    }

    /// CSV for kepler.gl and spreadsheets: `latitude`/`longitude` columns it detects, exact
    /// amounts, text cells quoted and defused as `CSVTable` does it (formula injection). One
    /// user's layer has a last column, `position_source`, as the GeoJSON layer has the property.
    static func writeCSV(_ request: MapExportRequest, reader: some ExpenseReader, to sink: ByteSink, progress: ExportProgress?) throws -> MapExportSummary {
        let selection = try Selection(request, reader: reader)
        let sources = try Selection.positionSources(request, reader: reader)
        sink.ascii("id,latitude,longitude,amount,currency,kind,occurred_at,category,merchant,store_id,weight")
        sink.ascii(sources == nil ? "\n" : ",position_source\n")
        let n = try selection.forEach(reader: reader, progress: progress) { p, c in
            csvText(p.id, sink)
            sink.byte(UInt8(ascii: ","))
            sink.fixed(c.latitude, decimals: request.precision)
            sink.byte(UInt8(ascii: ","))
            sink.fixed(c.longitude, decimals: request.precision)
            sink.byte(UInt8(ascii: ","))
            sink.money(p.amountMinor, digits: p.currency.minorDigits)
            sink.byte(UInt8(ascii: ","))
            sink.raw(p.currency.code)
            sink.byte(UInt8(ascii: ","))
            sink.raw(p.kind.rawValue)
            sink.byte(UInt8(ascii: ","))
            sink.rfc3339(epochMilliseconds: p.occurredMilliseconds, utcOffsetMinutes: p.utcOffsetMinutes)
            sink.byte(UInt8(ascii: ","))
            csvText(p.category ?? "", sink)
            sink.byte(UInt8(ascii: ","))
            csvText(p.merchant ?? "", sink)
            sink.byte(UInt8(ascii: ","))
            csvText(p.storeID ?? "", sink)
            sink.byte(UInt8(ascii: ","))
            sink.fixed(selection.weight(p), decimals: 6)
            if let sources {
                sink.byte(UInt8(ascii: ","))
                sink.raw((sources[p.id] ?? .device).rawValue)
            }
            sink.byte(UInt8(ascii: "\n"))
        }
        return selection.summary(features: n)
    }

    /// A text cell, quoted and defused as `CSVTable` does it.
    static func csvText(_ value: String, _ sink: ByteSink) {
        sink.raw(CSVTable.escape(CSVTable.defuse(value)))
    }
}
