import Foundation
import GeoSpend
import Hummingbird

/// `POST /api/v1/import/expenses?format=csv|jsonl[&skip-invalid=true][&update=true][&allow-duplicates=true]`: the body is a file as
/// `geospend import expenses` reads it, imported for the token's user in one write scope: all or
/// nothing unless `skip-invalid`. A row of another user is refused like any bad row; CSV rows
/// without a user column are the token user's (JSON Lines rows name their user, as in a file). Bad rows come back as a 400 problem with each
/// row's `line`, `column` and `reason` (`errors`), the first one also at the top.
struct ImportRoutes {
    let store: any Backend
    let uploads: Slots

    func add(to group: RouterGroup<ServiceContext>) {
        group.post("import/expenses", use: importExpenses)
    }

    @Sendable func importExpenses(_ request: Request, context: ServiceContext) async throws -> Response {
        let q = QueryParameters(request)
        let user = try context.user()
        let options = ImportOptions(
            skipInvalid: try q.flag("skip-invalid"), updatesChanged: try q.flag("update"), allowsDuplicates: try q.flag("allow-duplicates"))
        let format = try UploadedFile.tableFormat(request)
        let upload = try await UploadedFile(request, context: context, slots: uploads, what: "import", fileExtension: format.rawValue)
        defer { upload.remove() }
        let file = upload.url
        var source = ExpenseSource()
        if format == .csv && !Self.hasUserColumn(upload.firstLine) { source.conversions.user = user }
        let path = file.path
        let report: ImportReport
        do {
            // At the lowest CPU priority: the service's readers run first (`writeInBackground`).
            report = try await store.writeInBackground { [source] writer in
                try Importer.importExpenses(
                    from: path, format: format, source: source, options: options,
                    writer: OneUserWriter(base: writer, user: user))
            }
        } catch let error as ImportError {
            throw Self.problem(error, file: path)
        }
        return JSONResponse.make(.object([
            ("inserted", .integer(Int64(report.inserted))), ("unchanged", .integer(Int64(report.unchanged))),
            ("updated", .integer(Int64(report.updated))), ("updated_ids", .array(report.updatedIDs.map { .string($0) })),
            ("duplicates", .array(report.duplicateNotes.map {
                .object([("line", .string($0.location)), ("id", .string($0.id)), ("stored_id", .string($0.storedID))])
            })),
            ("duplicates_left_out", .integer(Int64(report.duplicates))),
            ("rejected", .integer(Int64(report.rejected))), ("skipped", .integer(Int64(report.skipped))),
            ("errors", .array(report.errors.map { Self.json($0, file: path) })),
        ]))
    }

    /// Whether a CSV's header names a `user` column (else every row is the token user's).
    static func hasUserColumn(_ firstLine: String) -> Bool {
        let header = firstLine.prefix { $0 != "\n" && $0 != "\r\n" }
        return header.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces.union(["\"", "\r"])).lowercased() == "user" }
    }

    /// An import refusal over HTTP: the input is the request's body, the good rows are asked
    /// for by a query parameter.
    static let wording = ImportWording(
        input: "body", nothingWritten: "nothing was imported", skipInvalid: "add skip-invalid=true to the query to import the good rows")

    /// The import's refusal as a problem, naming the body instead of the temporary file.
    static func problem(_ error: ImportError, file: String) -> Problem {
        let errors: [RowError]
        var detail = error.message(wording)
        switch error {
        case .rejected(let e, _): errors = e  // the message says nothing was imported
        case .badHeader(let e): errors = e; detail += "; nothing was imported"
        case .badFile(let e): errors = [e]; detail += "; nothing was imported"
        case .unreadable: errors = []; detail += "; nothing was imported"
        }
        var p = Problem(.badRequest, detail)
        if let first = errors.first { p.extensions = [("line", .string(first.location)), ("column", .string(first.column))] }
        p.extensions.append(("errors", .array(errors.map { json($0, file: file) })))
        return p
    }

    static func json(_ e: RowError, file: String) -> JSONOutput {
        .object([("line", .string(e.location)), ("column", .string(e.column)), ("reason", .string(e.reason.replacingOccurrences(of: file, with: "body")))])
    }
}

/// A writer that takes the token user's expenses only: another user's row is refused (column
/// `user`), so the import fails whole or lists it; stores are shared and not the service's to add.
struct OneUserWriter: ExpenseWriter {
    let base: any ExpenseWriter
    let user: String

    func insert(_ stores: [HashedRow<Store>]) throws -> [RowOutcome] {
        stores.map { _ in .rejected(RowRejection(column: "row", reason: "stores are shared: `geospend import stores` adds them")) }
    }

    func insert(_ expenses: [HashedRow<Expense>], policy: InsertPolicy) throws -> [RowOutcome] {
        let own = expenses.filter { ExactText($0.record.userID) == ExactText(user) }
        var outcomes = try base.insert(own, policy: policy).makeIterator()
        return expenses.map { row in
            guard ExactText(row.record.userID) == ExactText(user) else {
                return .rejected(RowRejection(
                    column: "user",
                    reason: "\"\(OutputEscaping.visible(row.record.userID))\" is not you: the service imports the token user's (\"\(OutputEscaping.visible(user))\") expenses only"))
            }
            return outcomes.next()!
        }
    }

    func assignStores(_ links: [StoreLink]) throws -> [Bool] { try base.assignStores(links) }

    /// Another user's periods are none: that user's rows are refused anyway.
    func periods(ofUser userID: String) throws -> [Period] {
        ExactText(Identity.normalized(userID)) == ExactText(user) ? try base.periods(ofUser: userID) : []
    }

    func assignPeriods(_ links: [PeriodLink]) throws {
        try base.assignPeriods(links.filter { ExactText($0.userID) == ExactText(user) })
    }
}
