import ArgumentParser
import Foundation
import GeoSpend
import GeoSpendSpatiaLite

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Map layers as GeoJSON (RFC 7946) for QGIS, kepler.gl, MapLibre, Leaflet and geojson.io.",
        discussion: """
            Layers:
              points        one Point per geotagged expense; weight = amount / largest amount
              grid          hex or square Polygon cells in metres with count, total, average, weight
              density       quartic-kernel density of amounts (amount per km²) on square cells
              places        one Point per place (insights for --user, stores for --all-users),
                            styled with simplestyle marker-size/marker-color
              leaflet-heat  [[lat, lon, intensity], …] for Leaflet.heat
              bundle        a folder (--out DIR) with points, hex grid and places and an index.html
                            that shows them with Leaflet, offline (Leaflet from Debian's libjs-leaflet)

            Grids and density surfaces are laid out in metres on a Lambert azimuthal equal-area
            projection (WGS84) centred on the data's centre rounded to whole degrees (or
            --origin); every cell has the same ground area. A hex --cell is the hexagon's edge
            (its circumradius), as in PostGIS ST_HexagonGrid; a square --cell is its side.
            A layer holds one currency: --currency, else the most common one (the others are
            named on stderr and in the layer's "geospend" member).
            The file is written whole or not at all; progress goes to stderr on a terminal.

            Examples:
              geospend export points --user user1 --out user1-points.geojson
              geospend export points --user user1 --format csv --out user1-points.csv
              geospend export grid --shape hex --cell 250m --all-users --min-users 3 --out hex.geojson
              geospend export density --user user1 --bandwidth 300m --cell 50m --out density.geojson
              geospend export places --user user1 --from 2025-03-01 --to 2025-03-31 --out places.geojson
              geospend export leaflet-heat --user user1 --out heat.json
              geospend export bundle --user user1 --out user1-map      # open user1-map/index.html
              geospend export bundle --user user1 --out user1-map --tiles 'https://tile.openstreetmap.org/{z}/{x}/{y}.png'
            """)

    enum Layer: String, ExpressibleByArgument, CaseIterable {
        case points, grid, density, places, bundle
        case leafletHeat = "leaflet-heat"
    }

    enum Format: String, ExpressibleByArgument, CaseIterable { case geojson, csv }

    @Argument(help: "points, grid, density, places, leaflet-heat or bundle.") var layer: Layer
    @OptionGroup var database: DatabaseOptions
    @Option(help: "Only this user's expenses.") var user: String?
    @Flag(help: "Every user's expenses (cross-user layers; see --min-users).") var allUsers = false
    @OptionGroup var window: WindowOptions
    @Option(help: "Kinds to include; repeatable (default: expense).") var kind: [ExpenseKind] = []
    @Option(help: "Only this category; repeatable.") var category: [String] = []
    @Option(help: "Only this currency (ISO 4217), required when the data mixes currencies.") var currency: String?
    @Option(name: .shortAndLong, help: "Output file, or - for stdout (default).") var out: String = "-"
    @Option(help: "Decimals of coordinates (0–15; 6 ≈ 0.11 m).") var precision: Int = 6
    @Option(help: "geojson, or csv for points (latitude/longitude columns kepler.gl detects).") var format: Format = .geojson
    @Option(help: "grid: hex or square.") var shape: MetricGrid.Shape = .hex
    @Option(help: "grid and density: cell size, e.g. 250m (grid default 250m, density default 50m).") var cell: String?
    @Option(help: "grid: what weight follows: total, count or average.") var metric: GridMetric = .total
    @Option(help: "density: kernel radius, e.g. 300m.") var bandwidth: String = "300m"
    @Option(help: "Leave out cells and places with fewer expenses than this.") var minCount: Int = 1
    @Option(help: "Leave out cells and places with fewer distinct users (default 3 with --all-users).") var minUsers: Int?
    @Option(help: "Projection origin of grids, LAT,LON (default: data centre rounded to whole degrees).") var origin: String?
    @Option(help: "bundle: a basemap tile URL template, e.g. https://tile.openstreetmap.org/{z}/{x}/{y}.png.") var tiles: String?

    func validate() throws {
        guard (user != nil) != allUsers else { throw ValidationError("give exactly one of --user U or --all-users") }
        guard (0...15).contains(precision) else { throw ValidationError("--precision must be between 0 and 15") }
        guard minCount >= 1 else { throw ValidationError("--min-count must be at least 1") }
        if let minUsers, minUsers < 1 { throw ValidationError("--min-users must be at least 1") }
        if format == .csv && layer != .points { throw ValidationError("--format csv is for the points layer") }
        if layer == .bundle && out == "-" { throw ValidationError("bundle writes a folder: give it with --out DIR") }
        if tiles != nil && layer != .bundle { throw ValidationError("--tiles is for the bundle") }
        if layer == .points || layer == .leafletHeat {
            if minCount > 1 || minUsers != nil {
                throw ValidationError("--min-count and --min-users apply to grid, density and places, not \(layer.rawValue)")
            }
        }
    }

    func run() throws {
        let (from, to) = try window.parsed()
        var filter = ExpenseFilter(userID: user, from: from, to: to, kinds: kind.isEmpty ? [.expense] : Set(kind), categories: Set(category))
        if let currency {
            do { filter.currency = try Currency(code: currency.uppercased()) } catch { throw ValidationError("--currency: \(error)") }
        }
        let request = MapExportRequest(
            filter: filter, precision: precision, minCount: minCount, minUsers: minUsers ?? (allUsers ? 3 : 1),
            origin: try origin.map(Self.parseOrigin))
        let store = try database.openExisting()
        if layer == .bundle {
            let summaries = try MapBundle.write(request, store: store, to: out, cellMeters: try cellSize(default: "250m"), tiles: tiles)
            let counts = ["points", "hex", "places"].map { "\(summaries[$0]?.features ?? 0) \($0)" }.joined(separator: ", ")
            printErr("wrote \(counts) to \(out)/ — open \(out)/index.html")
            return
        }
        let summary = try OutputFile.write(to: out) { sink in
            let progress: ExportProgress? = stderrIsTerminal && out != "-"
                ? { done, total in printErrInline(total > 0 ? "  \(done) / \(total) expenses…" : "  \(done) expenses…") } : nil
            defer { if progress != nil { printErrInline("") } }
            switch layer {
            case .points where format == .csv:
                return try MapExport.pointsCSV(request, store: store, to: sink, progress: progress)
            case .points:
                return try MapExport.geoJSON(.points, request, store: store, to: sink, progress: progress)
            case .grid:
                let size = try cellSize(default: "250m")
                return try MapExport.geoJSON(.grid(shape, cellMeters: size, metric: metric), request, store: store, to: sink, progress: progress)
            case .density:
                let size = try cellSize(default: "50m")
                let h = try Parse.distance(bandwidth, option: "--bandwidth").meters
                guard h >= size else { throw ValidationError("--bandwidth must be at least the --cell size") }
                guard h / size <= 200 else { throw ValidationError("--bandwidth is more than 200 cells wide; use a larger --cell") }
                return try MapExport.geoJSON(.density(bandwidthMeters: h, cellMeters: size), request, store: store, to: sink, progress: progress)
            case .places:
                return try MapExport.geoJSON(.places, request, store: store, to: sink)
            case .leafletHeat:
                return try MapExport.leafletHeat(request, store: store, to: sink, progress: progress)
            case .bundle:
                fatalError("handled above")
            }
        }
        if !summary.leftOutCurrencies.isEmpty, let c = summary.currency {
            printErr("note: exported \(c.code), the most common currency; left out \(summary.leftOutCurrencies.joined(separator: ", ")) (choose with --currency)")
        }
        if out != "-" {
            let total = summary.currency.map { " totalling \(Money(minorUnits: summary.totalMinor, currency: $0).decimalString) \($0.code)" } ?? ""
            let suppressed = summary.suppressed > 0 ? " (\(summary.suppressed) suppressed)" : ""
            printErr("wrote \(summary.features) features\(suppressed)\(total) to \(out)")
        }
    }

    /// A cell size in metres, large enough that rounded coordinates still draw a proper polygon.
    private func cellSize(default fallback: String) throws -> Double {
        let size = try Parse.distance(cell ?? fallback, option: "--cell").meters
        // 10^-precision degrees of latitude ≈ 111 km · 10^-precision; a cell needs ~100 of them.
        let resolution = 111_320 * pow(10, -Double(precision))
        guard size >= 100 * resolution else {
            throw ValidationError("--cell \(cell ?? fallback) is too small for --precision \(precision): use at least \(formatDecimal(100 * resolution, digits: 1)) m or more decimals")
        }
        guard size <= 1_000_000 else { throw ValidationError("--cell must be at most 1000km") }
        return size
    }

    static func parseOrigin(_ text: String) throws -> Coordinate {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let lat = try? parseStrictDouble(parts[0]), let lon = try? parseStrictDouble(parts[1]) else {
            throw ValidationError("--origin \(text): expected LAT,LON in degrees, e.g. 60,25")
        }
        guard abs(lat) <= 89 else { throw ValidationError("--origin \(text): latitude must be within ±89°") }
        return try Parse.coordinate(lat: lat, lon: lon)
    }
}

extension MetricGrid.Shape: ExpressibleByArgument {}
extension GridMetric: ExpressibleByArgument {}

/// Writes command output all-or-nothing: into a temporary file beside the target, renamed over
/// it only when everything was written (a failed export never leaves half a file); `-` streams
/// to stdout.
enum OutputFile {
    static func write<T>(to path: String, _ body: (ByteSink) throws -> T) throws -> T {
        if path == "-" {
            let sink = ByteSink(descriptor: 1)
            let result = try body(sink)
            try sink.flush()
            return result
        }
        let temporary = path + ".partial-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw ExportError.writeFailed("\(path): \(String(cString: strerror(errno)))") }
        var isOpen = true
        func failure() -> ExportError { .writeFailed("\(path): \(String(cString: strerror(errno)))") }
        do {
            let sink = ByteSink(descriptor: fd)
            let result = try body(sink)
            try sink.flush()
            guard fsync(fd) == 0 else { throw failure() }
            isOpen = false
            guard close(fd) == 0 else { throw failure() }
            guard rename(temporary, path) == 0 else { throw failure() }
            return result
        } catch {
            if isOpen { close(fd) }
            unlink(temporary)
            throw error
        }
    }
}
