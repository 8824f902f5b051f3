/// A period as a user names it where an expense is written — `expenses add --period`, the
/// `period` column of `import expenses`, `"period"` in `POST /api/v1/expenses` — resolved
/// among that user's periods (docs/DOMAIN.md, "Periods given when an expense is written").
public enum PeriodReference {
    /// The period `text` names among one user's `periods`: when `text` is a number and the user
    /// has a period with that id, that one; else the one period whose name is `text` (NFC, ASCII
    /// case folded, as category names are compared). No such period, or a name two periods
    /// share, is a reason (without the option or column: the caller names it) that says how to
    /// fix it.
    ///
    /// ```swift
    /// PeriodReference.resolve("lisbon trip", among: periods, user: "alice")  // .success(period 1)
    /// ```
    /// - Complexity: O(n) in the number of periods.
    public static func resolve(_ text: String, among periods: [Period], user: String) -> Result<Period, ValueError> {
        let given = Identity.normalized(text).trimmingSpaces()
        let u = OutputEscaping.visible(Identity.normalized(user))
        if let id = Int64(given), let period = periods.first(where: { $0.id == id }) { return .success(period) }
        let folded = Identity.asciiLowercased(given)
        let named = periods.filter { Identity.asciiLowercased($0.name) == folded }
        if named.count == 1 { return .success(named[0]) }
        if named.count > 1 {
            let ids = named.map { String($0.id) }.joined(separator: ", ")
            return .failure(.invalidValue(
                given, reason: "names \(named.count) periods of user \"\(u)\" (ids \(ids)); give the id instead"))
        }
        return .failure(.invalidValue(
            given, reason: "is not a period of user \"\(u)\" (an id or a name); `geospend periods list --user \(u)` lists them, "
                + "`geospend periods add --user \(u) --name NAME --from DAY` adds one"))
    }
}
