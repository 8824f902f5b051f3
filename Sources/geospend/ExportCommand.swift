import ArgumentParser
import Foundation
import GeoSpend
import GeoSpendSpatiaLite

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Map layers as GeoJSON (RFC 7946) or vector tiles (MBTiles) for QGIS, kepler.gl, MapLibre, Leaflet and geojson.io.",
        discussion: """
            Layers:
              points        one Point per geotagged expense;
                            weight = amount / largest amount
              grid          hex or square Polygon cells in metres with count,
                            total, average, weight
              density       quartic-kernel density of amounts (amount per km²)
                            on square cells
              places        one Point per place (insights for --user, stores
                            for --all-users), styled with simplestyle
                            marker-size/marker-color
              leaflet-heat  [[lat, lon, intensity], …] for Leaflet.heat
              bundle        a folder (--out DIR) with points, hex grid and
                            places and an index.html that shows them with
                            Leaflet, offline (Leaflet from Debian's
                            libjs-leaflet)
              tiles         Mapbox Vector Tiles in an MBTiles file (--out
                            FILE.mbtiles) of --layer heat, points or places,
                            zooms --min-zoom to --max-zoom (default 0–14);
                            heat cells are hidden below --min-count and
                            --min-users at --max-zoom and left out of every
                            coarser cell (docs/TILES.md); a tile over 500 KB
                            is refused

            Grids and density surfaces are laid out in metres on a Lambert azimuthal
            equal-area projection (WGS84) centred on the data's centre rounded to whole
            degrees (or --origin); every cell has the same ground area. A hex --cell is
            the hexagon's edge (its circumradius), as in PostGIS ST_HexagonGrid; a
            square --cell is its side. Grid data wider than 1,500 km from that centre or
            beyond 75° latitude gets one projection per fixed region instead (caps past
            75° on the poles, 30° boxes between; cell ids name the region, e.g.
            hex-50000m@region60,30:4,-7): cells are cut at region borders, split at
            ±180° into MultiPolygons, a pole's cell runs along latitude ±90, and each
            expense lies in one valid counter-clockwise cell (docs/GRIDS.md). Density
            does the same with squares; a kernel near a region border counts in the
            cells on both sides. A layer holds one currency: --currency, else the
            most common one (the others are named on stderr and in the layer's
            "geospend" member; with --min-users K, a currency fewer than K users paid in
            counts as absent). A density surface costs
            expenses × (2·bandwidth/cell + 2)² kernel evaluations: past 2·10⁹ it is
            refused up front with the figures and how to cut them.

            The file is written whole or not at all (a temporary file beside it,
            removed on Ctrl-C, SIGTERM or SIGHUP); a FIFO or device (/dev/stdout) is
            written in place. --out never replaces the database, its -wal/-shm/-journal
            files, its mask key or any SQLite file (exit 2). The bundle's folder must be
            new, empty or an earlier bundle; --tiles takes an http(s) template with {z},
            {x} and {y}. Progress goes to stderr on a terminal.

            Location privacy (a shared map should not give away a home):
              --min-count N, --min-users N (grid, density, places): cells and places
                with fewer expenses or distinct users are suppressed. When those
                together have too few, the smallest published one (fewest expenses,
                then smallest value) goes too (complementary suppression); the layer's
                expenses, total and places' shares are those of what is published.
                Promised, for one export: no suppressed cell's or place's figures
                follow from it, even with the selection's true totals in hand
                (subtracting leaves the sum of suppressed items that together meet
                the thresholds).
                Not promised: two exports that differ (filter, window, threshold,
                cell size, origin, or the data a user later) can be subtracted from
                each other. Share one export per dataset; density cells overlap and
                can be interpolated from their neighbours.
              --mask-around LAT,LON --mask-radius R (repeatable: home, office):
                nothing within R of the place goes out, in any layer. The region
                dropped is not centred on it: a disc of radius 2R around a secret
                point R/2 to R away, the same in every export with the same key, so
                the gap never points at the place and exports cannot be averaged.
                The key: $GEOSPEND_MASK_KEY (32 hex digits), else DB.mask-key beside
                the database, created on first use. Keep it private and keep it;
                give the same LAT,LON each time. An all-zero key is refused; a key
                file others can read draws a warning (chmod 600 it). Places
                positioned in the region are left out. The export records the
                masks' count and radii only.
              --round N (point layers): coordinates rounded to N decimals before
                anything is written (3 ≈ 110 m); --precision only formats them.
              --geo-noise E (point layers): planar Laplace noise, E per metre, mean
                displacement 2/E (0.01 → 200 m): geo-indistinguishability (Andrés
                et al. 2013). Each point is noised alone: n points of one place
                average out to nE; mask homes too. --seed S makes it reproducible
                (tests); the seed is never written.
              Point layers: points (GeoJSON, CSV), leaflet-heat, places, and those
              of a bundle. Every parameter used is in the layer's "geospend" member.
              --all-users with points, leaflet-heat or bundle writes every user's
                raw positions, one per expense: refused (exit 2) unless
                --allow-raw-positions is given. To share a map of many users, use
                grid or density with --all-users: they aggregate positions and
                suppress cells of fewer than --min-users users (default 3).

            Examples:
              geospend export points --user user1 --out user1-points.geojson
              geospend export points --user user1 --format csv --out user1-points.csv
              geospend export points --user user1 --from 2025-05-01 --to 2025-05-31 \\
                  --properties amount,position_source --out dots.geojson
              geospend export grid --shape hex --cell 250m --all-users \\
                  --min-users 3 --out hex.geojson
              geospend export density --user user1 --bandwidth 300m --cell 50m \\
                  --out density.geojson
              geospend export places --user user1 --from 2025-03-01 --to 2025-03-31 \\
                  --out places.geojson
              geospend export places --user user1 --period 1 --out trip.geojson
              geospend export leaflet-heat --user user1 --out heat.json
              geospend export bundle --user user1 --out user1-map
                  # then open user1-map/index.html
              geospend export bundle --user user1 --out user1-map \\
                  --tiles 'https://tile.openstreetmap.org/{z}/{x}/{y}.png'
              geospend export points --user user1 \\
                  --mask-around 60.17,24.94 --mask-radius 500m \\
                  --mask-around 60.19,24.96 --mask-radius 300m \\
                  --geo-noise 0.01 --round 4 --out shared.geojson
              geospend export grid --shape h3 --resolution 9 --all-users \\
                  --out h3.geojson   # property h3: kepler.gl's H3 layer column
              geospend export grid --all-users --min-users 5 \\
                  --mask-around 60.17,24.94 --mask-radius 1km --out hex.geojson
              geospend export points --all-users --allow-raw-positions \\
                  --out all.geojson
              geospend export tiles --layer heat --all-users --min-users 3 \\
                  --max-zoom 14 --out heat.mbtiles   # QGIS, MapLibre, ogrinfo
            """)

    enum Layer: String, ExpressibleByArgument, CaseIterable {
        case points, grid, density, places, bundle, tiles
        case leafletHeat = "leaflet-heat"
    }

    enum Format: String, ExpressibleByArgument, CaseIterable { case geojson, csv }

    @Argument(help: "points, grid, density, places, leaflet-heat, bundle or tiles.") var layer: Layer
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var replica: ReadReplicaOption
    @Option(help: "Only this user's expenses.") var user: String?
    @Flag(help: "Every user's expenses (cross-user layers; see --min-users).") var allUsers = false
    @Flag(help: "With --all-users, let points, leaflet-heat and bundle write every user's raw positions (refused without it; grid and density aggregate).")
    var allowRawPositions = false
    @OptionGroup var window: WindowOptions
    @OptionGroup var period: PeriodOption
    @Option(help: "Kinds to include; repeatable (default: expense).") var kind: [ExpenseKind] = []
    @Option(help: "Only this category; repeatable.") var category: [String] = []
    @Option(help: "Only this currency (ISO 4217), required when the data mixes currencies.") var currency: String?
    @Option(name: .shortAndLong, help: "Output file, or - for stdout (default).") var out: String = "-"
    @Option(help: "Decimals of coordinates (0–15; 6 ≈ 0.11 m).") var precision: Int = 6
    @Option(help: "geojson, or csv for points (latitude/longitude columns kepler.gl detects).") var format: Format = .geojson
    @Option(help: "points (GeoJSON): only these properties, comma-separated, of amount, currency, kind, occurred_at, category, merchant, store_id, position_source, weight (default all).")
    var properties: String?
    @Option(help: "grid: hex, square or h3 (H3 cells at --resolution).") var shape: MetricGrid.Shape = .hex
    @Option(help: "grid --shape h3: H3 resolution, 0 (~1,100 km cells) to 15 (~1 m); 9 ≈ 350 m across.") var resolution: Int?
    @Option(help: "grid and density: cell size, e.g. 250m (grid default 250m, density default 50m).") var cell: String?
    @Option(help: "grid: what weight follows: total, count or average.") var metric: GridMetric = .total
    @Option(help: "density: kernel radius, e.g. 300m.") var bandwidth: String = MapLayer.defaultDensityBandwidth
    @Option(help: "Leave out cells and places with fewer expenses than this.") var minCount: Int = 1
    @Option(help: "Leave out cells and places with fewer distinct users (default 3 with --all-users).") var minUsers: Int?
    @Option(parsing: .unconditional, help: "Projection origin of grids, LAT,LON (default: data centre rounded to whole degrees).") var origin: String?
    @Option(help: "bundle: a basemap tile URL template (http or https, with {z}, {x}, {y}), e.g. https://tile.openstreetmap.org/{z}/{x}/{y}.png.") var tiles: String?
    @Option(parsing: .unconditionalSingleValue, help: "Leave out everything near this place, LAT,LON (home, office); repeatable; needs --mask-radius.")
    var maskAround: [String] = []
    @Option(help: "Radius of --mask-around, e.g. 500m: once for all masks, or once per mask in order.")
    var maskRadius: [String] = []
    @Option(name: .customLong("round"), help: "Point layers: round coordinates to this many decimals before writing (0–15).")
    var roundDecimals: Int?
    @Option(help: "Point layers: planar Laplace noise, epsilon per metre (mean displacement 2/epsilon m), e.g. 0.01.")
    var geoNoise: Double?
    @Option(help: "Seed of --geo-noise, for reproducible output (never written into the export).") var seed: UInt64?
    @Option(name: .customLong("layer"), help: "tiles: heat, points or places.") var tileLayer: TileLayerKind?
    @Option(help: "tiles: the lowest zoom (0–16).") var minZoom: Int = 0
    @Option(help: "tiles: the highest zoom (0–16); heat cells are suppressed at this zoom.") var maxZoom: Int = 14

    func validate() throws {
        guard (user != nil) != allUsers else { throw ValidationError("give exactly one of --user U or --all-users") }
        guard (0...15).contains(precision) else { throw ValidationError("--precision must be between 0 and 15") }
        guard minCount >= 1 else { throw ValidationError("--min-count must be at least 1") }
        if let minUsers, minUsers < 1 { throw ValidationError("--min-users must be at least 1") }
        if format == .csv && layer != .points { throw ValidationError("--format csv is for the points layer") }
        if properties != nil && (layer != .points || format != .geojson) {
            throw ValidationError("--properties is for the points layer as GeoJSON, not \(layer == .points ? "--format csv" : layer.rawValue)")
        }
        _ = try pointProperties()
        if layer == .bundle && out == "-" { throw ValidationError("bundle writes a folder: give it with --out DIR") }
        if tiles != nil && layer != .bundle { throw ValidationError("--tiles is for the bundle") }
        if let tiles, let problem = MapBundle.tileTemplateProblem(tiles) { throw ValidationError("--tiles \(tiles): \(problem)") }
        try validateTiles()
        if layer == .points || layer == .leafletHeat || tileLayer == .points {
            if minCount > 1 || minUsers != nil {
                throw ValidationError("--min-count and --min-users apply to grid, density, places and heat tiles, not \(layer == .tiles ? "point tiles" : layer.rawValue)")
            }
        }
        try validateRawPositions()
        try validatePrivacy()
    }

    /// Every user's positions, one per expense, are the most revealing thing the database holds
    /// (homes, routines): across users only aggregated, suppressed layers go out unless asked.
    private func validateRawPositions() throws {
        let raw = [.points, .leafletHeat, .bundle].contains(layer) || tileLayer == .points
        if allowRawPositions && !(raw && allUsers) {
            throw ValidationError("--allow-raw-positions is for points, leaflet-heat, bundle and tiles --layer points with --all-users")
        }
        guard raw && allUsers && !allowRawPositions else { return }
        throw ValidationError("""
            export \(layer.rawValue) --all-users would write every user's raw positions, one per expense. \
            For a shared map use `export grid --all-users` or `export density --all-users`, which aggregate \
            positions and leave out cells of fewer than --min-users users (default 3); to write the raw \
            positions anyway, add --allow-raw-positions
            """)
    }

    /// `--properties`, parsed; nil writes every property.
    private func pointProperties() throws -> Set<PointProperty>? {
        do { return try properties.map { try PointProperty.selection($0, option: "--properties") } } catch let e as UsageError {
            throw ValidationError(e.message)
        }
    }

    private func validateTiles() throws {
        guard layer == .tiles else {
            if tileLayer != nil { throw ValidationError("--layer is for export tiles (heat, points or places)") }
            return
        }
        guard tileLayer != nil else { throw ValidationError("export tiles needs --layer heat, points or places") }
        if format == .csv { throw ValidationError("--format csv is for the points layer, not tiles") }
        let zooms = VectorTileRequest.zooms
        guard zooms.contains(minZoom), zooms.contains(maxZoom), minZoom <= maxZoom else {
            throw ValidationError("--min-zoom and --max-zoom must be within \(zooms.lowerBound)–\(zooms.upperBound), --min-zoom ≤ --max-zoom")
        }
    }

    private func validatePrivacy() throws {
        if maskAround.isEmpty != maskRadius.isEmpty { throw ValidationError("--mask-around and --mask-radius go together") }
        if maskRadius.count > 1 && maskRadius.count != maskAround.count {
            throw ValidationError("give --mask-radius once, or once per --mask-around (\(maskAround.count))")
        }
        let pointLayer = [.points, .leafletHeat, .places, .bundle].contains(layer) || [.points, .places].contains(tileLayer)
        if let roundDecimals {
            guard pointLayer else { throw ValidationError("--round is for point layers (points, leaflet-heat, places, bundle), not \(layer.rawValue)") }
            guard (0...15).contains(roundDecimals) else { throw ValidationError("--round must be between 0 and 15") }
        }
        if let geoNoise {
            guard pointLayer else {
                throw ValidationError("--geo-noise is for point layers (points, leaflet-heat, places, bundle), not \(layer.rawValue); grids use --min-users")
            }
            guard geoNoise.isFinite, (1e-6...10).contains(geoNoise) else {
                throw ValidationError("--geo-noise must be between 0.000001 and 10 per metre (mean displacement 2/epsilon: 2,000 km to 0.2 m)")
            }
        }
        if seed != nil && geoNoise == nil { throw ValidationError("--seed is for --geo-noise") }
    }

    /// The masks, radii parsed; each radius within (0, 100 km].
    private func masks() throws -> [LocationMask] {
        try maskAround.enumerated().map { n, text in
            let center = try Self.parseCoordinate(text, option: "--mask-around")
            let radiusText = maskRadius.count == 1 ? maskRadius[0] : maskRadius[n]
            let r = try Parse.distance(radiusText, option: "--mask-radius").meters
            guard r <= 100_000 else { throw ValidationError("--mask-radius \(radiusText): at most 100km") }
            return LocationMask(center: center, radiusMeters: r)
        }
    }

    /// `$GEOSPEND_MASK_KEY`, else the key file beside the database, created (mode 600) on first use.
    /// An all-zero key is refused (anyone can guess it, so masks made with it can be undone); a
    /// key file others can read or write is used with a warning.
    private func maskKey() throws -> MaskKey {
        let zero = MaskKey(k0: 0, k1: 0)
        if let hex = ProcessInfo.processInfo.environment["GEOSPEND_MASK_KEY"] {
            let key: MaskKey
            do { key = try MaskKey(hex: hex.trimmingCharacters(in: .whitespacesAndNewlines)) } catch {
                throw ValidationError("$GEOSPEND_MASK_KEY: \(error)")
            }
            guard key != zero else {
                throw ValidationError("$GEOSPEND_MASK_KEY is all zeros, which anyone can guess: masks made with it can be undone. Use a random key (e.g. `openssl rand -hex 16`)")
            }
            return key
        }
        return try MaskKeyFile.loadOrCreate(path: database.path + ".mask-key")
    }

    func run() async throws {
        let (from, to) = try window.parsed()
        var filter = ExpenseFilter(userID: user, from: from, to: to, kinds: kind.isEmpty ? [.expense] : Set(kind), categories: Set(category))
        if let currency {
            do { filter.currency = try Currency(code: currency.uppercased()) } catch { throw ValidationError("--currency: \(error)") }
        }
        let masks = try masks()
        // The output path is checked before anything is read: a refusal costs nothing.
        let protected = OutputFile.protecting(database: database.path)
        let tilesTarget = layer == .tiles ? try tilesTarget(protecting: protected) : nil
        let target = layer == .bundle || layer == .tiles ? nil : try OutputFile.target(out, protecting: protected)
        let store = try await database.openBackend(replica: replica.readDB)
        if let user { try await NameChecks.user(user, in: store, database: database.path) }
        try await NameChecks.categories(category, userID: user, in: store)
        filter.period = try await period.resolved(user: user, in: store)?.id
        let privacy = ExportPrivacy(
            masks: masks, maskKey: masks.isEmpty ? MaskKey(k0: 0, k1: 0) : try maskKey(), roundDecimals: roundDecimals,
            geoNoiseEpsilon: geoNoise, seed: seed)
        var request = MapExportRequest(
            filter: filter, precision: precision, minCount: minCount, minUsers: minUsers ?? (allUsers ? 3 : 1),
            origin: try origin.map(Self.parseOrigin), privacy: privacy)
        request.pointProperties = try pointProperties()
        if let tilesTarget { return try await writeTiles(try tileRequest(request), store: store, target: tilesTarget) }
        guard let target else {
            let summaries = try await writeBundle(request, store: store, protecting: protected)
            let counts = ["points", "hex", "places"].map { "\(summaries[$0]?.features ?? 0) \($0)" }.joined(separator: ", ")
            if let points = summaries["points"], let note = Self.emptyNote(points, currency: filter.currency, masked: !masks.isEmpty) {
                printErr(note)
            }
            printErr("wrote \(counts) to \(out)/ — open \(out)/index.html")
            return
        }
        let progress: ExportProgress? = stderrIsTerminal && out != "-" ? Self.showProgress : nil
        let summary = try await OutputFile.write(to: target) { sink in
            defer { if progress != nil { printErrInline("") } }
            return try await writeLayer(request, store: store, to: sink, progress: progress)
        }
        if !summary.leftOutCurrencies.isEmpty, let c = summary.currency {
            printErr("note: exported \(c.code), the most common currency; left out \(summary.leftOutCurrencies.joined(separator: ", ")) (choose with --currency)")
        }
        if let note = Self.emptyNote(summary, currency: filter.currency, masked: !masks.isEmpty) { printErr(note) }
        if out != "-" {
            let total = summary.currency.flatMap { c in
                summary.totalMinor.map { " totalling \(Money(minorUnits: $0, currency: c).decimalString) \(c.code)" }
            } ?? ""
            let suppressed = summary.suppressed > 0 ? " (\(summary.suppressed) suppressed)" : ""
            printErr("wrote \(summary.features) features\(suppressed)\(total) to \(out)")
        }
    }

    @Sendable private static func showProgress(done: Int, total: Int) {
        printErrInline(total > 0 ? "  \(done) / \(total) expenses…" : "  \(done) expenses…")
    }

    /// Writes the one layer asked for (every layer but the bundle).
    private func writeLayer(
        _ request: MapExportRequest, store: any ExpenseStore, to sink: ByteSink, progress: ExportProgress?
    ) async throws -> MapExportSummary {
        switch layer {
        case .points where format == .csv:
            return try await MapExport.pointsCSV(request, store: store, to: sink, progress: progress)
        case .points:
            return try await MapExport.geoJSON(.points, request, store: store, to: sink, progress: progress)
        case .grid:
            let size = try gridSize()
            return try await MapExport.geoJSON(.grid(shape, cellMeters: size, metric: metric), request, store: store, to: sink, progress: progress)
        case .density:
            let size = try cellSize(default: MapLayer.defaultDensityCell)
            let h = try Parse.distance(bandwidth, option: "--bandwidth").meters
            let density: MapLayer
            do { density = try MapLayer.density(bandwidthMeters: h, cellMeters: size, options: ("--bandwidth", "--cell")) } catch let e as UsageError {
                throw ValidationError(e.message)
            }
            return try await MapExport.geoJSON(density, request, store: store, to: sink, progress: progress)
        case .places:
            return try await MapExport.geoJSON(.places, request, store: store, to: sink)
        case .leafletHeat:
            return try await MapExport.leafletHeat(request, store: store, to: sink, progress: progress)
        case .bundle, .tiles:
            fatalError("handled above")
        }
    }

    /// The bundle's folder: created if missing; an existing one must be empty or an earlier
    /// bundle (its index.html has the page's marker), so `--out ~` or `--out /` never scatters
    /// files among the user's own. A symlink to a folder is followed; symlinks inside it are not
    /// written through. Every file is checked before the first is written.
    private func writeBundle(
        _ request: MapExportRequest, store: any Backend, protecting protected: [OutputFile.Protected]
    ) async throws -> [String: MapExportSummary] {
        guard !out.isEmpty else { throw ValidationError("--out is empty: give the bundle's folder, e.g. --out user1-map") }
        let fm = FileManager.default
        var isFolder: ObjCBool = false
        if fm.fileExists(atPath: out, isDirectory: &isFolder) {
            guard isFolder.boolValue else { throw ValidationError("--out \(out) is a file; a bundle is a folder: choose a new folder name") }
            let entries = (try? fm.contentsOfDirectory(atPath: out)) ?? []
            let page = (try? String(contentsOfFile: out + "/index.html", encoding: .utf8)) ?? ""
            guard entries.isEmpty || page.contains(MapBundle.pageMarker) else {
                throw ValidationError(
                    "--out \(out) is a folder with other files in it, not an earlier bundle: choose a new folder (it is created)")
            }
        }
        // Zone budgets with their percentage as of --to (else today), issue 17.
        var zones: [BudgetSummary] = []
        if let user = request.filter.userID {
            let asOf = request.filter.to?.localDate
            zones = try await store.read { try ZoneBudgets.summaries(in: $0, user: user, asOf: asOf) }
        }
        let bundle = try await MapBundle.contents(
            request, store: store, cellMeters: try cellSize(default: MapLayer.defaultGridCell), tiles: tiles, budgetZones: zones)
        let folders = Set(bundle.files.map { ($0.path as NSString).deletingLastPathComponent }).filter { !$0.isEmpty }.sorted()
        for folder in [""] + folders {
            let path = folder.isEmpty ? out : out + "/" + folder
            if folder.isEmpty { try FileErrors.createFolders(path, option: "--out") }
            else if mkdir(path, 0o777) != 0 && errno != EEXIST { throw ExportError.writeFailed("\(path): \(String(cString: strerror(errno)))") }
            var info = stat()
            // Subfolders are never symlinks: a link planted as leaflet/ would take the files elsewhere.
            guard (folder.isEmpty ? stat(path, &info) : lstat(path, &info)) == 0, info.st_mode & S_IFMT == S_IFDIR else {
                throw ValidationError("--out \(out): \(path) is not a folder; remove it or choose a new folder")
            }
        }
        let targets = try bundle.files.map { try OutputFile.target(out + "/" + $0.path, protecting: protected) }
        for (file, target) in zip(bundle.files, targets) {
            try await OutputFile.write(to: target) { sink in file.bytes.withUnsafeBufferPointer { sink.rawBytes($0) } }
        }
        return bundle.summaries
    }

    /// Why a layer came out empty, when nothing was suppressed: a stderr note, so an empty file
    /// (a valid empty layer, exit 0) is not mistaken for a failure or for the user's whole data.
    static func emptyNote(_ summary: MapExportSummary, currency: Currency?, masked: Bool) -> String? {
        guard summary.features == 0, summary.suppressed == 0 else { return nil }
        var note = "note: the layer is empty: no geotagged expense" + (currency.map { " in \($0.code)" } ?? "")
            + " matches the filters" + (masked ? " outside the masked regions" : "")
        if !summary.leftOutCurrencies.isEmpty {
            note += "; the selection has \(summary.leftOutCurrencies.joined(separator: ", ")) (choose with --currency)"
        }
        return note
    }

    /// A cell size in metres, large enough that rounded coordinates still draw a proper polygon.
    /// The grid's size: --cell for hex and square, --resolution (required, alone) for h3.
    private func gridSize() throws -> Double {
        guard shape == .h3 else {
            if resolution != nil { throw ValidationError("--resolution is for --shape h3; hex and square grids take --cell") }
            return try cellSize(default: MapLayer.defaultGridCell)
        }
        guard cell == nil else { throw ValidationError("--shape h3 takes --resolution (0–15), not --cell") }
        guard let resolution else { throw ValidationError("--shape h3 needs --resolution, 0 (~1,100 km cells) to 15 (~1 m), e.g. --resolution 9") }
        guard H3.resolutions.contains(resolution) else { throw H3Error.invalidResolution(resolution) }
        return Double(resolution)
    }

    private func cellSize(default fallback: String) throws -> Double {
        try MapExportRequest.cellMeters(Parse.distance(cell ?? fallback, option: "--cell"), typed: cell ?? fallback, precision: precision, options: ("--cell", "--precision"))
    }

    static func parseOrigin(_ text: String) throws -> Coordinate {
        let c = try parseCoordinate(text, option: "--origin")
        guard abs(c.latitude) <= 89 else { throw ValidationError("--origin \(text): latitude must be within ±89°") }
        return c
    }

    static func parseCoordinate(_ text: String, option: String) throws -> Coordinate {
        guard let (lat, lon) = parseDegreesPair(text) else {
            throw ValidationError("\(option) \(text): expected LAT,LON in degrees, e.g. 60,25")
        }
        return try Parse.coordinate(lat: lat, lon: lon)
    }
}

extension MetricGrid.Shape: ExpressibleByArgument {}
extension GridMetric: ExpressibleByArgument {}
