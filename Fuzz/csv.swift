// Fuzz target `csv`: the strict CSV reader and the expense CSV import path on arbitrary bytes.
// Invariants: every row and error sits on a line of the input, lines only grow, a fatal error
// is the last thing read; every row re-encoded as CSV reads back as the same fields; every
// expense accepted round-trips through the CSV GeoSpend writes.
@testable import GeoSpend

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCSV(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = bytes(data, size)
    let lines = lineCount(input)

    // 1. The reader alone, on heap memory (AddressSanitizer watches the buffer's ends).
    let reader = CSVReader(bytes: input)
    var lastLine = 0
    var sawFatal = false
    while let result = reader.next() {
        check(!sawFatal, "the reader went on after a fatal error")
        switch result {
        case .success(let row):
            check(row.line > lastLine && row.line <= lines, "row at line \(row.line) after \(lastLine), input has \(lines)")
            lastLine = row.line
            check(!row.fields.isEmpty, "a row without fields at line \(row.line)")
            let encoded = row.fields.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: ",")
            let again = CSVReader(bytes: Array((encoded + "\n").utf8))
            guard case .success(let copy)? = again.next() else {
                check(false, "re-encoded row does not read back: \(encoded)")
                return 0
            }
            check(copy.fields == row.fields && again.next() == nil, "re-encoded row reads back differently: \(encoded)")
        case .failure(let e):
            check(e.line > lastLine && e.line <= lines, "error at line \(e.line) after \(lastLine), input has \(lines)")
            lastLine = e.line
            check(e.fieldIndex >= 0 && !e.reason.isEmpty, "error without field or reason: \(e)")
            sawFatal = e.isFatal
        }
    }
    check(reader.bytesRead <= Int64(input.count), "read \(reader.bytesRead) of \(input.count) bytes")

    // 2. The import path: header check, ragged rows, field validation.
    let path = writeScratch(input)
    var expenses: [Expense] = []
    do {
        _ = try RecordReaders.csv(path: path, displayName: path, known: ExpenseRecord.columns, required: ExpenseRecord.required) {
            result in
            switch result {
            case .success(let r):
                do { expenses.append(try ExpenseRecord.parse(r)) } catch let e as FieldError {
                    check(ExpenseRecord.columns.contains(e.column), "field error names an unknown column: \(e.column)")
                    check(Int(r.location).map { $0 >= 1 && $0 <= lines } == true, "record at \(r.location) of \(lines) lines")
                }
            case .failure(let e): checkLocated(e, lines: lines)
            }
        }
    } catch let ImportError.badFile(e) {
        checkLocated(e, lines: lines)
    } catch let ImportError.badHeader(errors) {
        for e in errors { checkLocated(e, lines: lines) }
    } catch {
        check(false, "unexpected error \(error)")
    }
    for e in expenses { checkRoundTrip(e) }
    return 0
}
