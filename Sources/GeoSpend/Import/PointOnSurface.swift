import CGEOS

/// The point GEOS guarantees to lie inside a polygon or multipolygon (`GEOSPointOnSurface`), for
/// a place drawn as an area (a shopping centre as a building outline). A centroid is not enough:
/// the centroid of a U-shaped building lies in its courtyard, outside it.
///
/// Computed in longitude/latitude degrees as given (planar): for the size of a building the
/// distortion does not move the point out of the shape. Uses GEOS's reentrant API, one context
/// per call.
///
/// A shape that crosses the antimeridian (a ring stepping from 179.9° to -179.9°) is unwrapped
/// first, its longitudes made continuous past ±180°, and the point brought back into
/// -180...180: read as drawn, such a ring spans the whole globe and its point lands near
/// longitude 0 (issue 35, item 19).
enum PointOnSurface {
    /// A ring of `[longitude, latitude]` positions, closed (first == last), at least 4 of them.
    typealias Ring = [(lon: Double, lat: Double)]
    /// An outer ring and its holes.
    typealias Polygon = [Ring]

    /// - Throws: a reason when a ring is not closed or too short, or the shape is not a valid
    ///   polygon (self-intersecting, say), with GEOS's description of where.
    static func compute(_ polygons: [Polygon]) throws(FieldError) -> Coordinate {
        let polygons = unwrapped(polygons)
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
        guard GEOSGeomGetX_r(ctx, point, &x) == 1, GEOSGeomGetY_r(ctx, point, &y) == 1 else {
            throw FieldError(column: "geometry", reason: "GEOS found no point on its surface")
        }
        if x > 180 { x -= 360 } else if x < -180 { x += 360 }  // back from an unwrapped shape
        guard (-90.0...90.0).contains(y), (-180.0...180.0).contains(x) else {
            throw FieldError(column: "geometry", reason: "GEOS found no point on its surface")
        }
        return Coordinate(uncheckedLatitude: y, longitude: x)
    }

    /// The polygons as given when no ring steps more than 180° in longitude; else every ring with
    /// its longitudes made continuous (each step the short way round), holes and later polygons
    /// moved by whole turns next to the first outer ring. A ring that does not close once
    /// unwrapped (one around a pole) is left as drawn.
    static func unwrapped(_ polygons: [Polygon]) -> [Polygon] {
        let crosses = polygons.contains { $0.contains { ring in zip(ring, ring.dropFirst()).contains { abs($1.lon - $0.lon) > 180 } } }
        guard crosses else { return polygons }
        let anchor = polygons.first?.first?.first?.lon ?? 0
        func unwrap(_ ring: Ring) -> Ring {
            guard let first = ring.first else { return ring }
            var out: Ring = []
            out.reserveCapacity(ring.count)
            // The ring's start moved by whole turns next to the anchor, then each step the short way.
            var previous = first.lon + 360 * ((anchor - first.lon) / 360).rounded()
            out.append((previous, first.lat))
            for (a, b) in zip(ring, ring.dropFirst()) {
                var step = b.lon - a.lon
                if step > 180 { step -= 360 } else if step < -180 { step += 360 }
                previous += step
                out.append((previous, b.lat))
            }
            guard out.first! == out.last! || abs(out.first!.lon - out.last!.lon) < 1e-9 else { return ring }
            out[out.count - 1] = out[0]
            return out
        }
        return polygons.map { $0.map(unwrap) }
    }
}
