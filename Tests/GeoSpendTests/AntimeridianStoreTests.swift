import Foundation
import Testing

@testable import GeoSpend

/// Issue 35 (hardening round 2), item 19: a store drawn as a polygon across ±180° (Fiji, the
/// Chukotka coast) was placed at longitude 0: read as planar degrees, its ring spans the globe.
/// Now the ring is unwrapped before GEOS's point on surface and the point brought back.
@Suite struct AntimeridianStoreTests {
    static func stores(_ geometry: String) throws -> [Store] {
        let doc = #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"s1","properties":{"name":"Fiji Mart"},"geometry":\#(geometry)}]}"#
        var found: [Store] = []
        _ = try Fixtures.withFile(Array(doc.utf8)) { path in
            try RecordReaders.geoJSONStores(path: path, displayName: "places") { result in
                switch result {
                case .success(let s): found.append(s.store)
                case .failure(let e): Issue.record("\(e)")
                }
            }
        }
        return found
    }

    /// Inside the square from 179.9° E across the line to 179.9° W, 16.9° to 17° S.
    static func insideTheSquare(_ c: Coordinate) -> Bool {
        abs(c.longitude) >= 179.9 && abs(c.longitude) <= 180 && c.latitude > -17 && c.latitude < -16.9
    }

    @Test func polygonAcrossTheAntimeridianIsPlacedInside() throws {
        let square = "[[179.9,-17.0],[-179.9,-17.0],[-179.9,-16.9],[179.9,-16.9],[179.9,-17.0]]"
        let store = try #require(try Self.stores(#"{"type":"Polygon","coordinates":[\#(square)]}"#).first)
        #expect(Self.insideTheSquare(store.coordinate), "placed at \(store.coordinate)")
        // Drawn the other way round, starting west of the line.
        let reversed = "[[-179.9,-17.0],[-179.9,-16.9],[179.9,-16.9],[179.9,-17.0],[-179.9,-17.0]]"
        let other = try #require(try Self.stores(#"{"type":"Polygon","coordinates":[\#(reversed)]}"#).first)
        #expect(Self.insideTheSquare(other.coordinate), "placed at \(other.coordinate)")
    }

    /// A multipolygon with one part across the line and one just west of it; and one split at the
    /// line as RFC 7946 asks (no ring crosses: already right, and kept so).
    @Test func multipolygonsAcrossTheAntimeridianArePlacedInside() throws {
        let crossing = "[[[179.9,-17.0],[-179.9,-17.0],[-179.9,-16.9],[179.9,-16.9],[179.9,-17.0]]]"
        let west = "[[[-179.5,-17.0],[-179.4,-17.0],[-179.4,-16.9],[-179.5,-16.9],[-179.5,-17.0]]]"
        let store = try #require(try Self.stores(#"{"type":"MultiPolygon","coordinates":[\#(crossing),\#(west)]}"#).first)
        let c = store.coordinate
        #expect(Self.insideTheSquare(c) || (c.longitude > -179.5 && c.longitude < -179.4 && c.latitude > -17 && c.latitude < -16.9), "placed at \(c)")
        let east = "[[[179.9,-17.0],[180,-17.0],[180,-16.9],[179.9,-16.9],[179.9,-17.0]]]"
        let westHalf = "[[[-180,-17.0],[-179.9,-17.0],[-179.9,-16.9],[-180,-16.9],[-180,-17.0]]]"
        let split = try #require(try Self.stores(#"{"type":"MultiPolygon","coordinates":[\#(east),\#(westHalf)]}"#).first)
        #expect(Self.insideTheSquare(split.coordinate), "placed at \(split.coordinate)")
    }

    /// A polygon with a hole across the line: the point is in the ring, not in the hole.
    @Test func holesAcrossTheAntimeridianStayHoles() throws {
        let outer = "[[179.0,-18.0],[-179.0,-18.0],[-179.0,-16.0],[179.0,-16.0],[179.0,-18.0]]"
        let hole = "[[-179.5,-17.5],[179.5,-17.5],[179.5,-16.5],[-179.5,-16.5],[-179.5,-17.5]]"
        let c = try #require(try Self.stores(#"{"type":"Polygon","coordinates":[\#(outer),\#(hole)]}"#).first).coordinate
        let inOuter = abs(c.longitude) >= 179 && c.latitude > -18 && c.latitude < -16
        let inHole = abs(c.longitude) > 179.5 && c.latitude > -17.5 && c.latitude < -16.5
        #expect(inOuter && !inHole, "placed at \(c)")
    }

    /// Shapes away from the line are computed as before (the unwrapping changes nothing).
    @Test func polygonsAwayFromTheLineAreUnchanged() throws {
        let rings: [PointOnSurface.Polygon] = [[[(24.9, 60.1), (25.0, 60.1), (25.0, 60.2), (24.9, 60.2), (24.9, 60.1)]]]
        // The longitudes spelled out with their types: inferred, this line took 13 s to type-check.
        let longitudes: (PointOnSurface.Polygon) -> [Double] = { polygon in polygon.flatMap { ring in ring.map(\.lon) } }
        #expect(PointOnSurface.unwrapped(rings).flatMap(longitudes) == rings.flatMap(longitudes))
        let c = try PointOnSurface.compute(rings)
        #expect(c.longitude > 24.9 && c.longitude < 25.0 && c.latitude > 60.1 && c.latitude < 60.2)
    }
}
