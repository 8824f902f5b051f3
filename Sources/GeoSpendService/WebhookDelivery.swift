import AsyncHTTPClient
import Foundation
import GeoSpend
import Logging
import Hummingbird
import ServiceLifecycle

/// How webhooks are delivered: whether private addresses are allowed, the retry schedule, the
/// time an attempt may take.
public struct WebhookSettings: Sendable {
    public var allowPrivate: Bool
    public var retry: RetrySchedule
    /// The read limit of one attempt (its connect limit: at most 2 s).
    public var attemptTimeout: Duration

    public init(allowPrivate: Bool = false, retry: RetrySchedule = .init(), attemptTimeout: Duration = .seconds(10)) {
        self.allowPrivate = allowPrivate
        self.retry = retry
        self.attemptTimeout = attemptTimeout
    }
}

/// One pass of the outbox's delivery (issue 39): events fanned out to deliveries, then every
/// delivery due POSTed, signed (`WebhookSignature`), with `Idempotency-Key` the event id (the
/// same in every attempt: receivers drop what they saw). A 2xx answer delivers; anything else
/// (another status, a refused connection, a timeout) is retried on the schedule until its
/// window is over, then the delivery is `failed` with its attempts listed (`webhooks
/// deliveries`). A URL at a private address is refused without sending (failed at once).
/// Deliveries are at least once: a kill between the POST and the record sends it again.
public final class WebhookDeliverer: Sendable {
    let store: any NotificationStore
    let settings: WebhookSettings
    let logger: Logger
    let client: HTTPClient

    public init(store: any NotificationStore, settings: WebhookSettings, logger: Logger) {
        self.store = store
        self.settings = settings
        self.logger = logger
        let t = Int64(settings.attemptTimeout.components.seconds)
        // A refused connection is tried again inside the client until the connect timeout: a
        // receiver that takes no connection within 2 s counts as down for this attempt.
        client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(min(t, 2)), read: .seconds(t))))
    }

    /// Closes the client's connections; call once when done.
    public func shutdown() async {
        try? await client.shutdown()
    }

    public struct PassResult: Sendable, Equatable {
        public var delivered = 0, retried = 0, failed = 0
    }

    /// Fans out what is new and attempts every delivery due now, eight at a time.
    @discardableResult
    public func deliverDue() async throws -> PassResult {
        while try await store.fanOut(limit: 500) > 0 {}
        var result = PassResult()
        while true {
            let due = try await store.dueDeliveries(now: Self.nowMilliseconds(), limit: 8)
            if due.isEmpty { break }
            let outcomes = await withTaskGroup(of: AttemptOutcome.self) { group in
                for d in due { group.addTask { await self.attempt(d) } }
                var all: [AttemptOutcome] = []
                for await o in group { all.append(o) }
                return all
            }
            for o in outcomes {
                switch o {
                case .delivered: result.delivered += 1
                case .retry: result.retried += 1
                case .failed: result.failed += 1
                }
            }
            if Task.isCancelled { break }
        }
        return result
    }

    /// One attempt, recorded; returns what became of the delivery.
    func attempt(_ d: DueDelivery) async -> AttemptOutcome {
        let started = Self.nowMilliseconds()
        let at = Timestamp(epochSeconds: started / 1000, utcOffsetMinutes: 0).text
        var note: String
        var outcome: AttemptOutcome
        if let refusal = WebhookAddressPolicy.refusal(d.url, allowPrivate: settings.allowPrivate) {
            note = "\(at) refused: \(refusal)"
            outcome = .failed
        } else {
            do {
                let status = try await send(url: d.url, body: d.event.body, secret: d.secret, eventID: d.event.id)
                note = "\(at) \(status)"
                outcome = (200..<300).contains(status) ? .delivered : .retry(at: 0)
            } catch {
                note = "\(at) error: \(Self.describe(error))"
                outcome = .retry(at: 0)
            }
            if case .retry = outcome {
                let now = Self.nowMilliseconds()
                outcome = settings.retry.next(after: d.attempts + 1, now: now, created: d.createdMilliseconds).map { .retry(at: $0) } ?? .failed
            }
        }
        do {
            try await store.recordAttempt(deliveryID: d.id, at: started, note: note, outcome: outcome)
        } catch {
            logger.error("webhook delivery \(d.id): the attempt could not be recorded (sent again later): \(String(describing: error))")
        }
        return outcome
    }

    /// POSTs `body` signed with `secret`. - Returns: the answer's status.
    public func send(url: String, body: String, secret: String, eventID: String) async throws -> Int {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "GeoSpend-Webhooks/1")
        request.headers.add(name: "Idempotency-Key", value: eventID)
        request.headers.add(
            name: WebhookSignature.header, value: WebhookSignature.value(body: body, secret: secret, timestamp: Int64(Date().timeIntervalSince1970)))
        request.body = .bytes(ByteBuffer(string: body))
        let t = Int64(settings.attemptTimeout.components.seconds)
        let response = try await client.execute(request, timeout: .seconds(t))
        _ = try? await response.body.collect(upTo: 1 << 16)  // the answer is not read, only drained
        return Int(response.status.code)
    }

    static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }

    static func nowMilliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
}

/// The service's side of notifications: delivers what is due every `poll` (250 ms), and raises
/// the time-driven events (`NotificationRun`: reminders, pantry expiry) at start and every
/// `schedule` (a minute), purchase predictions at most every `predictionEvery` (an hour: they
/// read every user's price records). One task beside the server, stopped with it; a pass that
/// fails is logged and tried at the next tick.
public struct NotificationService: Service {
    let store: any NotificationStore & PantryStore & PriceStore & RecurringStore & UserSettingsStore
    let settings: WebhookSettings
    let poll: Duration
    let schedule: Duration
    let predictionEvery: Duration = .seconds(3600)
    let logger: Logger

    public init(
        store: any NotificationStore & PantryStore & PriceStore & RecurringStore & UserSettingsStore, settings: WebhookSettings,
        poll: Duration = .milliseconds(250),
        schedule: Duration = .seconds(60), logger: Logger
    ) {
        self.store = store
        self.settings = settings
        self.poll = poll
        self.schedule = schedule
        self.logger = logger
    }

    public func run() async {
        let deliverer = WebhookDeliverer(store: store, settings: settings, logger: logger)
        await cancelWhenGracefulShutdown {
            var lastRun: ContinuousClock.Instant?
            var lastPredictions: ContinuousClock.Instant?
            while !Task.isCancelled {
                if lastRun.map({ ContinuousClock.now - $0 >= self.schedule }) ?? true {
                    lastRun = .now
                    do {
                        let now = Timestamp(epochSeconds: Int64(Date().timeIntervalSince1970), utcOffsetMinutes: 0)
                        let predict = lastPredictions.map { ContinuousClock.now - $0 >= self.predictionEvery } ?? true
                        _ = try await NotificationRun.raiseDue(in: self.store, asOf: now, predictions: predict)
                        if predict { lastPredictions = .now }
                    } catch is CancellationError { return } catch {
                        self.logger.error("notifications: raising due reminders failed (tried again in \(self.schedule)): \(String(describing: error))")
                    }
                    // Recurring rules (issue 38) create their expenses on the day they fall due.
                    do {
                        let ran = try await RecurringRun.runDue(store: self.store)
                        let made = ran.reduce(0) { $0 + $1.created.reduce(0) { $0 + $1.expenseIDs.count } }
                        if made > 0 { self.logger.info("recurring: \(made) expenses created for \(ran.count) users") }
                    } catch is CancellationError { return } catch {
                        self.logger.error("recurring: a run failed (tried again in \(self.schedule)): \(String(describing: error))")
                    }
                }
                do {
                    let r = try await deliverer.deliverDue()
                    if r.failed > 0 { self.logger.info("webhooks: \(r.delivered) delivered, \(r.retried) to retry, \(r.failed) failed") }
                } catch is CancellationError { return } catch {
                    self.logger.error("webhooks: a delivery pass failed (tried again): \(String(describing: error))")
                }
                do { try await Task.sleep(for: self.poll) } catch { return }
            }
        }
        await deliverer.shutdown()
    }
}
