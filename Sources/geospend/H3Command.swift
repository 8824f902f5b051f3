import ArgumentParser
import Foundation
import GeoSpend

/// `geospend h3`: H3 cell ids (GeoSpend's own H3, checked against PyPI h3) for positions, and
/// a cell's outline. No database is read.
struct H3Command: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "h3",
        abstract: "H3 cell ids: the hexagon keys kepler.gl, DuckDB h3 and h3-pg use.",
        discussion: """
            H3 covers the globe with hexagons (and 12 pentagons) at resolutions 0
            (~1,100 km across) to 15 (~1 m); a cell id is 15 hexadecimal digits.
            `export grid --shape h3` writes a spending layer keyed by the same ids.

            Example:
              geospend h3 cell --lat 60.1699 --lon 24.9384 --resolution 9
              geospend h3 boundary --cell 891126d338fffff
            """,
        subcommands: [Cell.self, Boundary.self])

    struct Cell: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cell",
            abstract: "Prints the id of the H3 cell holding a position.",
            discussion: """
                Example:
                  geospend h3 cell --lat 60.1699 --lon 24.9384 --resolution 9
                  891126d338fffff
                """)
        @Option(parsing: .unconditional, help: "Latitude in degrees (−90…90); south is negative.") var lat: Double
        @Option(parsing: .unconditional, help: "Longitude in degrees (−180…180); west is negative.") var lon: Double
        @Option(help: "0 (coarsest) to 15 (finest).") var resolution: Int

        func run() throws {
            printOut(try H3.latLngToCell(latitude: lat, longitude: lon, resolution: resolution).id + "\n")
        }
    }

    struct Boundary: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "boundary",
            abstract: "Prints a cell's outline as a GeoJSON Feature (property h3: the id).",
            discussion: """
                The ring is closed and counter-clockwise (RFC 7946). A cell crossing
                ±180° keeps its longitudes continuous (some beyond ±180°) so the ring
                stays one piece.

                Example:
                  geospend h3 boundary --cell 891126d338fffff
                """)
        @Option(help: "An H3 cell id, e.g. 891126d338fffff.") var cell: String

        func run() throws {
            let c = try H3Cell(cell)
            printOut(H3Feature.json(c) + "\n")
        }
    }
}
