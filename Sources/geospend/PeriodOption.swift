import ArgumentParser
import GeoSpend
import GeoSpendSpatiaLite

/// `--period`, on the commands that read one user's expenses in a window (expenses list, near,
/// insights, summary, export). `report` has `ReportPeriodOptions`: reports add up every user's
/// expenses, and a period is one user's.
struct PeriodOption: ParsableArguments {
    @Option(help: "Only expenses assigned to this period of the user (see periods list).")
    var period: Int64?

    /// The user's period, checked to exist; nil without --period.
    func resolved(user: String?, in store: any ExpenseStore) async throws -> Period? {
        guard let id = period else { return nil }
        guard let user else { throw ValidationError("--period needs --user: a period is one user's") }
        guard let periods = store as? any PeriodStore else {
            throw ValidationError("--period: periods are kept in SpatiaLite files only so far")
        }
        guard let p = try await periods.period(userID: user, id: id) else { throw PeriodsCommand.noPeriod(id, user: user) }
        return p
    }
}
