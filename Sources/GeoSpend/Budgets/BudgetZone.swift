import CGEOS

/// Where a zone budget counts: within `radius` of a point (geodesic distance on WGS84, ≤), or
/// inside a polygon read from GeoJSON (its boundary included; GEOS decides, in longitude and
/// latitude degrees).
///
/// A polygon is kept as a GeoJSON MultiPolygon text. Like every GeoJSON polygon
/// (RFC 7946, §3.1.9 "Antimeridian Cutting", https://www.rfc-editor.org/rfc/rfc7946#section-3.1.9)
/// a zone crossing ±180° must be cut in two there: an edge spanning more than 180° of longitude
/// is refused, since read planar it would go the long way round the Earth.
public enum BudgetZone: Sendable, Hashable {
    case circle(center: Coordinate, radius: Distance)
    /// `{"type":"MultiPolygon","coordinates":…}`, coordinates written as Swift's shortest
    /// round-trip digits.
    case polygon(geoJSON: String)

    /// Reads a Polygon or MultiPolygon, bare or as the geometry of a Feature or of a
    /// FeatureCollection's only feature, and checks it with GEOS.
    /// - Throws: `ValueError.invalidValue` saying what is wrong and how to fix it.
    public static func parsing(geoJSON bytes: [UInt8], source: String) throws(ValueError) -> BudgetZone {
        let root: JSONValue
        do { root = try StrictJSONParser.parse(bytes) } catch {
            throw .invalidValue(source, reason: "is not JSON (byte \(error.offset): \(error.reason))")
        }
        var geometry = root
        if case .string("FeatureCollection")? = root["type"] {
            guard case .array(let features)? = root["features"], features.count == 1 else {
                throw .invalidValue(source, reason: "is a FeatureCollection without exactly one feature; keep only the zone's polygon")
            }
            geometry = features[0]
        }
        if case .string("Feature")? = geometry["type"] { geometry = geometry["geometry"] ?? .null }
        let polygons: [[[Position]]]
        switch geometry["type"] {
        case .string("Polygon")?: polygons = [try rings(geometry["coordinates"], source)]
        case .string("MultiPolygon")?:
            guard case .array(let items)? = geometry["coordinates"], !items.isEmpty else {
                throw .invalidValue(source, reason: "has a MultiPolygon without polygons")
            }
            var all: [[[Position]]] = []
            for item in items { all.append(try rings(item, source)) }
            polygons = all
        default:
            throw .invalidValue(source, reason: "has no Polygon or MultiPolygon geometry; a zone is an area (or use --zone-around LAT,LON --zone-radius R)")
        }
        let text = "{\"type\":\"MultiPolygon\",\"coordinates\":["
            + polygons.map { p in "[" + p.map { r in "[" + r.map { "[\($0.lon),\($0.lat)]" }.joined(separator: ",") + "]" }.joined(separator: ",") + "]" }
                .joined(separator: ",") + "]}"
        _ = try Matcher(polygons: polygons, source: source)  // valid for GEOS
        return .polygon(geoJSON: text)
    }

    /// The polygons of a stored zone.
    public var polygons: [[[Position]]] {
        guard case .polygon(let text) = self, let value = try? StrictJSONParser.parse(Array(text.utf8)),
            case .array(let items)? = value["coordinates"]
        else { return [] }
        return items.compactMap { try? Self.rings($0, "zone") }
    }

    public typealias Position = (lon: Double, lat: Double)

    private static func rings(_ value: JSONValue?, _ source: String) throws(ValueError) -> [[Position]] {
        guard case .array(let ringValues)? = value, !ringValues.isEmpty else {
            throw .invalidValue(source, reason: "has a polygon without rings")
        }
        var rings: [[Position]] = []
        for ringValue in ringValues {
            guard case .array(let positions) = ringValue else { throw .invalidValue(source, reason: "has a ring that is not an array of positions") }
            var ring: [Position] = []
            for p in positions {
                guard case .array(let xy) = p, xy.count >= 2, case .number(let x) = xy[0], case .number(let y) = xy[1],
                    let lon = Double(x), let lat = Double(y)
                else { throw .invalidValue(source, reason: "has a position that is not [longitude, latitude]") }
                guard (-180.0...180.0).contains(lon), (-90.0...90.0).contains(lat) else {
                    throw .invalidValue(source, reason: "has position [\(x), \(y)] outside longitude −180…180 / latitude −90…90 (positions are [longitude, latitude])")
                }
                if let last = ring.last, abs(last.lon - lon) > 180 {
                    throw .invalidValue(source, reason: "has an edge from longitude \(last.lon) to \(lon), more than 180° wide: cut the zone in two at the antimeridian (RFC 7946 §3.1.9) as a MultiPolygon")
                }
                ring.append((lon, lat))
            }
            guard ring.count >= 4, ring.first! == ring.last! else {
                throw .invalidValue(source, reason: "has a ring that is not closed or has fewer than 4 positions")
            }
            rings.append(ring)
        }
        return rings
    }

    /// Decides "in the zone" for many points: one GEOS context and one prepared geometry.
    public final class Matcher {
        private let zone: BudgetZone?
        private let ctx: GEOSContextHandle_t?
        private var geometry: OpaquePointer?
        private var prepared: OpaquePointer?

        public convenience init(_ zone: BudgetZone) {
            switch zone {
            case .circle: try! self.init(zone: zone, polygons: [], source: "")
            case .polygon: try! self.init(zone: zone, polygons: zone.polygons, source: "zone")
            }
        }

        convenience init(polygons: [[[Position]]], source: String) throws(ValueError) {
            try self.init(zone: nil, polygons: polygons, source: source)
        }

        private init(zone: BudgetZone?, polygons: [[[Position]]], source: String) throws(ValueError) {
            self.zone = zone
            guard !polygons.isEmpty else { ctx = nil; return }
            ctx = GEOS_init_r()
            guard let ctx else { throw .invalidValue(source, reason: "could not be read: GEOS did not start") }
            var built: [OpaquePointer?] = []
            func ring(_ r: [Position]) -> OpaquePointer? {
                guard let seq = GEOSCoordSeq_create_r(ctx, UInt32(r.count), 2) else { return nil }
                for (i, p) in r.enumerated() { GEOSCoordSeq_setXY_r(ctx, seq, UInt32(i), p.lon, p.lat) }
                return GEOSGeom_createLinearRing_r(ctx, seq)
            }
            for p in polygons {
                guard let shell = ring(p[0]) else { continue }
                var holes = p.dropFirst().map(ring)
                built.append(holes.withUnsafeMutableBufferPointer { GEOSGeom_createPolygon_r(ctx, shell, $0.baseAddress, UInt32($0.count)) })
            }
            geometry = built.withUnsafeMutableBufferPointer {
                GEOSGeom_createCollection_r(ctx, Int32(GEOS_MULTIPOLYGON.rawValue), $0.baseAddress, UInt32($0.count))
            }
            guard let geometry, GEOSisValid_r(ctx, geometry) == 1 else {
                var reason = "is not a valid polygon"
                if let geometry, let r = GEOSisValidReason_r(ctx, geometry) {
                    reason += " (GEOS: \(String(cString: r)))"
                    GEOSFree_r(ctx, r)
                }
                throw .invalidValue(source, reason: reason + "; fix the outline, e.g. with ogr2ogr -makevalid")
            }
            prepared = GEOSPrepare_r(ctx, geometry)
        }

        deinit {
            if let ctx {
                if let prepared { GEOSPreparedGeom_destroy_r(ctx, prepared) }
                if let geometry { GEOSGeom_destroy_r(ctx, geometry) }
                GEOS_finish_r(ctx)
            }
        }

        /// Whether a point is in the zone; a point without a position never is.
        public func contains(_ c: Coordinate?) -> Bool {
            guard let c else { return false }
            switch zone {
            case .circle(let center, let radius)?: return Geodesic.isWithin(center, c, meters: radius.meters)
            case .polygon?:
                guard let ctx, let prepared, let seq = GEOSCoordSeq_create_r(ctx, 1, 2) else { return false }
                GEOSCoordSeq_setXY_r(ctx, seq, 0, c.longitude, c.latitude)
                guard let point = GEOSGeom_createPoint_r(ctx, seq) else { return false }
                defer { GEOSGeom_destroy_r(ctx, point) }
                return GEOSPreparedCovers_r(ctx, prepared, point) == 1
            case nil: return true
            }
        }
    }
}
