import CGEOS

/// The point GEOS guarantees to lie inside a polygon or multipolygon (`GEOSPointOnSurface`), for
/// a place drawn as an area (a shopping centre as a building outline). A centroid is not enough:
/// the centroid of a U-shaped building lies in its courtyard, outside it.
///
/// Computed in longitude/latitude degrees as given (planar): for the size of a building the
/// distortion does not move the point out of the shape. Uses GEOS's reentrant API, one context
/// per call.
enum PointOnSurface {
    /// A ring of `[longitude, latitude]` positions, closed (first == last), at least 4 of them.
    typealias Ring = [(lon: Double, lat: Double)]
    /// An outer ring and its holes.
    typealias Polygon = [Ring]

    /// - Throws: a reason when a ring is not closed or too short, or the shape is not a valid
    ///   polygon (self-intersecting, say), with GEOS's description of where.
    static func compute(_ polygons: [Polygon]) throws(FieldError) -> Coordinate {
        guard let ctx = GEOS_init_r() else { throw FieldError(column: "geometry", reason: "GEOS could not start") }
        defer { GEOS_finish_r(ctx) }
        var built: [OpaquePointer?] = []
        defer { for g in built { GEOSGeom_destroy_r(ctx, g) } }  // only those not handed to a parent

        func ring(_ r: Ring) throws(FieldError) -> OpaquePointer {
            guard r.count >= 4, r.first! == r.last! else {
                throw FieldError(column: "geometry", reason: "has a ring that is not closed or has fewer than 4 positions")
            }
            guard let seq = GEOSCoordSeq_create_r(ctx, UInt32(r.count), 2) else {
                throw FieldError(column: "geometry", reason: "GEOS could not build a ring")
            }
            for (i, p) in r.enumerated() { GEOSCoordSeq_setXY_r(ctx, seq, UInt32(i), p.lon, p.lat) }
            guard let g = GEOSGeom_createLinearRing_r(ctx, seq) else {
                throw FieldError(column: "geometry", reason: "GEOS could not build a ring")
            }
            return g
        }
        for polygon in polygons {
            guard let outer = polygon.first else { throw FieldError(column: "geometry", reason: "has a polygon without rings") }
            let shell = try ring(outer)
            var holes: [OpaquePointer?] = []
            do {
                for h in polygon.dropFirst() { holes.append(try ring(h)) }
            } catch {
                GEOSGeom_destroy_r(ctx, shell)
                for h in holes { GEOSGeom_destroy_r(ctx, h) }
                throw error
            }
            let p = holes.withUnsafeMutableBufferPointer { GEOSGeom_createPolygon_r(ctx, shell, $0.baseAddress, UInt32($0.count)) }
            built.append(p)
        }
        var geometry: OpaquePointer?
        if built.count == 1 {
            geometry = built.removeFirst()
        } else {
            geometry = built.withUnsafeMutableBufferPointer {
                GEOSGeom_createCollection_r(ctx, Int32(GEOS_MULTIPOLYGON.rawValue), $0.baseAddress, UInt32($0.count))
            }
            built.removeAll()  // owned by the collection now
        }
        guard let geometry else { throw FieldError(column: "geometry", reason: "GEOS could not build the polygon") }
        defer { GEOSGeom_destroy_r(ctx, geometry) }
        guard GEOSisValid_r(ctx, geometry) == 1 else {
            var reason = "is not a valid polygon"
            if let r = GEOSisValidReason_r(ctx, geometry) {
                reason += " (GEOS: \(String(cString: r)))"
                GEOSFree_r(ctx, r)
            }
            throw FieldError(column: "geometry", reason: reason + "; fix the outline, e.g. with ogr2ogr -makevalid")
        }
        guard let point = GEOSPointOnSurface_r(ctx, geometry) else {
            throw FieldError(column: "geometry", reason: "GEOS found no point on its surface")
        }
        defer { GEOSGeom_destroy_r(ctx, point) }
        var x = 0.0, y = 0.0
        guard GEOSGeomGetX_r(ctx, point, &x) == 1, GEOSGeomGetY_r(ctx, point, &y) == 1,
            (-90.0...90.0).contains(y), (-180.0...180.0).contains(x)
        else { throw FieldError(column: "geometry", reason: "GEOS found no point on its surface") }
        return Coordinate(uncheckedLatitude: y, longitude: x)
    }
}
