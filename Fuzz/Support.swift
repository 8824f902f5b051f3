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
        check(e.location.hasPrefix("feature "), "error location is neither a line nor a feature: \(e)")
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
