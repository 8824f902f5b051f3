// Fuzz target `arguments`: the parsers behind option values and fields — distances (`500m`,
// `1.5km`), dates and instants (RFC 3339), months (`2026-03`), amounts, strict decimals.
// Invariants: a parsed distance is finite and > 0 and its metres parse back to the same value;
// a timestamp's canonical text parses back to the same timestamp and agrees with its instant;
// an amount is positive, within the limit and its decimal string parses back to it.
@testable import GeoSpend

let currencies = ["EUR", "JPY", "KWD", "CLF"].map { try! Currency(code: $0) }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArguments(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: bytes(data, size), as: UTF8.self)

    if let d = try? Distance(parsing: text) {
        check(d.meters.isFinite && d.meters > 0, "distance \(d.meters) from \(text)")
        check((try? Distance(parsing: "\(d.meters)m"))?.meters == d.meters, "\(d.meters)m does not parse back")
    }

    if let x = try? parseStrictDouble(text) {
        check(x.isFinite && Double(text) == x, "strict \(x) from \(text)")
    }

    if let t = try? Timestamp(parsing: text) {
        check((try? Timestamp(parsing: t.text)) == t, "canonical \(t.text) does not parse back to itself")
        check(t.text.hasPrefix(t.localDate), "local date \(t.localDate) is not the start of \(t.text)")
        if let offset = t.utcOffsetMinutes {
            // The instant shown at the recorded offset is the same wall-clock time.
            let seconds = t.epochMilliseconds >= 0 ? t.epochMilliseconds / 1000 : (t.epochMilliseconds - 999) / 1000
            let shown = Timestamp(epochSeconds: seconds, utcOffsetMinutes: offset).text
            check(t.text.prefix(19) == shown.prefix(19), "\(t.text) is the instant \(shown)")
        } else {
            check(t.epochMilliseconds % 86_400_000 == 0, "a bare date \(t.text) is not at midnight")
        }
    }

    if let (from, to) = try? SpendingSummary.month(text) {
        check(from.isDateOnly && to.isDateOnly && from <= to, "month \(text) gives \(from)…\(to)")
        check(from.text.hasSuffix("-01") && from.text.prefix(7) == to.text.prefix(7), "month \(text) gives \(from)…\(to)")
    }

    for currency in currencies {
        if let m = try? Money(parsing: text, currency: currency) {
            check(m.minorUnits > 0 && m.minorUnits <= Money.maximumMinorUnits, "amount \(m.minorUnits) from \(text)")
            check((try? Money(parsing: m.decimalString, currency: currency)) == m, "\(m.decimalString) does not parse back")
        }
    }
    return 0
}
