// Fuzz target `positions`: the location-history readers (`LocationHistoryReader.read`): each
// input through detection, then with every format forced on it, so each reader meets every
// input (the corpus holds an example of each format, Data/examples/positions/).
// Invariants: the file is read or refused as a whole: a refusal is `badFile` (at a line of the
// input, or a byte offset within it) or `rejected` (each error at a line of the input or a JSON
// path `key[n]`/`[n]`); a history has positions in time order with coordinates in range and an
// accuracy in 0…1e6 m, and visits that end after they start with a probability in 0…1; reading
// the same bytes twice gives the same history.
@testable import GeoSpend

func located(_ e: RowError, lines: Int, bytes: Int) {
    if e.location.hasPrefix("byte ") {
        let offset = Int(e.location.dropFirst(5)) ?? -1
        check(offset >= 1 && offset <= bytes + 1, "a byte offset outside the input: \(e)")
    } else if let line = Int(e.location) {
        check(line >= 1 && line <= lines, "a line outside the input: \(e)")
    } else {
        check(e.location == "document" || e.location.hasSuffix("]"), "neither a line nor a JSON path: \(e)")
    }
    check(!e.reason.isEmpty, "an error without a reason: \(e)")
}

func readHistory(_ path: String, format: LocationHistoryFormat?, lines: Int, bytes: Int) -> LocationHistory? {
    do {
        let (history, _) = try LocationHistoryReader.read(path: path, format: format)
        var previous = Int64.min
        for p in history.positions {
            check(p.epochMilliseconds >= previous, "positions out of time order")
            previous = p.epochMilliseconds
            check(abs(p.coordinate.latitude) <= 90 && abs(p.coordinate.longitude) <= 180, "a coordinate out of range: \(p)")
            if let a = p.accuracyMeters { check(a >= 0 && a < 1_000_000, "an accuracy out of range: \(p)") }
        }
        for v in history.visits {
            check(v.endEpochMilliseconds >= v.startEpochMilliseconds, "a visit that ends before it starts: \(v)")
            if let q = v.probability { check(q >= 0 && q <= 1, "a probability out of range: \(v)") }
        }
        return history
    } catch let ImportError.badFile(e) {
        located(e, lines: lines, bytes: bytes)
    } catch let ImportError.rejected(errors, badRows) {
        check(!errors.isEmpty && badRows >= errors.count, "a rejection without errors")
        for e in errors { located(e, lines: lines, bytes: bytes) }
    } catch {
        check(false, "unexpected error \(error)")
    }
    return nil
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPositions(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = bytes(data, size)
    let lines = lineCount(input)
    for format in [nil] + LocationHistoryFormat.allCases.map(Optional.some) {
        let first = readHistory(writeScratch(input), format: format, lines: lines, bytes: input.count)
        let again = readHistory(writeScratch(input), format: format, lines: lines, bytes: input.count)
        check(first == again, "two reads of the same bytes differ")
    }
    return 0
}
