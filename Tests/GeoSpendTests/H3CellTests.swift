import Foundation
import Testing

@testable import GeoSpend

/// Cell ids: what is a valid one (h3geo.org "Index bit layout") and the errors for the rest.
@Suite struct H3CellTests {
    @Test func idsRoundTripAsFifteenLowercaseHexDigits() throws {
        let c = try H3.latLngToCell(latitude: 60.1699, longitude: 24.9384, resolution: 9)
        #expect(c.id == "891126d338fffff")
        #expect(try H3Cell("891126D338FFFFF") == c)
        for res in H3.resolutions {
            let id = try H3.latLngToCell(latitude: -89.9, longitude: 179.9, resolution: res).id
            #expect(id.count == 15 && id == id.lowercased())
        }
    }

    /// Each broken id is a valid one with one field spoiled, so each check is reached on its own.
    @Test(arguments: [
        ("hello", "not 1–16 hexadecimal digits"),
        ("091126d338fffff", "its mode is 0"),
        ("8891126d338fffff", "its high bit is set"),
        ("a91126d338fffff", "its reserved bits are set"),
        ("89f526d338fffff", "base cell 122 does not exist"),
        ("891126d33ffffff", "digit 8 is 7 (unused) at resolution 9"),
        ("891126d338ffff0", "digit 14 is 6, but digits past resolution 9 must be 7"),
        ("81087ffffffffff", "deleted K sub-sequence of pentagon base cell 4"),
    ])
    func invalidIdsSayWhy(id: String, reason: String) {
        #expect {
            try H3Cell(id)
        } throws: { error in
            guard case let .invalidCell(text, why) = error as? H3Error else { return false }
            return text == id && why.contains(reason) && (error as! H3Error).description.contains("15 hexadecimal digits")
        }
    }

    @Test func outOfRangeInputIsRefused() throws {
        #expect(throws: H3Error.invalidResolution(16)) { try H3.latLngToCell(latitude: 0, longitude: 0, resolution: 16) }
        #expect(throws: H3Error.invalidCoordinate(latitude: 91, longitude: 0)) { try H3.latLngToCell(latitude: 91, longitude: 0, resolution: 1) }
        #expect(throws: H3Error.self) { try H3.latLngToCell(latitude: .nan, longitude: 0, resolution: 1) }
        let c = try H3Cell("891126d338fffff")
        #expect(throws: H3Error.invalidResolution(10)) { try H3.cellToParent(c, resolution: 10) }
        #expect(throws: H3Error.invalidResolution(8)) { try H3.cellToChildren(c, resolution: 8) }
        #expect(throws: H3Error.invalidRing(-1)) { try H3.gridDisk(c, k: -1) }
    }

    /// A hexagon has 7ⁿ descendants n levels down; a pentagon 1 + 5·(7ⁿ − 1)/6 (h3geo.org "Pentagons").
    @Test func childCounts() throws {
        let hexagon = try H3Cell("891126d338fffff"), pentagon = try H3Cell("8009fffffffffff")
        #expect(pentagon.isPentagon && !hexagon.isPentagon)
        #expect(try H3.cellToChildren(hexagon, resolution: 12).count == 343)
        #expect(try H3.cellToChildren(pentagon, resolution: 3).count == 1 + 5 * (343 - 1) / 6)
        #expect(try H3.gridDisk(pentagon, k: 1).count == 6 && H3.cellToBoundary(pentagon).count == 5)
    }
}
