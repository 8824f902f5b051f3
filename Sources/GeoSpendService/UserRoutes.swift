import GeoSpend
import Hummingbird

/// `/api/v1/users/me`: the token user's own data — everything kept for them as
/// `geospend users export` writes it (streamed), and its deletion as `users delete` does it
/// (the file rewritten so no copy stays; the user's tokens go with it).
struct UserRoutes {
    let store: any Backend
    let streams: StreamSlots

    func add(to group: RouterGroup<ServiceContext>) {
        group.get("users/me/export", use: export)
        group.post("users/me/import", use: restore)
        group.delete("users/me", use: delete)
        group.get("users/me", use: show)
        group.patch("users/me", use: edit)
    }

    /// `users edit`'s answer: the name and email (MONO's user, issue 38).
    @Sendable func show(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try context.user()
        guard let record = try await store.withUserData(user, { $0.user }) else {
            throw Problem(.notFound, "user \"\(OutputEscaping.visible(user))\" was deleted")
        }
        return JSONResponse.make(UserProfile.json(record))
    }

    /// `{"name": …, "email": …}`: a key left out keeps its value; null or "" unsets.
    @Sendable func edit(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try context.user()
        let fields = try await ExpenseRoutes.object(request, names: ["name": "name", "email": "email"], example: #"{"name": "Alice Example", "email": "alice@example.org"}"#)
        if fields.isEmpty { throw Problem(.badRequest, "nothing to change: give name or email") }
        return JSONResponse.make(UserProfile.json(try await UserProfile.edit(user: user, name: fields["name"], email: fields["email"], store: store)))
    }

    @Sendable func export(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try context.user()
        let store = self.store
        struct Gone: Error {}
        return try await StreamedBody.response(slots: streams, contentType: "application/json", owner: user) { sink in
            let written = try await store.withUserData(user) { data in
                try UserExport.write(data, generatedAt: MapExportRequest.now(), to: sink)
            }
            guard written != nil else { throw Gone() }  // deleted since the token was checked
        }
    }

    /// `users import` for the signed-in user: the body is a `users export` document (at most
    /// `maxUploadSize`); the user must hold nothing but their tokens. 201 with what was written.
    @Sendable func restore(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try context.user()
        var bytes: [UInt8] = []
        for try await chunk in request.body {
            guard bytes.count + chunk.readableBytes <= context.maxUploadSize else {
                throw Problem(.contentTooLarge, "the body is larger than \(context.maxUploadSize >> 20) MiB")
            }
            bytes += chunk.readableBytesView
        }
        let data: UserRestoreData
        do { data = try UserRestore.read(bytes) } catch { throw Problem(.unprocessableContent, error.description) }
        do { try await store.restore(data, as: user) } catch let error as UserRestoreError {
            switch error {
            case .notEmpty:
                throw Problem(.conflict, "user \"\(OutputEscaping.visible(user))\" already has data; DELETE /api/v1/users/me first (export it if still wanted)")
            default: throw Problem(.unprocessableContent, error.description)
            }
        }
        var response = JSONResponse.make(.object([
            ("user", .string(user)), ("expenses", .integer(Int64(data.expenses.count))), ("categories", .integer(Int64(data.categories.count))),
            ("periods", .integer(Int64(data.periods.count))), ("positions", .integer(Int64(data.positions.count))),
            ("visits", .integer(Int64(data.visits.count))), ("budgets", .integer(Int64(data.budgets.count))),
            ("recurring", .integer(Int64(data.recurring.count))), ("pantry", .integer(Int64(data.pantry.count))),
        ]))
        response.status = .created
        return response
    }

    @Sendable func delete(_ request: Request, context: ServiceContext) async throws -> Response {
        let user = try context.user()
        guard let deletion = try await store.deleteUser(user, rewriteFile: true) else {
            throw Problem(.notFound, "user \"\(OutputEscaping.visible(user))\" was deleted already")
        }
        UploadedFile.removeLeftovers()  // a killed service's uploads hold some user's rows
        return JSONResponse.make(.object([
            ("user", .string(deletion.userID)),
            ("rows", .integer(Int64(deletion.totalRows))),
            ("tables", .object(deletion.rowsByTable.map { ($0.table, .integer(Int64($0.rows))) })),
            ("leftovers", .array(deletion.leftovers.map { .string($0) })),
        ]))
    }
}
