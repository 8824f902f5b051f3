import Hummingbird

/// A read that takes longer than `limit` is answered 503 (a problem) instead of holding the
/// client, and its task is cancelled: a read scope on the file is interrupted (GRDB's async
/// read), one on PostgreSQL closes its connection and the server stops its statement within a
/// second (`PostGISAddress.configuration`). Writes (an import, a deletion) have no limit: they
/// commit whole or not at all, and the client must hear which. A streamed layer counts until
/// its first byte, not to its end.
struct TimeLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    let limit: Duration
    private let watch: DeadlineWatch

    init(limit: Duration) {
        self.limit = limit
        // A tenth of the limit, between 10 ms and 1 s: a 30 s limit is kept to within a second.
        watch = DeadlineWatch(resolution: min(max(limit / 10, .milliseconds(10)), .seconds(1)))
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get || request.method == .head else { return try await next(request, context) }
        let deadline = ContinuousClock.now + limit
        return try await withoutActuallyEscaping(next) { next in
            // Hummingbird's responder chain is Sendable in all but type: the box says so, and the
            // group is awaited before `next` stops being valid.
            let chain = Chain(run: next)
            return try await withThrowingTaskGroup(of: Response?.self) { group in
                group.addTask { try await chain.run(request, context) }
                group.addTask { [watch] in
                    await watch.wait(until: deadline)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let response = first else {
                    throw Problem(.serviceUnavailable, "the request took longer than the service allows (\(limit)); narrow it (a window, a smaller radius) or retry")
                }
                return response
            }
        }
    }
}

private struct Chain<Context: RequestContext>: @unchecked Sendable {
    let run: (Request, Context) async throws -> Response
}
