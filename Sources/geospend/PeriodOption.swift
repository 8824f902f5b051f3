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
    func resolved(user: String?, in store: some PeriodStore) async throws -> Period? {
        guard period != nil else { return nil }
        guard let user else { throw ValidationError("--period needs --user: a period is one user's") }
        return try await NameChecks.period(period, user: user, in: store)
    }
}
