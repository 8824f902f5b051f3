import ArgumentParser
import Foundation
import GeoSpend
import GeoSpendOCR
import GeoSpendService
import Hummingbird
import Logging
import Prometheus

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the database over HTTP: the query API under /api/v1, for token holders.",
        usage: "geospend serve [--host <host>] [--port <port>] [--db <db>]",
        discussion: """
            Each request acts as the user of its token (`geospend tokens create`), sent
            as `Authorization: Bearer <token>`. Errors are RFC 9457 problem+json. Logs
            go to stderr, one line per request, never with a token. SIGTERM or SIGINT
            stops the service after the requests in flight finish (exit 0). /metrics
            (with --metrics) has request counts and latencies for Prometheus; /health
            says ok. Links the service writes start with --public-url. Cross-user
            answers never come from fewer than --min-users users. The line
            "listening on http://HOST:PORT" on stderr says it is ready (--port 0 takes
            any free port). Vector tiles are cached until the data changes (a write by
            the service or by another process); --tile-cache-mib 0 turns that off.
            Users' location-history retention (`geospend users settings
            --keep-positions`) runs at start and then hourly. Events (budgets
            crossing their thresholds, reminders due, geotag reviews waiting) go to
            the users' webhooks within a second, signed and retried for
            --webhook-retry-hours; webhooks at loopback or private addresses are
            refused (added over HTTP, tested, delivered to) unless
            --allow-private-webhooks. The web app is at / (open
            http://127.0.0.1:8080/#token=TOKEN); its map's basemap is
            Data/helsinki-basemap.geojson (OpenStreetMap, found as `generate` finds
            its places), or --basemap FILE, or the tiles of --basemap-tiles.

            Example:
              geospend serve --db demo.sqlite --port 8080
              curl -H "Authorization: Bearer $TOKEN" \\
                  'http://127.0.0.1:8080/api/v1/near?lat=60.171&lon=24.9414&radius=300m'
            """)

    @OptionGroup var database: DatabaseOptions
    @Option(help: "The address to listen on (127.0.0.1: this machine only).") var host = "127.0.0.1"
    @Option(help: "The port (0: any free one).") var port = 8080
    @Option(help: "Memory for cached vector tiles, in MiB (files only; 0: none).") var tileCacheMib = 64
    @Option(help: ArgumentHelp(
        "The address clients reach the service at, for the links it writes (OGC, TileJSON, paging).",
        discussion: "Default http://HOST:PORT. Behind a proxy give its https URL; the request's Host header is never used."))
    var publicUrl: String?
    @Option(help: "The fewest distinct users a cross-user figure may come from; requests may ask for more, never fewer.")
    var minUsers = 3
    @Flag(help: "Serve /metrics (request counts and latencies) to anyone who can reach the port.") var metrics = false
    @Option(help: "Close a connection that sends nothing for this many seconds (also one whose request head is still arriving).")
    var idleTimeout = 10
    @Option(help: ArgumentHelp(
        "Answer a read (or a receipt photo's reading) that takes longer than this many seconds with 503.",
        discussion: "Writes (imports, deletions) are never cut short: they commit whole or not at all.", valueName: "seconds"))
    var timeLimit = 30
    @Option(help: ArgumentHelp(
        "Rewrite the file (VACUUM) this many seconds after an expense deletion, once for all deletions meanwhile.",
        discussion: "Files only. Each deleted row is zeroed at once; the rewrite removes stale copies older edits left."))
    var rewriteDelay = 10
    @Flag(help: "Allow webhooks at loopback and private addresses (the internal network).")
    var allowPrivateWebhooks = false
    @Option(help: ArgumentHelp("Retry a failed webhook delivery for this many hours, then mark it failed.", valueName: "hours"))
    var webhookRetryHours: Double = 24
    @Option(help: ArgumentHelp("The web app's offline basemap: GeoJSON with kind and name.", valueName: "file"))
    var basemap: String?
    @Option(help: ArgumentHelp(
        "Raster tiles for the web app's map instead, e.g. https://tile.example.org/{z}/{x}/{y}.png",
        discussion: "The page may then load images from that origin; give their credit with --basemap-attribution.",
        valueName: "url"))
    var basemapTiles: String?
    @Option(help: ArgumentHelp("The credit the tiles' licence asks for, shown on the map.", valueName: "text"))
    var basemapAttribution: String?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard (0...65536).contains(tileCacheMib) else { throw ValidationError("--tile-cache-mib must be between 0 and 65536") }
        guard minUsers >= 1 else { throw ValidationError("--min-users must be at least 1") }
        guard (1...3600).contains(idleTimeout) else { throw ValidationError("--idle-timeout must be between 1 and 3600 seconds") }
        guard (1...3600).contains(timeLimit) else { throw ValidationError("--time-limit must be between 1 and 3600 seconds") }
        guard (0...3600).contains(rewriteDelay) else { throw ValidationError("--rewrite-delay must be between 0 and 3600 seconds") }
        guard webhookRetryHours.isFinite, (0...720).contains(webhookRetryHours) else {
            throw ValidationError("--webhook-retry-hours must be between 0 and 720 (30 days), e.g. 24")
        }
        if let basemapTiles {
            guard Basemap.origin(of: basemapTiles) != nil else {
                throw ValidationError("--basemap-tiles \"\(basemapTiles)\": give an http:// or https:// URL with {z}, {x} and {y}, e.g. https://tile.example.org/{z}/{x}/{y}.png")
            }
            guard let basemapAttribution, !basemapAttribution.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw ValidationError("--basemap-tiles needs --basemap-attribution, the credit its tiles' licence asks for, e.g. \"© OpenStreetMap contributors\"")
            }
            guard basemap == nil else { throw ValidationError("give --basemap FILE or --basemap-tiles URL, not both") }
        } else if basemapAttribution != nil {
            throw ValidationError("--basemap-attribution goes with --basemap-tiles URL")
        }
        if let basemap, !FileManager.default.isReadableFile(atPath: basemap) {
            throw ValidationError("--basemap \"\(basemap)\": no such readable file; build one with scripts/basemap/build_basemap.sh")
        }
        if let publicUrl, ServiceSettings.publicURL(publicUrl) == nil {
            throw ValidationError("--public-url \"\(publicUrl)\": give http:// or https:// and a host, no query, e.g. https://maps.example.org")
        }
    }

    static let basemapFile = "helsinki-basemap.geojson"

    func run() async throws {
        // One thread per receipt photo's OCR (POST /api/v1/receipts), as `receipts scan`: the
        // service starts itself again with OMP_THREAD_LIMIT=1 before it opens anything.
        ReceiptScanner.restartSingleThreaded()
        let store = try await database.openBackend(writable: true)
        UploadedFile.removeLeftovers()  // of a service killed during an upload
        signal(SIGPIPE, SIG_IGN)  // a client gone mid-stream is an error to handle, not a reason to die
        var logger = Logger(label: "geospend")
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .info
        let registry = PrometheusCollectorRegistry()
        ServiceMetrics.bootstrap(registry)
        let tiles = try TileCache(store: store, maxBytes: tileCacheMib << 20)
        let given = publicUrl.flatMap(ServiceSettings.publicURL)
        var settings = ServiceSettings(publicURL: given ?? "http://\(host):\(port)", minUsersFloor: minUsers, exposeMetrics: metrics)
        if let basemapTiles, let basemapAttribution {
            settings.basemap = .tiles(template: basemapTiles, attribution: basemapAttribution)
        } else {
            settings.basemap = .offline(file: basemap ?? GenerateCommand.dataFile(Self.basemapFile))
        }
        let rewrites = BatchedRewrite(store: store, delay: .seconds(rewriteDelay), logger: logger)
        await rewrites.start()
        let app = buildApplication(
            store: store, address: ServiceAddress(host: host, port: port), logger: logger, metrics: registry, tileCache: tiles,
            settings: settings, idleTimeout: .seconds(idleTimeout), rewrites: rewrites,
            webhooks: WebhookSettings(
                allowPrivate: allowPrivateWebhooks, retry: RetrySchedule(windowMilliseconds: Int64(webhookRetryHours * 3_600_000))),
            timeLimit: .seconds(timeLimit)
        ) { [host, settings] port in
            if given == nil { settings.publicAddress.set("http://\(host):\(port)") }
            printErr("listening on http://\(host):\(port)")
        }
        try await app.runService()
        await rewrites.finish()  // owed by deletions of the last seconds
    }
}
