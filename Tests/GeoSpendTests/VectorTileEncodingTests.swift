import Foundation
import GeoSpendTestSupport
import Testing

@testable import GeoSpend

/// The vector tile encoder against hand-worked examples: the Protocol Buffers encoding guide
/// (https://protobuf.dev/programming-guides/encoding/: 150 is `96 01`, the zigzag table), the
/// geometry examples of the Mapbox Vector Tile 2.1 spec (§ 4.3.5, github.com/mapbox/vector-tile-spec
/// 2.1/README.md), mvt-fixtures' clipped square 055 (github.com/mapbox/mvt-fixtures, its
/// command list worked by hand), a one-feature tile worked byte by byte from vector_tile.proto
/// (and checked to decode with PyPI mapbox-vector-tile 2.2.0 as `{'a': … Point (25, 17), k: 1}`),
/// and tile numbers from the OpenStreetMap wiki's formula (Slippy_map_tilenames) in Python.
@Suite struct VectorTileEncodingTests {
    @Test func varintsAreBase128LowGroupFirst() {
        func encoded(_ v: UInt64) -> [UInt8] {
            var w = ProtobufWriter()
            w.varint(v)
            return w.bytes
        }
        #expect(encoded(0) == [0x00])
        #expect(encoded(1) == [0x01])
        #expect(encoded(150) == [0x96, 0x01])
        #expect(encoded(300) == [0xAC, 0x02])
        #expect(encoded(4096) == [0x80, 0x20])
        #expect(encoded(UInt64.max) == [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])
    }

    @Test func zigzagMapsSignedToUnsignedAsTheGuideTabulates() {
        #expect([0, -1, 1, -2, 2].map(ProtobufWriter.zigzag) == [0, 1, 2, 3, 4])
        #expect(ProtobufWriter.zigzag(Int64.max) == UInt64.max - 1)
        #expect(ProtobufWriter.zigzag(Int64.min) == UInt64.max)
        #expect(ProtobufWriter.zigzag32(2_147_483_647) == 4_294_967_294)
        #expect(ProtobufWriter.zigzag32(-2_147_483_648) == 4_294_967_295)
        #expect(ProtobufWriter.zigzag32(-4094) == 8187)
    }

    @Test func geometryCommandsMatchTheSpecsExamples() {
        // § 4.3.5.1 point, § 4.3.5.2 multipoint.
        #expect(TileGeometry.points([(25, 17)]) == [9, 50, 34])
        #expect(TileGeometry.points([(5, 7), (3, 2)]) == [17, 10, 14, 3, 9])
        // § 4.3.5.5 polygon: MoveTo(3,6) LineTo(5,6) LineTo(12,22) ClosePath.
        #expect(TileGeometry.polygons([[(3, 6), (8, 12), (20, 34)]]) == [9, 6, 12, 18, 10, 12, 24, 44, 15])
        // § 4.3.5.6's first polygon, then a second exterior ring: the cursor carries over.
        #expect(TileGeometry.polygons([[(0, 0), (10, 0), (10, 10), (0, 10)], [(11, 11), (20, 11), (20, 20), (11, 20)]])
            == [9, 0, 0, 26, 20, 0, 0, 20, 19, 0, 15, 9, 22, 2, 26, 18, 0, 0, 18, 17, 0, 15])
        // mvt-fixtures 055: M1 1 1 L3 4094 0 0 4094 -4094 0 C.
        #expect(TileGeometry.polygons([TileGeometry.square(x: 1, y: 1, side: 4094)]) == [9, 2, 2, 26, 8188, 0, 0, 8188, 8187, 0, 15])
    }

    @Test func cellSquaresAreExteriorRings() {
        // Positive surveyor's area with y down = clockwise on screen = exterior (§ 4.3.4.4).
        #expect(TileGeometry.area2(TileGeometry.square(x: 64, y: 128, side: 64)) == 2 * 64 * 64)
        #expect(TileGeometry.area2([(0, 0), (0, 10), (10, 10), (10, 0)]) < 0)  // counter-clockwise: a hole
    }

    @Test func aOneFeatureTileIsEncodedFieldByField() {
        var layer = TileLayerEncoder(name: "a")
        layer.add(type: .point, geometry: TileGeometry.points([(25, 17)]), properties: [("k", .uint(1))])
        let expected: [UInt8] = [
            0x1A, 28,  // Tile.layers (3, length-delimited), 28 bytes
            0x78, 2,  // Layer.version (15) = 2
            0x0A, 1, 0x61,  // Layer.name (1) = "a"
            0x12, 11,  // Layer.features (2), 11 bytes:
            0x12, 2, 0, 0,  //   Feature.tags (2, packed) = [0, 0]
            0x18, 1,  //   Feature.type (3) = POINT
            0x22, 3, 9, 50, 34,  //   Feature.geometry (4, packed)
            0x1A, 1, 0x6B,  // Layer.keys (3) = "k"
            0x22, 2, 0x28, 1,  // Layer.values (4) = Value { uint_value (5) = 1 }
            0x28, 0x80, 0x20,  // Layer.extent (5) = 4096
        ]
        #expect(TileLayerEncoder.tile([layer]) == expected)
    }

    @Test func keysAndValuesAreStoredOnce() {
        var layer = TileLayerEncoder(name: "points")
        for n in 0..<3 {
            layer.add(type: .point, geometry: TileGeometry.points([(Int32(n), 0)]),
                      properties: [("currency", .string("EUR")), ("count", .uint(UInt64(n % 2))), ("total", .sint(-5))])
        }
        let bytes = layer.message
        func occurrences(_ needle: [UInt8]) -> Int {
            (0...(bytes.count - needle.count)).filter { Array(bytes[$0..<($0 + needle.count)]) == needle }.count
        }
        #expect(occurrences(Array("currency".utf8)) == 1 && occurrences(Array("EUR".utf8)) == 1)
        #expect(occurrences([0x22, 2, 0x30, 9]) == 1)  // Value { sint_value (6) = zigzag(-5) = 9 }, once
        #expect(occurrences([0x22, 2, 0x28, 0]) == 1 && occurrences([0x22, 2, 0x28, 1]) == 1)
    }

    @Test func tileNumbersFollowTheSlippyMapFormula() {
        #expect(WebMercator.cell(latitude: 60.1699, longitude: 24.9384, level: 10) == (582, 296))
        #expect(WebMercator.cell(latitude: -33.92, longitude: 18.42, level: 12) == (2257, 2458))
        #expect(WebMercator.cell(latitude: 40.7128, longitude: -74.006, level: 14) == (4823, 6160))
        // Clamped: the poles fall in the first and last rows, +180° in the last column.
        #expect(WebMercator.cell(latitude: 90, longitude: 180, level: 3) == (7, 0))
        #expect(WebMercator.cell(latitude: -90, longitude: -180, level: 3) == (0, 7))
        #expect(TileID(z: 11, x: 327, y: 791).tmsRow == 1256)  // MBTiles 1.3's own example
        let corner = WebMercator.corner(x: 0, y: 0, level: 0)
        #expect(corner.longitude == -180 && abs(corner.latitude - 85.0511287798066) < 1e-9)
        let p = WebMercator.tileUnits(latitude: 0, longitude: 0, in: TileID(z: 1, x: 1, y: 1))
        #expect(p == (0, 0))
    }

    @Test func gzipIsReadableByGunzip() throws {
        let data = Array(repeating: Array("vector tile ".utf8), count: 100).flatMap { $0 }
        let packed = Gzip.compress(data)
        #expect(packed.prefix(2) == [0x1F, 0x8B] && packed.count < data.count)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("geospend-gzip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("t.gz")
        try Data(packed).write(to: file)
        // gzip writes t beside t.gz (runProgram's output is text; the tile is bytes).
        let r = try runProgram("/bin/gzip", ["-dk", file.path], timeout: .seconds(60))
        let out = try Data(contentsOf: dir.appendingPathComponent("t"))
        #expect(r.status == 0 && Array(out) == data, "\(r.err)")
    }
}
