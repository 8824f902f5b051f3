// Fuzz target `jsonl`: the strict JSON parser and the JSON Lines expense import path.
// Invariants: JSON syntax errors point inside the text; every accepted JSON value, written
// back as JSON, parses to the same value; row errors name a line of the input; every expense
// accepted round-trips through the CSV GeoSpend writes.
@testable import GeoSpend

/// JSON text for a parsed value (numbers keep their literal text, strings escaped by GeoSpend's writer).
func jsonText(_ v: JSONValue) -> String {
    switch v {
    case .null: return "null"
    case .bool(let b): return b ? "true" : "false"
    case .number(let n): return n
    case .string(let s): return JSONOutput.string(s).serialized(pretty: false)
    case .array(let items): return "[" + items.map(jsonText).joined(separator: ",") + "]"
    case .object(let members):
        return "{" + members.map { JSONOutput.string($0.key).serialized(pretty: false) + ":" + jsonText($0.value) }
            .joined(separator: ",") + "}"
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONLines(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = bytes(data, size)

    // 1. The parser on the whole input.
    do {
        let value = try StrictJSONParser.parse(input)
        let text = jsonText(value)
        do {
            let again = try StrictJSONParser.parse(Array(text.utf8))
            check(again == value, "JSON written back parses differently: \(text)")
        } catch { check(false, "JSON written back does not parse (\(error)): \(text)") }
    } catch {
        check(error.offset >= 1 && error.offset <= input.count + 1, "syntax error at byte \(error.offset) of \(input.count)")
    }

    // 2. The import path, one object per line.
    let lines = lineCount(input, lfOnly: true)
    let path = writeScratch(input)
    var expenses: [Expense] = []
    do {
        _ = try RecordReaders.jsonLines(path: path, displayName: path, known: ExpenseRecord.columns) { result in
            switch result {
            case .success(let r):
                do { expenses.append(try ExpenseRecord.parse(r)) } catch let e as FieldError {
                    check(ExpenseRecord.columns.contains(e.column), "field error names an unknown column: \(e.column)")
                }
            case .failure(let e): checkLocated(e, lines: lines)
            }
        }
    } catch let ImportError.badFile(e) where e.column == "encoding" {
        // A UTF-16/32 file is refused as a whole, before any row.
        check(e.location == "1" && e.reason.contains("convert it with `iconv -f"), "encoding error: \(e)")
        check(expenses.isEmpty, "rows read before the encoding error")
    } catch {
        check(false, "unexpected error \(error)")
    }
    for e in expenses { checkRoundTrip(e) }
    return 0
}
