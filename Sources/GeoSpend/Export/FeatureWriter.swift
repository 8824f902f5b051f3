/// Writes an RFC 7946 FeatureCollection feature by feature: `[lon, lat]` positions rounded to
/// the requested decimals, one feature per line (diff-friendly), the provenance as the
/// top-level foreign member `geospend`, no `crs`.
///
/// ```swift
/// var w = FeatureWriter(sink: sink, precision: 6, provenance: .object([("layer", .string("points"))]))
/// w.beginFeature(id: "e1"); w.point(longitude: 24.94, latitude: 60.17)
/// w.beginProperties(); w.key("amount"); sink.money(1250, digits: 2); w.endFeature()
/// w.finish()
/// ```
struct FeatureWriter {
    let sink: ByteSink
    let precision: Int
    /// Told of each feature and its positions, when the caller asked for the features as values.
    let index: FeatureIndex?
    private var features = 0
    private var firstProperty = true

    init(sink: ByteSink, precision: Int, provenance: JSONOutput, index: FeatureIndex? = nil) {
        self.sink = sink
        self.precision = precision
        self.index = index
        sink.ascii("{\"type\":\"FeatureCollection\",\"geospend\":")
        sink.raw(provenance.serialized(pretty: false))
        sink.ascii(",\"features\":[")
    }

    mutating func beginFeature(id: String) {
        sink.ascii(features == 0 ? "\n" : ",\n")
        features += 1
        index?.begin(id: id, at: sink.count)
        sink.ascii("{\"type\":\"Feature\",\"id\":")
        sink.jsonString(id)
        sink.ascii(",\"geometry\":")
    }

    func position(longitude: Double, latitude: Double) {
        sink.byte(UInt8(ascii: "["))
        if let index {
            // The box of what the text says: the positions as rounded for it.
            index.position(
                longitude: ByteSink.asWritten(longitude, decimals: precision), latitude: ByteSink.asWritten(latitude, decimals: precision))
        }
        sink.fixed(longitude, decimals: precision)
        sink.byte(UInt8(ascii: ","))
        sink.fixed(latitude, decimals: precision)
        sink.byte(UInt8(ascii: "]"))
    }

    func point(longitude: Double, latitude: Double) {
        sink.ascii("{\"type\":\"Point\",\"coordinates\":")
        position(longitude: longitude, latitude: latitude)
        sink.byte(UInt8(ascii: "}"))
    }

    /// A Polygon for one exterior ring, a MultiPolygon for several (a cell cut at ±180°).
    /// Rings are closed [lon, lat] lists, counter-clockwise.
    func polygons(_ rings: [[[Double]]]) {
        func ring(_ r: [[Double]]) {
            sink.byte(UInt8(ascii: "["))
            for (n, p) in r.enumerated() {
                if n > 0 { sink.byte(UInt8(ascii: ",")) }
                position(longitude: p[0], latitude: p[1])
            }
            sink.byte(UInt8(ascii: "]"))
        }
        if rings.count == 1 {
            sink.ascii("{\"type\":\"Polygon\",\"coordinates\":[")
            ring(rings[0])
            sink.ascii("]}")
        } else {
            sink.ascii("{\"type\":\"MultiPolygon\",\"coordinates\":[")
            for (n, r) in rings.enumerated() {
                sink.ascii(n > 0 ? ",[" : "[")
                ring(r)
                sink.byte(UInt8(ascii: "]"))
            }
            sink.ascii("]}")
        }
    }

    mutating func beginProperties() {
        sink.ascii(",\"properties\":{")
        firstProperty = true
    }

    /// Writes `"name":`; the value follows through the sink.
    mutating func key(_ name: StaticString) {
        sink.jsonKey(name, first: firstProperty)
        firstProperty = false
    }

    mutating func string(_ name: StaticString, _ value: String?) {
        key(name)
        if let value { sink.jsonString(value) } else { sink.ascii("null") }
    }

    mutating func integer(_ name: StaticString, _ value: Int) {
        key(name)
        sink.integer(value)
    }

    mutating func money(_ name: StaticString, _ minorUnits: Int64, _ currency: Currency) {
        key(name)
        sink.money(minorUnits, digits: currency.minorDigits)
    }

    mutating func number(_ name: StaticString, _ value: Double, decimals: Int) {
        key(name)
        sink.fixed(value, decimals: decimals)
    }

    func endFeature() {
        sink.ascii("}}")
        index?.end(at: sink.count)
    }

    var count: Int { features }

    func finish() { sink.ascii(features == 0 ? "]}\n" : "\n]}\n") }
}
