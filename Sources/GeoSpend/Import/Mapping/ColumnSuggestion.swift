/// "Did you mean …?" for column names: a known alias (`lng` → `lon`, `date` → `occurred_at`,
/// `Betrag` → `amount`), else the nearest name by edit distance, when it is close enough to
/// be a typo.
enum ColumnSuggestion {
    /// Names other tools and banks give the expense fields, lower-cased, spaces and
    /// underscores removed.
    static let aliases: [String: String] = [
        "lng": "lon", "long": "lon", "longitude": "lon", "x": "lon",
        "latitude": "lat", "y": "lat",
        "date": "occurred_at", "time": "occurred_at", "timestamp": "occurred_at", "datetime": "occurred_at",
        "occurredat": "occurred_at", "bookingdate": "occurred_at", "transactiondate": "occurred_at",
        "value": "amount", "sum": "amount", "total": "amount", "price": "amount",
        "description": "title", "memo": "notes", "note": "notes", "comment": "notes", "payee": "merchant",
        "shop": "merchant", "store": "store_id", "vendor": "merchant", "counterparty": "merchant",
        "type": "kind", "ccy": "currency", "currencycode": "currency", "userid": "user", "username": "user",
        "accuracy": "accuracy_m", "storeid": "store_id", "cat": "category",
        // German and Finnish bank exports.
        "betrag": "amount", "summa": "amount", "määrä": "amount", "datum": "occurred_at",
        "buchungstag": "occurred_at", "päivämäärä": "occurred_at", "kirjauspäivä": "occurred_at",
        "währung": "currency", "valuutta": "currency", "empfänger": "merchant", "saaja": "merchant",
        "saajamaksaja": "merchant", "verwendungszweck": "title", "viesti": "title", "kategorie": "category",
    ]

    static func key(_ name: String) -> String {
        String(name.lowercased().filter { $0 != " " && $0 != "_" && $0 != "-" && $0 != "/" })
    }

    /// The field `name` probably means, among `fields`.
    static func field(for name: String, among fields: [String]) -> String? {
        if let alias = aliases[key(name)], fields.contains(alias) { return alias }
        return nearest(name, among: fields)
    }

    /// The candidate closest to `name` (case-insensitive), if at most 2 edits away and
    /// fewer than half its letters.
    static func nearest(_ name: String, among candidates: [String]) -> String? {
        let target = Array(name.lowercased())
        var best: (String, Int)?
        for c in candidates {
            let d = EditDistance.levenshtein(target, Array(c.lowercased()))
            if d <= 2, d * 2 < max(target.count, c.count), d < (best?.1 ?? .max) { best = (c, d) }
        }
        return best?.0
    }
}
