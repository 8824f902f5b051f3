import GeoSpend
import Hummingbird

/// Orders a user's writes against the deletion of that user, in this service: a deletion waits
/// for the user's writes in flight and holds back new ones until it is done, and every write
/// checks its token again once it is let in. Without it an import whose token was checked just
/// before `DELETE /users/me` wrote its rows after the deletion, bringing the user back with no
/// token left to delete them (issue 35, item 4).
actor UserGate {
    private var writers: [String: Int] = [:]
    /// Users whose deletion is waiting or running: new writes wait behind it.
    private var deleting: Set<String> = []
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    func enterWrite(_ user: String) async {
        while deleting.contains(user) { await wait(user) }
        writers[user, default: 0] += 1
    }

    func leaveWrite(_ user: String) {
        writers[user, default: 1] -= 1
        if writers[user] == 0 { writers[user] = nil }
        wake(user)
    }

    func enterDelete(_ user: String) async {
        while deleting.contains(user) { await wait(user) }
        deleting.insert(user)
        while writers[user] != nil { await wait(user) }
    }

    func leaveDelete(_ user: String) {
        deleting.remove(user)
        wake(user)
    }

    private func wait(_ user: String) async {
        await withCheckedContinuation { waiting[user, default: []].append($0) }
    }

    /// Everyone waiting on `user` looks again (few wait at once: one user's own requests).
    private func wake(_ user: String) {
        for c in waiting.removeValue(forKey: user) ?? [] { c.resume() }
    }
}

/// Behind `TokenMiddleware`: a request that may write (not GET or HEAD) passes `UserGate` as its
/// token's user — `DELETE /api/v1/users/me` as the deletion — and a write finds its token still
/// there once let in (401 if the user was deleted meanwhile).
struct UserGateMiddleware: RouterMiddleware {
    let gate: UserGate
    let store: any TokenStore

    func handle(_ request: Request, context: ServiceContext, next: (Request, ServiceContext) async throws -> Response) async throws -> Response {
        guard request.method != .get && request.method != .head else { return try await next(request, context) }
        let user = try context.user()
        if request.method == .delete && request.uri.path == "/api/v1/users/me" {
            await gate.enterDelete(user)
            do {
                let response = try await next(request, context)
                await gate.leaveDelete(user)
                return response
            } catch {
                await gate.leaveDelete(user)
                throw error
            }
        }
        await gate.enterWrite(user)
        do {
            guard try await TokenAuth.verify(request.headers[.authorization], in: store) != nil else {
                throw Problem(.unauthorized, "this token is gone: its user was deleted, or it was revoked, while the request waited")
            }
            let response = try await next(request, context)
            await gate.leaveWrite(user)
            return response
        } catch {
            await gate.leaveWrite(user)
            throw error
        }
    }
}
