/// The one currency of a layer and the others of the selection, left out.
struct LayerCurrency {
    let currency: Currency?
    let leftOut: [String]

    /// `counts` per currency; the most expenses wins, ties by code.
    init(counts: [(Currency, Int)]) {
        let sorted = counts.sorted { ($1.1, $0.0.code) < ($0.1, $1.0.code) }
        currency = sorted.first?.0
        leftOut = sorted.dropFirst().map { "\($0.0.code) \($0.1)" }
    }

    /// None of the selection's expenses is in the currency asked for: no layer currency, and
    /// `others`, the selection's currencies with their counts ("EUR 40"), all left out.
    init(noneOf others: [String]) {
        currency = nil
        leftOut = others
    }

    /// With `minUsers` > 1 (cross-user layers), a currency fewer distinct users paid in is as if
    /// absent: neither chosen nor listed as left out, so the layer does not tell that somebody
    /// paid in SEK, nor how often — a label, like a cell, is published only from enough users.
    /// - Parameter counts: expenses and distinct users (counted up to `minUsers`) per currency.
    init(counts: [(currency: Currency, expenses: Int, users: Int)], minUsers: Int) {
        self.init(counts: counts.filter { minUsers <= 1 || $0.users >= minUsers }.map { ($0.currency, $0.expenses) })
    }
}
