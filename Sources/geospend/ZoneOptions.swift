import ArgumentParser
import Foundation
import GeoSpend

/// `--zone-around LAT,LON --zone-radius R` or `--zone-geojson FILE`.
struct ZoneOptions: ParsableArguments {
    // Unconditional: a southern or western centre starts with "-" (-16.80,179.99).
    @Option(parsing: .unconditional, help: ArgumentHelp("The zone's centre.", valueName: "lat,lon")) var zoneAround: String?
    @Option(help: "The zone's radius, e.g. 400m or 1.5km.") var zoneRadius: String?
    @Option(help: "A GeoJSON file with the zone's Polygon or MultiPolygon.") var zoneGeojson: String?

    func parsed() throws -> BudgetZone? {
        switch (zoneAround, zoneRadius, zoneGeojson) {
        case (nil, nil, nil): return nil
        case (let around?, let radius?, nil):
            let parts = around.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2, let lat = Double(parts[0].trimmingCharacters(in: .whitespaces)),
                let lon = Double(parts[1].trimmingCharacters(in: .whitespaces))
            else { throw ValidationError("--zone-around \(around): give LAT,LON in degrees, e.g. 60.1699,24.9384") }
            let center: Coordinate
            do { center = try Coordinate(latitude: lat, longitude: lon) } catch { throw ValidationError("--zone-around: \(error)") }
            let r = try Parse.distance(radius, option: "--zone-radius")
            guard r.meters > 0 else { throw ValidationError("--zone-radius must be more than 0 m") }
            return .circle(center: center, radius: r)
        case (nil, nil, let file?):
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ValidationError("--zone-geojson \(file): cannot read the file (missing, or not readable)")
            }
            do { return try BudgetZone.parsing(geoJSON: Array(data), source: URL(fileURLWithPath: file).lastPathComponent) } catch {
                throw ValidationError("--zone-geojson \(file): \(error)")
            }
        case (_, _, .some):
            throw ValidationError("--zone-geojson cannot be combined with --zone-around/--zone-radius: a budget has one zone")
        default:
            throw ValidationError("--zone-around and --zone-radius go together, e.g. --zone-around 60.1699,24.9384 --zone-radius 400m")
        }
    }
}
