import Metrics
import Prometheus

/// Prometheus metrics of the service: Hummingbird's `MetricsMiddleware` counts requests
/// (`hb_requests`), errors and times them (`http_server_request_duration`), per route pattern
/// and method, never per id. Prometheus names allow no dots: Hummingbird's labels have them.
public enum ServiceMetrics {
    /// Sends the process's metrics to `registry`; once per process (`MetricsSystem` is global).
    public static func bootstrap(_ registry: PrometheusCollectorRegistry) {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.nameAndLabelSanitizer = { name, labels in
            (underscored(name), labels.map { (underscored($0.0), $0.1) })
        }
        MetricsSystem.bootstrap(factory)
    }

    private static func underscored(_ s: String) -> String {
        String(s.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" })
    }
}
