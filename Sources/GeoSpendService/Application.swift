import Foundation
import GeoSpend
import Hummingbird
import Logging
import Prometheus

/// Where `geospend serve` listens.
public struct ServiceAddress: Sendable {
    public var host: String
    public var port: Int
    public init(host: String = "127.0.0.1", port: Int = 8080) {
        self.host = host
        self.port = port
    }
}

/// The service's routes: `/health`, `/openapi.json` and (with a registry and `exposeMetrics`) `/metrics` for anyone,
/// `/api/v1/…` and `/ogc/…` (OGC API Features) behind a token. Every error leaves as an RFC 9457 problem (`ProblemMiddleware`,
/// inside the metrics and the log, so they see the problem's status; outside everything else,
/// so an unknown path or a refused token is a problem too). `metrics` is where Hummingbird's
/// `MetricsMiddleware` counts and times requests once `MetricsSystem` is bootstrapped with it.
public func buildRouter(
    store: any Backend, metrics: PrometheusCollectorRegistry? = nil, timeLimit: Duration = .seconds(30), tileCache: TileCache? = nil,
    settings: ServiceSettings = .init(), ogcLayers: OGCLayerCache? = nil, rewrites: BatchedRewrite? = nil,
    webhooks: WebhookSettings = .init()
) -> Router<ServiceContext> {
    let router = Router(context: ServiceContext.self)
    let rewrites = rewrites ?? BatchedRewrite(store: store)
    router.add(middleware: RequestLogMiddleware())  // the path only: no query, no header
    if let metrics {
        router.add(middleware: MetricsMiddleware())
        if settings.exposeMetrics {
            router.get("metrics") { _, _ in JSONResponse.text(metrics.emitToString(), contentType: "text/plain; version=0.0.4") }
        }
    }
    router.add(middleware: ProblemMiddleware())
    router.add(middleware: QueryCheckMiddleware())
    router.add(middleware: TimeLimitMiddleware(limit: timeLimit))
    router.get("health") { _, _ in JSONResponse.make(.object([("status", .string("ok"))])) }
    router.get("openapi.json") { _, _ in
        guard let text = ServiceResources.text("openapi.json") else { throw ServiceResources.missing("the OpenAPI document") }
        return JSONResponse.text(text, contentType: "application/vnd.oai.openapi+json;version=3.1")
    }
    MapRoutes().add(to: router)
    WebAppRoutes(basemap: settings.basemap).add(to: router)
    QueryRoutes(store: store).addCheckingTokens(to: router.group("api/v1"))
    let api = router.group("api/v1").add(middleware: TokenMiddleware(store: store)).add(middleware: UserGateMiddleware(gate: UserGate(), store: store))
    QueryRoutes(store: store).add(to: api)
    ExpenseRoutes(store: store, settings: settings, rewrites: rewrites).add(to: api)
    ExportRoutes(store: store, streams: settings.streams).add(to: api)
    UserRoutes(store: store, streams: settings.streams).add(to: api)
    UserSettingsRoutes(store: store).add(to: api)
    ImportRoutes(store: store, uploads: settings.uploads).add(to: api)
    ReportRoutes(store: store, settings: settings).add(to: api)
    SnapRoutes(store: store).add(to: api)
    GeotagRoutes(store: store, uploads: settings.uploads).add(to: api)
    CategoryRoutes(store: store).add(to: api)
    PeriodRoutes(store: store).add(to: api)
    RecurringRoutes(store: store).add(to: api)
    PantryRoutes(store: store).add(to: api)
    StoreChoiceRoutes(store: store).add(to: api)
    CommunityRoutes(store: store).add(to: api)
    BudgetRoutes(store: store).add(to: api)
    PriceRoutes(store: store, uploads: settings.uploads).add(to: api)
    ProductRoutes(store: store).add(to: api)
    TrendRoutes(store: store).add(to: api)
    ListRoutes(store: store, settings: settings).add(to: api)
    BasketRoutes(store: store, settings: settings).add(to: api)
    ReceiptRoutes(store: store, scans: settings.scans, uploads: settings.uploads, scanTime: timeLimit, rewrites: rewrites).add(to: api)
    NotificationRoutes(store: store).add(to: api)
    WebhookRoutes(store: store, settings: webhooks).add(to: api)
    TileRoutes(store: store, cache: tileCache, settings: settings).add(to: router.group("tiles").add(middleware: TokenMiddleware(store: store)))
    OGCRoutes(store: store, settings: settings, layers: ogcLayers ?? OGCLayerCache(store: store)).add(to: router.group("ogc").add(middleware: TokenMiddleware(store: store)))
    return router
}

/// The service as Hummingbird runs it; `runService()` serves until SIGTERM or SIGINT, then lets
/// requests in flight finish. `onServerRunning` gets the port (useful with port 0: any free one).
/// A connection that sends nothing for `idleTimeout` — between requests, or while its request
/// head is still arriving byte by byte (slowloris) — is closed, so half-open connections cannot
/// hold the descriptors. Beside the server, `PositionRetentionService` applies the users'
/// location-history retention at start and every `retentionInterval`, and `NotificationService`
/// delivers the outbox's events to webhooks (`webhooks`) and raises reminders when due.
public func buildApplication(
    store: any Backend, address: ServiceAddress, logger: Logger, metrics: PrometheusCollectorRegistry? = nil,
    tileCache: TileCache? = nil, settings: ServiceSettings = .init(), idleTimeout: Duration = .seconds(10), rewrites: BatchedRewrite? = nil,
    retentionInterval: Duration = .seconds(3600), webhooks: WebhookSettings = .init(), timeLimit: Duration = .seconds(30),
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    Application(
        router: buildRouter(
            store: store, metrics: metrics, timeLimit: timeLimit, tileCache: tileCache, settings: settings, rewrites: rewrites,
            webhooks: webhooks),
        server: .http1(configuration: .init(idleTimeout: .nanoseconds(Int64(idleTimeout.components.seconds) * 1_000_000_000 + idleTimeout.components.attoseconds / 1_000_000_000))),
        configuration: .init(address: .hostname(address.host, port: address.port), serverName: "geospend"),
        services: [
            PositionRetentionService(store: store, interval: retentionInterval, logger: logger),
            NotificationService(store: store, settings: webhooks, logger: logger),
        ],
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? address.port) },
        logger: logger)
}
