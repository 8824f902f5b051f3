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
            return try BudgetFields.circleZone(around: around, radius: radius)
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
