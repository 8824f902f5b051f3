import ArgumentParser
import GeoSpend

/// `--period ID --user U` on the cross-user reports: they add up every user's expenses and a
/// period is one user's, so there it stands for its days (`--from` its start, `--to` its end,
/// both local days included; an ongoing period has no end), not for its assigned expenses.
struct ReportPeriodOptions: ParsableArguments {
    @Option(help: "Only the days of this period of --user (its start to its end).")
    var period: Int64?
    @Option(help: "Whose period --period names.")
    var user: String?

    /// The report's window: the period's days, or --from/--to as given.
    func window(_ window: WindowOptions, database: DatabaseOptions) async throws -> (from: Timestamp?, to: Timestamp?) {
        guard period != nil || user != nil else { return try window.parsed() }
        guard window.isEmpty else { throw ValidationError("--period gives the days; drop --from/--to") }
        guard let id = period, let user else { throw ValidationError("--period and --user go together here: reports cover every user") }
        let store = try await database.openBackend()
        try await NameChecks.user(user, in: store, database: database.path)
        guard let p = try await store.period(userID: user, id: id) else { throw PeriodsCommand.noPeriod(id, user: user) }
        return (try Timestamp(parsing: p.start), try p.end.map { try Timestamp(parsing: $0) })
    }
}
