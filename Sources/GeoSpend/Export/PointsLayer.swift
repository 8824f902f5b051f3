/// `points`: one Point per geotagged expense, streamed as read. `weight` is the amount divided
/// by the layer's largest amount (0–1; amounts are stored positive, so never negative).
enum PointsLayer {
    static func write(_ request: MapExportRequest, store: some ExpenseStore, to sink: ByteSink, progress: ExportProgress?) throws -> MapExportSummary {
        let (extent, choice) = try MapExport.extent(request.filter, store: store)
        let expected = extent?.count ?? 0
        let provenance = Provenance.object(
            layer: "points", request: request, currency: choice, features: expected, expenses: expected,
            totalMinor: extent?.totalMinor ?? 0, suppressed: 0,
            extra: [("weight", .string("amount / largest amount in the layer"))])
        var writer = FeatureWriter(sink: sink, precision: request.precision, provenance: provenance)
        let maxMinor = Double(max(extent?.maxMinor ?? 1, 1))
        var filter = request.filter
        filter.currency = extent?.currency
        try store.forEachSpendingPoint(filter, geotaggedOnly: true) { p in
            guard let c = p.coordinate else { return }
            writer.beginFeature(id: p.id)
            writer.point(longitude: c.longitude, latitude: c.latitude)
            writer.beginProperties()
            writer.money("amount", p.amountMinor, p.currency)
            writer.string("currency", p.currency.code)
            writer.string("kind", p.kind.rawValue)
            writer.key("occurred_at")
            sink.byte(UInt8(ascii: "\""))
            sink.rfc3339(epochMilliseconds: p.occurredMilliseconds, utcOffsetMinutes: p.utcOffsetMinutes, localDate: p.localDate)
            sink.byte(UInt8(ascii: "\""))
            writer.string("category", p.category)
            writer.string("store_id", p.storeID)
            writer.number("weight", Double(p.amountMinor) / maxMinor, decimals: 6)
            writer.endFeature()
            if writer.count % 65_536 == 0 { progress?(writer.count, expected) }
        }
        writer.finish()
        progress?(writer.count, expected)
        return MapExportSummary(features: writer.count, suppressed: 0, currency: extent?.currency, totalMinor: extent?.totalMinor ?? 0, leftOutCurrencies: choice.leftOut)
    }

    /// Leaflet.heat's input: `[[lat, lon, intensity], …]`, latitude first, intensity 0–1.
    static func writeLeafletHeat(_ request: MapExportRequest, store: some ExpenseStore, to sink: ByteSink, progress: ExportProgress?) throws -> MapExportSummary {
        let (extent, choice) = try MapExport.extent(request.filter, store: store)
        let expected = extent?.count ?? 0
        let maxMinor = Double(max(extent?.maxMinor ?? 1, 1))
        var filter = request.filter
        filter.currency = extent?.currency
        var n = 0
        sink.byte(UInt8(ascii: "["))
        try store.forEachSpendingPoint(filter, geotaggedOnly: true) { p in
            guard let c = p.coordinate else { return }
            sink.ascii(n == 0 ? "\n[" : ",\n[")
            sink.fixed(c.latitude, decimals: request.precision)
            sink.byte(UInt8(ascii: ","))
            sink.fixed(c.longitude, decimals: request.precision)
            sink.byte(UInt8(ascii: ","))
            sink.fixed(Double(p.amountMinor) / maxMinor, decimals: 6)
            sink.byte(UInt8(ascii: "]"))
            n += 1
            if n % 65_536 == 0 { progress?(n, expected) }
        }
        sink.ascii(n == 0 ? "]\n" : "\n]\n")
        progress?(n, expected)
        return MapExportSummary(features: n, suppressed: 0, currency: extent?.currency, totalMinor: extent?.totalMinor ?? 0, leftOutCurrencies: choice.leftOut)
    }

    /// CSV for kepler.gl and spreadsheets: `latitude`/`longitude` columns it detects, exact
    /// amounts, text cells quoted and guarded against formula injection (a leading `= + - @`,
    /// tab or NUL gets a `'`; REFERENCE.md).
    static func writeCSV(_ request: MapExportRequest, store: some ExpenseStore, to sink: ByteSink, progress: ExportProgress?) throws -> MapExportSummary {
        let (extent, choice) = try MapExport.extent(request.filter, store: store)
        let expected = extent?.count ?? 0
        let maxMinor = Double(max(extent?.maxMinor ?? 1, 1))
        var filter = request.filter
        filter.currency = extent?.currency
        var n = 0
        sink.ascii("id,latitude,longitude,amount,currency,kind,occurred_at,category,store_id,weight\n")
        try store.forEachSpendingPoint(filter, geotaggedOnly: true) { p in
            guard let c = p.coordinate else { return }
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
            sink.rfc3339(epochMilliseconds: p.occurredMilliseconds, utcOffsetMinutes: p.utcOffsetMinutes, localDate: p.localDate)
            sink.byte(UInt8(ascii: ","))
            csvText(p.category ?? "", sink)
            sink.byte(UInt8(ascii: ","))
            csvText(p.storeID ?? "", sink)
            sink.byte(UInt8(ascii: ","))
            sink.fixed(Double(p.amountMinor) / maxMinor, decimals: 6)
            sink.byte(UInt8(ascii: "\n"))
            n += 1
            if n % 65_536 == 0 { progress?(n, expected) }
        }
        progress?(n, expected)
        return MapExportSummary(features: n, suppressed: 0, currency: extent?.currency, totalMinor: extent?.totalMinor ?? 0, leftOutCurrencies: choice.leftOut)
    }

    /// A text cell, quoted and defused as `CSVTable` does it.
    static func csvText(_ value: String, _ sink: ByteSink) {
        sink.raw(CSVTable.escape(CSVTable.defuse(value)))
    }
}
