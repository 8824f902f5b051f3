/// Parses a decimal number strictly: optional sign, digits, optional `.digits`, optional exponent.
/// Rejects `nan`, `inf`, `1.`, `.5`, hex, spaces — unlike `Double(_:)`, which takes all of those.
public func parseStrictDouble(_ text: String) throws(ValueError) -> Double {
    var bytes = text
    // The bytes in place (an array per number was a third of this function on an import).
    let wellFormed = bytes.withUTF8 { b in
        var i = 0
        func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
        if i < b.count && (b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+")) { i += 1 }
        let intStart = i
        while i < b.count && isDigit(b[i]) { i += 1 }
        var ok = i > intStart
        if ok && i < b.count && b[i] == UInt8(ascii: ".") {
            i += 1
            let fracStart = i
            while i < b.count && isDigit(b[i]) { i += 1 }
            ok = i > fracStart
        }
        if ok && i < b.count && (b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E")) {
            i += 1
            if i < b.count && (b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+")) { i += 1 }
            let expStart = i
            while i < b.count && isDigit(b[i]) { i += 1 }
            ok = i > expStart
        }
        return ok && i == b.count
    }
    guard wellFormed, let value = Double(text), value.isFinite else {
        let lower = text.lowercased()
        if lower.contains("nan") || lower.contains("inf") {
            throw .invalidNumber(text, reason: "is not a finite number")
        }
        throw .invalidNumber(text, reason: "is not a decimal number")
    }
    return value
}

/// `LAT,LON` in degrees as the coordinate options write it (`--near`, `--origin`,
/// `--mask-around`): two strict numbers around one comma, spaces allowed; nil otherwise. Callers
/// word their own errors, and check the range themselves.
public func parseDegreesPair(_ text: String) -> (latitude: Double, longitude: Double)? {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingCharacters(in: .whitespaces) }
    guard parts.count == 2, let lat = try? parseStrictDouble(parts[0]), let lon = try? parseStrictDouble(parts[1]) else { return nil }
    return (lat, lon)
}
