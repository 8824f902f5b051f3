// Shared by every fuzz target (compiled into each one by scripts/fuzz.sh).
#if canImport(Glibc)
    import Glibc
#endif
@testable import GeoSpend

/// An invariant the input broke: abort, so libFuzzer saves the input as a crash.
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() {
        fputs("invariant broken: \(message())\n", stderr)
        abort()
    }
}

/// The fuzz input as a byte array (libFuzzer hands over a pointer that may be nil when empty).
func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// The readers take a path (they map or stream the file), so the input goes through a file in
/// memory-backed /dev/shm when there is one; one file per process, rewritten for every input.
let scratchPath: String = {
    let dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
    return "\(dir)/geospend-fuzz-\(getpid())"
}()

func writeScratch(_ input: [UInt8]) -> String {
    let fd = open(scratchPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    check(fd >= 0, "cannot open \(scratchPath)")
    var written = 0
    while written < input.count {
        let n = input.withUnsafeBytes { write(fd, $0.baseAddress! + written, input.count - written) }
        check(n > 0, "cannot write \(scratchPath)")
        written += n
    }
    close(fd)
    return scratchPath
}

/// Physical lines of the input as the readers count them (`\n`, `\r\n` or a lone `\r` end a line).
func lineCount(_ input: [UInt8], lfOnly: Bool = false) -> Int {
    var lines = 1
    var i = 0
    while i < input.count {
        if input[i] == 0x0A {
            lines += 1
        } else if input[i] == 0x0D, !lfOnly {
            if i + 1 < input.count, input[i + 1] == 0x0A { i += 1 }
            lines += 1
        }
        i += 1
    }
    return lines
}

/// A row error must point inside the input: a line 1…lines of the file and a named column.
func checkLocated(_ e: RowError, lines: Int) {
    check(e.file == scratchPath, "error names another file: \(e)")
    check(!e.column.isEmpty && !e.reason.isEmpty, "error without column or reason: \(e)")
    check(e.column.count <= 64 && !e.column.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "unreadable column in \(e)")
    if let line = Int(e.location) {
        check(line >= 1 && line <= lines, "error at line \(line) of a \(lines)-line input: \(e)")
    } else {
        // A JSON reader names a value it cannot place on a line by its path (`transactions[3]`).
        let path = e.location.hasPrefix("transactions[") && e.location.hasSuffix("]")
        check(e.location.hasPrefix("feature ") || path, "error location is neither a line, a feature nor a JSON path: \(e)")
    }
}

/// Parses the expense CSV that `ImportCSV.line` writes, through the real CSV import path.
func reparseExpenseCSV(_ line: String) -> Expense {
    let path = writeScratch(Array((ImportCSV.expenseHeader + "\n" + line).utf8))
    var found: [Expense] = []
    do {
        _ = try RecordReaders.csv(path: path, displayName: path, known: ExpenseRecord.columns, required: ExpenseRecord.required) {
            result in
            switch result {
            case .success(let r): found.append(try ExpenseRecord.parse(r))
            case .failure(let e): check(false, "the CSV GeoSpend writes is rejected: \(e) for \(line)")
            }
        }
    } catch { check(false, "the CSV GeoSpend writes is rejected: \(error) for \(line)") }
    check(found.count == 1, "\(found.count) expenses read back from \(line)")
    return found[0]
}

/// An expense read from any format, written as CSV and read again, is written the same way:
/// the CSV form is a fixed point (nothing lost or changed beyond its documented rounding).
func checkRoundTrip(_ expense: Expense) {
    let once = ImportCSV.line(expense)
    let back = reparseExpenseCSV(once)
    check(ImportCSV.line(back) == once, "round trip changed \(once) into \(ImportCSV.line(back))")
    check(back.amount == expense.amount && back.occurredAt == expense.occurredAt && back.userID == expense.userID,
          "round trip changed amount, time or user: \(expense) → \(back)")
}

/// The keys `StatementReaders` documents for a statement's records.
let statementKeys: Set<String> = ["id", "kind", "amount", "currency", "occurred_at", "title", "merchant", "notes", "category"]
/// A statement that carries positions (the Monzo API's merchant addresses) adds these.
let positionKeys: Set<String> = ["lat", "lon"]

/// The shared body of the `ofx`, `qif`, `camt053`, `mt940` and `monzo-api` targets: the format's reader on the input,
/// then every transaction through the importer's own path (`StatementReaders.read` and
/// `ExpenseRecord.parse` with a user and a fallback currency, as `--user`/`--currency` add them).
/// Invariants: the file is either read or refused as a whole with `badFile` at the document or
/// its encoding, on a line of the input; every transaction and every row error is located on a
/// line of the input, in order; a transaction has exactly the canonical keys (`kind` and a
/// positive decimal `amount` always, a parseable `occurred_at` when present); whatever
/// `ExpenseRecord.parse` accepts round-trips through the expense CSV.
func checkStatement(_ format: StatementFormat, _ input: [UInt8]) {
    let path = writeScratch(input)
    let lines = lineCount(input)
    var records: [RawRecord] = []
    var previous = 0
    do {
        let read = try StatementReaders.read(format, path: path, displayName: path, options: StatementOptions()) { result in
            switch result {
            case .success(let r): records.append(r)
            case .failure(let e): checkLocated(e, lines: lines)
            }
        }
        check(read == Int64(input.count), "read \(read) of \(input.count) bytes")
    } catch let ImportError.badFile(e) {
        checkLocated(e, lines: lines)
        // QIF also refuses a file whose dates read both day- and month-first (at `D`, naming --date-format).
        let dateOrder = format == .qif && e.column == "D" && e.reason.contains("--date-format")
        check(e.column == "document" || e.column == "encoding" || dateOrder, "a file error not at the document or its encoding: \(e)")
        return
    } catch {
        check(false, "unexpected error \(error)")
    }
    // The canonical keys, straight from the format's reader (the records above only answer lookups).
    let transactions: [Result<StatementTransaction, RowError>]
    do {
        switch format {
        case .ofx: transactions = try OFXReader.read(input, file: path)
        case .qif: transactions = try QIFReader.read(input, file: path, dateFormat: nil)
        case .camt053: transactions = try CamtReader.read(input, file: path)
        case .mt940: transactions = try MT940Reader.read(input, file: path)
        case .monzoAPI: transactions = try MonzoAPIReader.read(input, file: path)
        }
    } catch {
        check(false, "the reader refused what StatementReaders read: \(error)")
        return
    }
    check(transactions.compactMap { try? $0.get() }.count == records.count, "the two reads disagree")
    for result in transactions {
        let line: Int
        switch result {
        case .success(let t): line = t.line
        case .failure(let e):
            // An error located by a JSON path (`transactions[3]`) has no line to order.
            guard let at = Int(e.location) else { continue }
            line = at
        }
        check(line >= previous, "transaction at line \(line) after one at line \(previous)")
        previous = line
        guard case .success(let t) = result else { continue }
        check(line >= 1 && line <= lines, "transaction at line \(line) of a \(lines)-line input")
        let keys = Set(t.fields.keys)
        let allowed = format == .monzoAPI ? statementKeys.union(positionKeys) : statementKeys
        check(keys.isSubset(of: allowed), "keys outside the canonical ones: \(keys.subtracting(allowed))")
        if keys.contains("lat") || keys.contains("lon") {
            // Both or neither, and numbers; their range is the import's rule (`ExpenseRecord.parse`, below).
            let lat = Double(t.fields["lat"] ?? ""), lon = Double(t.fields["lon"] ?? "")
            check(lat?.isFinite == true && lon?.isFinite == true, "a position half given or not a number: \(t.fields)")
        }
        check(["expense", "income", "transfer"].contains(t.fields["kind"] ?? ""), "kind \(t.fields["kind"] ?? "nil")")
        let amount = t.fields["amount"] ?? ""
        let parts = amount.split(separator: ".", omittingEmptySubsequences: false)
        check(parts.count <= 2 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }, "amount \(ValueError.quote(amount)) is not a positive decimal")
        check(!t.fields.values.contains(""), "an empty value in \(t.fields)")
        if let at = t.fields["occurred_at"] {
            check((try? Timestamp(parsing: at)) != nil, "occurred_at \(ValueError.quote(at)) does not parse")
        }
    }
    for r in records {
        let record = RawRecord(location: r.location) { key in
            switch key {
            case "user": return .text("u")
            case "currency":
                if case .text(let c)? = r.value(key), !c.isEmpty { return .text(c) }
                return .text("EUR")
            default: return r.value(key)
            }
        }
        do {
            var expense = try ExpenseRecord.parse(record)
            if expense.id.isEmpty { expense.id = "derived" }
            checkRoundTrip(expense)
        } catch {
            check(!error.column.isEmpty && !error.reason.isEmpty, "a field error without column or reason: \(error)")
        }
    }
}

/// Stores read from any format: inside the coordinate ranges, with an id, and written in the
/// store CSV format and read back as the same line again.
func checkStores(_ stores: [Store]) {
    for s in stores {
        let c = s.coordinate
        check(c.latitude.isFinite && c.longitude.isFinite && abs(c.latitude) <= 90 && abs(c.longitude) <= 180, "store at \(c)")
        check(!s.id.isEmpty, "store without id")
        let line = ImportCSV.line(s)
        let csvPath = writeScratch(Array((ImportCSV.storeHeader + "\n" + line).utf8))
        do {
            let back = try Importer.readStores(from: csvPath)
            check(back.count == 1 && ImportCSV.line(back[0]) == line, "store CSV round trip changed \(line)")
        } catch { check(false, "the store CSV GeoSpend writes is rejected: \(error) for \(line)") }
    }
}
