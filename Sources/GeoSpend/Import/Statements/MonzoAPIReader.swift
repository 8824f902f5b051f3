/// The transactions of Monzo's developer API as JSON (`GET /transactions?expand[]=merchant`,
/// saved as a file): `{"transactions": [ … ]}`, a bare array, or one `{"transaction": …}`.
///
/// Each transaction: `id` (`tx_…`) → id (`<user>/monzo/<id>`, the id the Monzo CSV preset gives
/// the same transaction); `amount` in minor units (`-770` is £7.70 out) → amount, negative →
/// expense, positive → income; `currency`; `created` (RFC 3339, UTC) → occurred_at; the
/// expanded `merchant`'s `name` → merchant (of an expense) and title, its
/// `address.latitude`/`longitude` → the expense's position (not for an `online` merchant, whose
/// address is its head office); else `counterparty.name`, else `description` → title; `category`
/// (`eating_out`) → category; `notes`, and `local_amount`/`local_currency` when they differ,
/// → notes. Moves to and from pots (`metadata.pot_id`, scheme `uk_retail_pot`) and top-ups
/// (`is_load`) are transfers. Declined transactions (`decline_reason`) moved no money and are
/// skipped. Described in Monzo's API reference (docs.monzo.com, "Transactions", "Merchants")
/// and the transaction samples in billinghamj's "Monzo transaction types" gist.
enum MonzoAPIReader {
    static func read(_ bytes: [UInt8], file: String) throws(ImportError) -> [Result<StatementTransaction, RowError>] {
        func bad(_ reason: String) -> ImportError { .badFile(RowError(file: file, line: 1, column: "document", reason: reason)) }
        let root: JSONValue
        do { root = try StrictJSONParser.parse(bytes) } catch {
            throw .badFile(RowError(file: file, line: line(ofByte: error.offset, in: bytes), column: "document", reason: "is not valid JSON: \(error.reason)"))
        }
        let items: [JSONValue]
        if case .array(let a) = root {
            items = a
        } else if case .array(let a)? = root["transactions"] {
            items = a
        } else if let one = root["transaction"] {
            items = [one]
        } else {
            throw bad("is not Monzo API transactions: expected {\"transactions\": [...]}")
        }
        let lines = TransactionLines(bytes)
        var out: [Result<StatementTransaction, RowError>] = []
        // Lines only go forward: an id not found as a `"tx_…"` string, or found first earlier in
        // the file (repeated, or escaped), stands on the line of the transaction before it.
        var previous = 1
        for (n, item) in items.enumerated() {
            guard case .string(let id)? = item["id"], !id.isEmpty else {
                out.append(.failure(RowError(file: file, location: "transactions[\(n)]", column: "id", reason: "is missing; every transaction has its tx_ id")))
                continue
            }
            let at = max(lines.line(of: id) ?? previous, previous)
            previous = at
            if case .string(let reason)? = item["decline_reason"], !reason.isEmpty { continue }
            do { out.append(.success(try transaction(item, id: id, line: at))) } catch {
                out.append(.failure(RowError(file: file, line: at, column: error.column, reason: error.reason)))
            }
        }
        return out
    }

    static func transaction(_ t: JSONValue, id: String, line: Int) throws(FieldError) -> StatementTransaction {
        func string(_ key: String, in v: JSONValue? = nil) -> String? {
            guard case .string(let s)? = (v ?? t)[key], !s.isEmpty else { return nil }
            return s
        }
        guard let currencyCode = string("currency") else { throw FieldError(column: "currency", reason: "is missing") }
        let currency: Currency
        do { currency = try Currency(code: currencyCode) } catch { throw FieldError(column: "currency", reason: error.description) }
        let minor = try minorUnits(t["amount"], column: "amount")
        guard let created = string("created") else { throw FieldError(column: "created", reason: "is missing") }
        let occurred: String
        do { occurred = try Timestamp(parsing: created).text } catch { throw FieldError(column: "created", reason: error.description) }

        var kind: ExpenseKind = minor < 0 ? .expense : .income
        let pot = t["metadata"].flatMap { string("pot_id", in: $0) } != nil || string("scheme") == "uk_retail_pot"
        if pot || t["is_load"] == .bool(true) { kind = .transfer }
        var merchant: JSONValue?
        if case .object? = t["merchant"] { merchant = t["merchant"] }  // unexpanded, it is only an id
        let name = merchant.flatMap { string("name", in: $0) }
        var r = StatementTransaction(line: line, kind: kind, amount: magnitude(minor, digits: currency.minorDigits), counterparty: name)
        r["id"] = id
        r["currency"] = currency.code
        r["occurred_at"] = occurred
        if name == nil { r["title"] = t["counterparty"].flatMap { string("name", in: $0) } ?? string("description") }
        r["category"] = string("category")
        var notes = [string("notes")].compactMap { $0 }
        if let local = string("local_currency"), local != currency.code, let localMinor = try? minorUnits(t["local_amount"], column: "local_amount"),
            let digits = try? Currency(code: local).minorDigits
        {
            notes.append("paid \(magnitude(localMinor, digits: digits)) \(local)")
        }
        r["notes"] = notes.isEmpty ? nil : notes.joined(separator: "\n")
        if kind == .expense, let merchant, merchant["online"] != .bool(true), let address = merchant["address"],
            case .number(let lat)? = address["latitude"], case .number(let lon)? = address["longitude"],
            Double(lat) != 0 || Double(lon) != 0
        {
            r["lat"] = lat
            r["lon"] = lon
        }
        return r
    }

    /// Minor units as an unsigned decimal text: -770, 2 digits → `7.70`.
    private static func magnitude(_ minor: Int64, digits: Int) -> String {
        String(Money.decimalString(minor, digits: digits).drop { $0 == "-" })
    }

    /// An integer number of minor units (`-770`).
    private static func minorUnits(_ v: JSONValue?, column: String) throws(FieldError) -> Int64 {
        guard case .number(let text)? = v, let units = Int64(text) else {
            throw FieldError(column: column, reason: "is not a whole number of minor units (pence, cents) like -770")
        }
        return units
    }

    static func line(ofByte offset: Int, in bytes: [UInt8]) -> Int {
        1 + bytes.prefix(max(0, offset - 1)).reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
    }

    /// The line each transaction's id string stands on, for errors (the parsed values keep no
    /// positions): every `"tx_…"` string found in one pass, the first of each id kept.
    struct TransactionLines {
        private var lines: [String: Int] = [:]

        init(_ bytes: [UInt8]) {
            let quote = UInt8(ascii: "\""), newline = UInt8(ascii: "\n"), prefix = Array("tx_".utf8)
            var line = 1, i = 0
            while i < bytes.count {
                let b = bytes[i]
                if b == newline { line += 1 }
                if b == quote, bytes[(i + 1)...].starts(with: prefix),
                    let end = bytes[(i + 1)...].firstIndex(where: { $0 == quote || $0 == newline }), bytes[end] == quote
                {
                    let id = String(decoding: bytes[(i + 1)..<end], as: UTF8.self)
                    if lines[id] == nil { lines[id] = line }
                    i = end + 1
                    continue
                }
                i += 1
            }
        }

        func line(of id: String) -> Int? { lines[id] }
    }
}
