import GeoSpend
import Logging
import ServiceLifecycle

/// The service's side of the location-history retention (`PositionRetention`): every user's
/// applied when the service starts and then every `interval` (an hour), so a history nobody
/// imports into still ages out. One task for the whole service, run by the application's
/// service group beside the server and cancelled when it shuts down; between runs it sleeps.
/// A run that fails is logged and tried again at the next tick: the service keeps serving.
/// The log line holds counts only, never a user id.
public struct PositionRetentionService: Service {
    let store: any PositionStore & UserSettingsStore
    let interval: Duration
    let logger: Logger

    public init(store: any PositionStore & UserSettingsStore, interval: Duration = .seconds(3600), logger: Logger) {
        self.store = store
        self.interval = interval
        self.logger = logger
    }

    public func run() async {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await self.pruneOnce()
                // Cancelled (shutdown): ends here, not as an error the service group would report.
                do { try await Task.sleep(for: self.interval) } catch { return }
            }
        }
    }

    /// One pass over every user with a retention.
    func pruneOnce() async {
        do {
            let pruned = try await PositionRetention.applyAll(in: store, now: PositionRetention.now())
            let positions = pruned.reduce(0) { $0 + $1.deleted.positions }, visits = pruned.reduce(0) { $0 + $1.deleted.visits }
            if positions + visits > 0 {
                logger.info("position retention: deleted \(positions) positions and \(visits) visits of \(pruned.count) users")
            }
        } catch is CancellationError {
            return
        } catch {
            logger.error("position retention failed (tried again in \(interval)): \(String(describing: error))")
        }
    }
}
